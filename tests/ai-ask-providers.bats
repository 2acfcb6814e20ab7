#!/usr/bin/env bats
# ai-ask's providers beyond the first four: Gemini, the named profiles with
# keys of their own, their quirks, reasoning records, --models, aliases,
# attachments.  Every request is asserted on what the mock recorded.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env

PROFILE_VARS="DEEPSEEK DASHSCOPE ZHIPUAI ZHIPU MOONSHOT ARK STEPFUN YI BAICHUAN MINIMAX GROQ OPENROUTER TOGETHER MISTRAL XAI GEMINI"

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	clean_env
	for v in $PROFILE_VARS; do unset "${v}_API_KEY" "${v}_BASE_URL"; done
	export AICLI_CONFIG="$BATS_TEST_TMPDIR/config.json"
	echo '{}' > "$AICLI_CONFIG"
	chmod 600 "$AICLI_CONFIG"
	export GEMINI_BASE_URL="$MOCK_URL" GEMINI_API_KEY="gm-test-key-0123456789abcdef"
	T="$BATS_TEST_TMPDIR"
	cat > "$T/tools.json" <<'JSON'
[{"name": "getWeather", "description": "The weather of a place.",
  "parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}]
JSON
	# the smallest files of each kind, by their first bytes
	printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' > "$T/a.png"
	printf '%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n' > "$T/a.pdf"
	printf 'just text\n' > "$T/a.txt"
}

ask() { ai-ask "$@" </dev/null; }

# ---- Gemini ----

@test "gemini: a streamed answer over SSE, the key in x-goog-api-key and never in the URL" {
	run --separate-stderr ask --provider gemini -s "be brief" --temperature 0.5 --max-tokens 40 "hi"
	[ "$status" -eq 0 ]
	[ "$output" = "Hello! How can I help you today?" ]
	[ -z "$stderr" ]
	r=$(mock_request 1)
	jq -e '.method == "POST" and .path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"' <<<"$r"
	jq -e '.query == {"alt": ["sse"]}' <<<"$r"
	jq -e '.headers["x-goog-api-key"] == "gm-test-key-0123456789abcdef"' <<<"$r"
	jq -e '.headers | has("authorization") | not' <<<"$r"
	! grep -q 'gm-test-key' <<<"$(jq -r '.path, (.query | tostring)' <<<"$r")"
	jq -e '.json == {"systemInstruction":{"parts":[{"text":"be brief"}]},
		"contents":[{"role":"user","parts":[{"text":"hi"}]}],
		"generationConfig":{"temperature":0.5,"maxOutputTokens":40}}' <<<"$r"
}

@test "gemini: -m gemini-* picks Gemini; a whole answer in JSON mode with its usage and price" {
	run --separate-stderr ask -m gemini-2.5-pro --json "q"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.path == "/v1beta/models/gemini-2.5-pro:generateContent" and .query == {}'
	[ "$(jq -r .content <<<"${lines[0]}")" = 'OK. I found a reference for "recurring revenue". What would you like to know about it? ' ]
	# 207 x 1.25 + 20 x 10, per million
	jq -e '. == {"type":"usage","model":"gemini-2.5-pro","input_tokens":207,"cached_tokens":0,
		"output_tokens":20,"calls":1,"weighted_tokens":287,"cost_usd":0.00045875}' <<<"${lines[1]}"
}

@test "gemini: a function call keeps its thought signature; the next turn sends it back with the result" {
	mock_script '{"routes":{"POST /v1beta/models/gemini-2.5-flash:streamGenerateContent":[{"file":"gemini/louter_stream_function_call_sse.sse"}]}}'
	run --separate-stderr ask --provider gemini --json --stream --tools "$T/tools.json" "weather in Tokyo?"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	call=${lines[0]}
	jq -e '.type == "tool_call" and .name == "getWeather" and .arguments == {"location":"Tokyo"}
		and (.signature | startswith("CikBcsjafFK168"))' <<<"$call"
	# output = candidates 14 + thoughts 104
	jq -e '.input_tokens == 83 and .output_tokens == 118' <<<"${lines[1]}"
	mock_request 1 | jq -e '.json.tools == [{"functionDeclarations":[{"name":"getWeather",
		"description":"The weather of a place.","parametersJsonSchema":{"type":"object",
		"properties":{"location":{"type":"string"}},"required":["location"]}}]}]'
	id=$(jq -r .id <<<"$call")
	sig=$(jq -r .signature <<<"$call")
	mock_reset
	{ echo '{"type":"message","role":"user","content":"weather in Tokyo?"}'; echo "$call"
	  echo "{\"type\":\"tool_result\",\"id\":\"$id\",\"ok\":true,\"temp\":21}"; } |
		ai-ask --provider gemini --tools "$T/tools.json" >/dev/null
	mock_request 1 | jq -e --arg sig "$sig" '.json.contents == [
		{"role":"user","parts":[{"text":"weather in Tokyo?"}]},
		{"role":"model","parts":[{"functionCall":{"name":"getWeather","args":{"location":"Tokyo"}},"thoughtSignature":$sig}]},
		{"role":"user","parts":[{"functionResponse":{"name":"getWeather","response":{"ok":true,"temp":21}}}]}]'
}

@test "gemini: parallel calls split across events are one model turn; their results one user turn" {
	mock_script "$(printf '%s\n\n' \
		'data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"getWeather","args":{"location":"Paris"}}}]}}]}' \
		'data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"getWeather","args":{"location":"Rome"}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"cachedContentTokenCount":5}}' |
		jq -Rsc '{routes: {"POST /v1beta/models/gemini-2.5-flash:streamGenerateContent": [{body: ., content_type: "text/event-stream"}]}}')"
	run --separate-stderr ask --provider gemini --json --stream --tools "$T/tools.json" "two cities"
	[ "$status" -eq 0 ]
	jq -e '.arguments == {"location":"Paris"}' <<<"${lines[0]}"
	jq -e '.arguments == {"location":"Rome"}' <<<"${lines[1]}"
	[ "$(jq -r .id <<<"${lines[0]}")" != "$(jq -r .id <<<"${lines[1]}")" ]
	jq -e '.cached_tokens == 5 and .input_tokens == 9' <<<"${lines[2]}"
	mock_reset
	{ echo '{"type":"message","role":"user","content":"two cities"}'; echo "${lines[0]}"; echo "${lines[1]}"
	  echo "{\"type\":\"tool_result\",\"id\":$(jq .id <<<"${lines[0]}"),\"ok\":true,\"t\":1}"
	  echo "{\"type\":\"tool_result\",\"id\":$(jq .id <<<"${lines[1]}"),\"ok\":true,\"t\":2}"; } |
		ai-ask --provider gemini >/dev/null
	mock_request 1 | jq -e '[.json.contents[] | .role] == ["user","model","user"] and
		(.json.contents[1].parts | length) == 2 and (.json.contents[2].parts | length) == 2 and
		.json.toolConfig == {"functionCallingConfig":{"mode":"NONE"}}'
}

@test "gemini: a blocked prompt and a SAFETY stop are refusals: exit 1, said on stderr" {
	mock_script '{"routes":{"POST /v1beta/models/gemini-2.5-flash:generateContent":[{"file":"gemini/prompt_blocked_safety.json"}]}}'
	run --separate-stderr ask --provider gemini --json "x"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "ai-ask: the model refused to answer ("*" said 'SAFETY')" ]]
	[ "$(jq -r .type <<<"${lines[-1]}")" = "error" ]
	mock_script "$(printf 'data: %s\n\n' '{"candidates":[{"content":{"role":"model","parts":[{"text":"I will not"}]},"finishReason":"SAFETY"}]}' |
		jq -Rsc '{routes: {"POST /v1beta/models/gemini-2.5-flash:streamGenerateContent": [{body: ., content_type: "text/event-stream"}]}}')"
	run --separate-stderr ask --provider gemini "x"
	[ "$status" -eq 1 ]
	[ "$output" = "I will not" ]
	[[ "$stderr" == *" said 'SAFETY')" ]]
	# the message record says it is a refusal
	mock_script "$(jq -nc '{routes: {"POST /v1beta/models/gemini-2.5-flash:generateContent": [{body:
		({candidates: [{content: {role: "model", parts: [{text: "I will not"}]}, finishReason: "SAFETY"}]} | tojson)}]}}')"
	run --separate-stderr ask --provider gemini --json "x"
	[ "$status" -eq 1 ]
	jq -e '.type == "message" and .refusal == true and .content == "I will not"' <<<"${lines[0]}"
}

@test "gemini: a refused key (400 API_KEY_INVALID) is a configuration error naming where the key came from" {
	mock_script '{"routes":{"POST /v1beta/models/gemini-2.5-flash:streamGenerateContent":[{"status":400,"file":"gemini/error_400_api_key_invalid.json"}]}}'
	run --separate-stderr ask --provider gemini "x"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"API key not valid"* ]]
	[[ "$stderr" != *"gm-test-key"* ]]
	[ "$(mock_count)" -eq 1 ]
}

@test "gemini: 429 RESOURCE_EXHAUSTED after the retries is 75; a cut stream is 76 with no message record" {
	mock_script '{"routes":{"POST /v1beta/models/gemini-2.5-flash:generateContent":[{"status":429,"json":{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}}]},"repeat_last":true}'
	run --separate-stderr ask --provider gemini --json --retries 1 "x"
	[ "$status" -eq 75 ]
	[[ "$stderr" == *"Resource has been exhausted"* ]]
	[ "$(mock_count)" -eq 2 ]
	mock_script '{"routes":{"POST /v1beta/models/gemini-2.5-flash:streamGenerateContent":[{"file":"gemini/stream_generate_content_text_sse.sse","cut_mid_event":2}]}}'
	run --separate-stderr ask --provider gemini --json --stream "x"
	[ "$status" -eq 76 ]
	! grep -q '"type":"message"' <<<"$output"
}

@test "gemini: an error event inside the stream is reported, with its status" {
	mock_script "$(printf 'data: %s\n\n' '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' |
		jq -Rsc '{routes: {"POST /v1beta/models/gemini-2.5-flash:streamGenerateContent": [{body: ., content_type: "text/event-stream"}]}, repeat_last: true}')"
	run --separate-stderr ask --provider gemini --retries 0 "x"
	[ "$status" -eq 69 ]
	[[ "$stderr" == *"UNAVAILABLE: The model is overloaded."* ]]
}

@test "gemini: a base URL that already ends in its version is not given another" {
	GEMINI_BASE_URL="$MOCK_URL/v1beta/" run --separate-stderr ask --provider gemini "hi"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"'
}

@test "gemini: GOOGLE_API_KEY, ai-search's key, is never sent to Gemini" {
	unset GEMINI_API_KEY
	GOOGLE_API_KEY=AIza-search-key-0123456789 run --separate-stderr ask --provider gemini "x"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-ask: no API key for gemini: set GEMINI_API_KEY, or \"gemini_api_key\" in $AICLI_CONFIG; GOOGLE_API_KEY is ai-search's key and is never sent to Gemini" ]
	[ "$(mock_count)" -eq 0 ]
}

# ---- named profiles ----

@test "every named profile: its path under its own base URL, its own key and no other, its default model" {
	while read -r name var model; do
		for v in $PROFILE_VARS OPENAI ANTHROPIC; do export "${v}_API_KEY=wrong-${v}-0123456789"; done
		export "${var}_API_KEY=key-of-${name}-0123456789" "${var}_BASE_URL=$MOCK_URL/p/$name"
		mock_reset
		run --separate-stderr ask --provider "$name" "hi"
		[ "$status" -eq 0 ] || { echo "$name: $stderr"; false; }
		r=$(mock_request 1)
		jq -e --arg p "/p/$name/chat/completions" --arg k "Bearer key-of-${name}-0123456789" --arg m "$model" \
			'.path == $p and .headers.authorization == $k and .json.model == $m' <<<"$r" ||
			{ echo "$name: $r"; false; }
		! grep -q 'wrong-' <<<"$r"
		unset "${var}_BASE_URL"
	done <<'EOF2'
deepseek DEEPSEEK deepseek-chat
qwen DASHSCOPE qwen-plus
glm ZHIPUAI glm-4-flash
kimi MOONSHOT moonshot-v1-8k
doubao ARK doubao-seed-1-6-250615
stepfun STEPFUN step-1-8k
yi YI yi-lightning
baichuan BAICHUAN Baichuan4-Turbo
minimax MINIMAX MiniMax-M1
groq GROQ llama-3.3-70b-versatile
openrouter OPENROUTER openrouter/auto
together TOGETHER meta-llama/Llama-3.3-70B-Instruct-Turbo
mistral MISTRAL mistral-small-latest
xai XAI grok-3-mini
EOF2
}

@test "a profile without its own key fails before any request, even when another profile's key is set" {
	export OPENAI_API_KEY=sk-openai-0123456789 OPENAI_BASE_URL="$MOCK_URL/v1" DEEPSEEK_BASE_URL="$MOCK_URL"
	run --separate-stderr ask --provider deepseek "hi"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-ask: no API key for deepseek: set DEEPSEEK_API_KEY, or \"deepseek_api_key\" in $AICLI_CONFIG" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "another profile's base URL never carries a key: OPENAI_BASE_URL does not move deepseek" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" DEEPSEEK_API_KEY=sk-ds-0123456789abcdef
	# no route out of this machine: the proxy refuses, and the mock must see nothing
	https_proxy=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 run --separate-stderr \
		ai-ask -v --retries 0 --timeout 5 --provider deepseek "hi" </dev/null
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"POST https://api.deepseek.com/chat/completions (openai-chat, model deepseek-chat"* ]]
	[[ "$stderr" != *"sk-ds-0123456789abcdef"* ]]
	[ "$(mock_count)" -eq 0 ]
}

@test "pointing a profile at another host takes its own key along: variable, flag or configuration entry" {
	export DEEPSEEK_API_KEY=sk-ds-0123456789abcdef OPENAI_API_KEY=sk-openai-0123456789
	DEEPSEEK_BASE_URL="$MOCK_URL/env" run --separate-stderr ask --provider deepseek "hi"
	[ "$status" -eq 0 ]
	run --separate-stderr ask --provider deepseek --base-url "$MOCK_URL/flag" "hi"
	printf '{"providers": {"deepseek": {"base_url": "%s/cfg", "model": "deepseek-reasoner"}}}\n' "$MOCK_URL" > "$AICLI_CONFIG"
	run --separate-stderr ask --provider deepseek "hi"
	[ "$status" -eq 0 ]
	[ "$(mock_requests | jq -r '.path' | tr '\n' ' ')" = "/env/chat/completions /flag/chat/completions /cfg/chat/completions " ]
	[ "$(mock_requests | jq -r '.headers.authorization' | sort -u)" = "Bearer sk-ds-0123456789abcdef" ]
	mock_request 3 | jq -e '.json.model == "deepseek-reasoner"'
}

@test "the configuration defines a profile: adapter, base URL, a key variable of its own, headers" {
	printf '{"providers": {"work": {"adapter": "openai-chat", "base_url": "%s/work/v1", "key_env": "WORK_LLM_KEY",
		"model": "m1", "headers": {"X-Team": "infra", "X-Api-Token": "tok-secret-0123456789"}}}}\n' "$MOCK_URL" > "$AICLI_CONFIG"
	WORK_LLM_KEY=wk-0123456789abcdef OPENAI_API_KEY=sk-no run --separate-stderr ask -v --provider work "hi"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"tok-secret-0123456789"* && "$stderr" != *"wk-0123456789abcdef"* ]]
	mock_request 1 | jq -e '.path == "/work/v1/chat/completions" and .headers.authorization == "Bearer wk-0123456789abcdef"
		and .headers["x-team"] == "infra" and .headers["x-api-token"] == "tok-secret-0123456789" and .json.model == "m1"'
	run --separate-stderr ask --provider work "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" = "ai-ask: no API key for work: set WORK_LLM_KEY, or \"key\" in providers.work of "*.json ]]
}

@test "bad profile entries are configuration errors that say what is wrong" {
	for entry in '{"adapter": "soap", "base_url": "http://x"}' '{"base_url": "http://x"}' '{"adapter": "openai-chat"}' \
		'{"adapter": "openai-chat", "base_url": "http://x", "colour": "red"}' \
		'{"adapter": "openai-chat", "base_url": "http://x", "headers": {"X-A": "a\nb"}}' '"text"'; do
		printf '{"providers": {"mine": %s}}\n' "$entry" > "$AICLI_CONFIG"
		run --separate-stderr ask --provider mine "hi"
		[ "$status" -eq 78 ] || { echo "$entry: $stderr"; false; }
		[[ "$stderr" == "ai-ask: config file '$AICLI_CONFIG': providers: 'mine': "* ]]
	done
	[ "$(mock_count)" -eq 0 ]
}

@test "a key in a providers entry makes a file others can read refused, and never shows" {
	printf '{"providers": {"deepseek": {"key": "sk-in-file-0123456789"}}}\n' > "$AICLI_CONFIG"
	chmod 644 "$AICLI_CONFIG"
	run --separate-stderr ask --provider deepseek "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"holds an API key and can be read by other users"* ]]
	chmod 600 "$AICLI_CONFIG"
	DEEPSEEK_BASE_URL="$MOCK_URL" run --separate-stderr ask -vv --provider deepseek "hi"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"sk-in-file-0123456789"* ]]
	mock_request 1 | jq -e '.headers.authorization == "Bearer sk-in-file-0123456789"'
}

# ---- quirks ----

@test "deepseek: the documented answer; cache hits count as cached; reasoning_content is a reasoning record" {
	export DEEPSEEK_API_KEY=sk-ds-0123456789abcdef DEEPSEEK_BASE_URL="$MOCK_URL"
	mock_script '{"routes":{"POST /chat/completions":[{"file":"deepseek/docs_example_chat_completion.json"}]}}'
	run --separate-stderr ask --provider deepseek "Hi"
	[ "$status" -eq 0 ]
	[ "$output" = "Hello! How can I assist you today? 😊" ]
	mock_script "$(printf 'data: %s\n\n' \
		'{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"9.11 vs 9.8: "}}]}' \
		'{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"compare tenths."}}]}' \
		'{"choices":[{"index":0,"delta":{"content":"9.8 is greater."},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":30,"prompt_cache_hit_tokens":16,"prompt_cache_miss_tokens":4}}' \
		'[DONE]' | jq -Rsc '{routes: {"POST /chat/completions": [{body: ., content_type: "text/event-stream"}]}}')"
	run --separate-stderr ask --provider deepseek -m deepseek-reasoner "which is greater?"
	[ "$status" -eq 0 ]
	[ "$output" = "9.8 is greater." ]
	mock_reset
	mock_script "$(mock_requests; printf 'data: %s\n\n' \
		'{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"compare tenths."}}]}' \
		'{"choices":[{"index":0,"delta":{"content":"9.8"},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":30,"prompt_cache_hit_tokens":16}}' \
		'[DONE]' | jq -Rsc '{routes: {"POST /chat/completions": [{body: ., content_type: "text/event-stream"}]}}')"
	run --separate-stderr ask --provider deepseek -m deepseek-reasoner --json --stream "q"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"delta","text":"9.8"}' ]
	[ "${lines[1]}" = '{"type":"reasoning","provider":"openai-chat","text":"compare tenths."}' ]
	[ "${lines[2]}" = '{"type":"message","role":"assistant","content":"9.8"}' ]
	jq -e '.cached_tokens == 16 and .cost_usd == 0.000014168' <<<"${lines[3]}"
}

@test "deepseek-reasoner cannot call tools: none are declared, and stderr says so" {
	export DEEPSEEK_API_KEY=sk-ds-0123456789abcdef DEEPSEEK_BASE_URL="$MOCK_URL"
	run --separate-stderr ask --provider deepseek -m deepseek-reasoner --tools "$T/tools.json" "weather?"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ai-ask: warning: deepseek-reasoner cannot call tools: the tools of '$T/tools.json' are not declared" ]
	mock_request 1 | jq -e '.json | has("tools") | not'
}

@test "ollama: tool calls are asked for without streaming; text alone still streams" {
	export OLLAMA_HOST="$MOCK_URL"
	run --separate-stderr ask --provider ollama --tools "$T/tools.json" "weather?"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.json.stream == false'
	run --separate-stderr ask --provider ollama "hi"
	mock_request 2 | jq -e '.json.stream == true'
}

@test "groq: a whole call in one chunk and the usage in x_groq are read" {
	export GROQ_API_KEY=gsk-0123456789abcdef GROQ_BASE_URL="$MOCK_URL/openai/v1"
	mock_script "$(printf 'data: %s\n\n' \
		'{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}' \
		'{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_g1","type":"function","function":{"name":"getWeather","arguments":"{\"location\":\"Oslo\"}"},"index":0}]},"finish_reason":null}]}' \
		'{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"llama-3.3-70b-versatile","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"x_groq":{"id":"req_1","usage":{"queue_time":0.01,"prompt_tokens":200,"prompt_time":0.01,"completion_tokens":20,"completion_time":0.02,"total_tokens":220,"total_time":0.03}}}' \
		'[DONE]' | jq -Rsc '{routes: {"POST /openai/v1/chat/completions": [{body: ., content_type: "text/event-stream"}]}}')"
	run --separate-stderr ask --provider groq --json --stream --tools "$T/tools.json" "weather?"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"tool_call","id":"call_g1","name":"getWeather","arguments":{"location":"Oslo"}}' ]
	jq -e '.input_tokens == 200 and .output_tokens == 20 and (has("estimated") | not)' <<<"${lines[1]}"
}

# ---- reasoning ----

@test "anthropic: thinking is a reasoning record with its signature, never text; it goes back to Anthropic" {
	export ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=sk-ant-0123456789abcdef
	mock_script '{"routes":{"POST /v1/messages":[{"file":"anthropic/messages_stream_thinking.sse"}]}}'
	run --separate-stderr ask --provider anthropic "two names for a pelican"
	[ "$status" -eq 0 ]
	[[ "$output" != *"The user wants"* ]]
	mock_script '{"routes":{"POST /v1/messages":[{"file":"anthropic/messages_stream_thinking.sse"}]}}'
	run --separate-stderr ask --provider anthropic --json --stream "two names for a pelican"
	[ "$status" -eq 0 ]
	r=$(grep '"type":"reasoning"' <<<"$output")
	jq -e '.provider == "anthropic" and (.text | startswith("The user wants two names")) and
		(.signature | startswith("EuYDCmMIDBgCKkC05Zda"))' <<<"$r"
	! grep '"type":"delta"' <<<"$output" | grep -q 'The user wants'
	mock_reset
	{ echo '{"type":"message","role":"user","content":"q"}'; echo "$r"
	  echo '{"type":"tool_call","id":"toolu_1","name":"getWeather","arguments":{"location":"Oslo"}}'
	  echo '{"type":"tool_result","id":"toolu_1","ok":true,"t":3}'; } |
		ai-ask --provider anthropic --tools "$T/tools.json" >/dev/null
	mock_request 1 | jq -e --argjson r "$r" '.json.messages[1] == {"role":"assistant","content":[
		{"type":"thinking","thinking":$r.text,"signature":$r.signature},
		{"type":"tool_use","id":"toolu_1","name":"getWeather","input":{"location":"Oslo"}}]}'
	# another provider gets no reasoning at all
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef
	{ echo '{"type":"message","role":"user","content":"q"}'; echo "$r"
	  echo '{"type":"message","role":"assistant","content":"a"}'; } | ai-ask --provider openai "more" >/dev/null
	mock_request 2 | jq -e '[.json.input[].role] == ["user","assistant","user"]'
}

@test "openai: reasoning summaries are reasoning records; ollama's thinking too" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef OLLAMA_HOST="$MOCK_URL"
	mock_script '{"routes":{"POST /v1/responses":[{"json":{"id":"r","status":"completed","model":"o4-mini","output":[
		{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Checked both."}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Yes."}]}],
		"usage":{"input_tokens":5,"output_tokens":9}}}]}}'
	run --separate-stderr ask -m o4-mini --json "q"
	[ "${lines[0]}" = '{"type":"reasoning","provider":"openai","text":"Checked both."}' ]
	[ "${lines[1]}" = '{"type":"message","role":"assistant","content":"Yes."}' ]
	mock_script '{"routes":{"POST /api/chat":[{"json":{"model":"qwen3","message":{"role":"assistant","content":"Hi.","thinking":"Greet back."},"done":true,"done_reason":"stop"}}]}}'
	run --separate-stderr ask --provider ollama --json "hello"
	[ "${lines[0]}" = '{"type":"reasoning","provider":"ollama","text":"Greet back."}' ]
}

# ---- --models, aliases ----

@test "--models: each provider's listing as model records, every page of it" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef
	export ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=sk-ant-0123456789abcdef OLLAMA_HOST="$MOCK_URL"
	mock_script '{"routes":{
		"GET /v1/models":[{"json":{"object":"list","data":[{"id":"gpt-4.1-mini","object":"model","created":1744316542,"owned_by":"system"},{"id":"o4-mini","object":"model","created":1744225351,"owned_by":"system"}]}},
			{"json":{"data":[{"type":"model","id":"claude-haiku-4-5-20251001","display_name":"Claude Haiku 4.5","created_at":"2025-10-15T00:00:00Z"}],"has_more":true,"first_id":"claude-haiku-4-5-20251001","last_id":"claude-haiku-4-5-20251001"}},
			{"json":{"data":[{"type":"model","id":"claude-sonnet-4-5-20250929","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-5-20250929","last_id":"claude-sonnet-4-5-20250929"}}],
		"GET /v1beta/models":[{"json":{"models":[{"name":"models/gemini-2.5-flash","displayName":"Gemini 2.5 Flash","inputTokenLimit":1048576}],"nextPageToken":"Ch8/next"}},
			{"json":{"models":[{"name":"models/gemini-2.5-pro","displayName":"Gemini 2.5 Pro"}]}}],
		"GET /api/tags":[{"json":{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest","size":2019393189}]}}]}}'
	run --separate-stderr ai-ask --models </dev/null
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"model","id":"gpt-4.1-mini","provider":"openai","owned_by":"system"}' ]
	[ "${#lines[@]}" -eq 2 ]
	mock_request 1 | jq -e '.method == "GET" and .headers.authorization == "Bearer sk-0123456789abcdef"'
	run --separate-stderr ai-ask --models --provider anthropic </dev/null
	[ "$(jq -r .id <<<"$output" | tr '\n' ' ')" = "claude-haiku-4-5-20251001 claude-sonnet-4-5-20250929 " ]
	mock_request 3 | jq -e '.query == {"limit":["1000"],"after_id":["claude-haiku-4-5-20251001"]} and .headers["x-api-key"] == "sk-ant-0123456789abcdef"'
	run --separate-stderr ai-ask --models --provider gemini </dev/null
	[ "$(jq -r .id <<<"$output" | tr '\n' ' ')" = "gemini-2.5-flash gemini-2.5-pro " ]
	mock_request 5 | jq -e '.query.pageToken == ["Ch8/next"] and .headers["x-goog-api-key"] == "gm-test-key-0123456789abcdef"'
	run --separate-stderr ai-ask --models --provider ollama </dev/null
	[ "$output" = '{"type":"model","id":"llama3.2:latest","provider":"ollama"}' ]
}

@test "--models: one name per line on a terminal; a refused key is 78; it takes no prompt" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef
	mock_script '{"routes":{"GET /v1/models":[{"json":{"data":[{"id":"gpt-4.1-mini"},{"id":"o3"}]}},{"status":401,"file":"openai/responses_error_401_invalid_api_key.json"}]}}'
	run python3 "$BATS_TEST_DIRNAME/helpers/on-tty.py" -- ai-ask --models
	[[ "$output" == *"gpt-4.1-mini"*"o3"* ]]
	[[ "$output" != *'"type"'* ]]
	run --separate-stderr ai-ask --models </dev/null
	[ "$status" -eq 78 ]
	run --separate-stderr ai-ask --models "a prompt" </dev/null
	[ "$status" -eq 64 ]
}

@test "aliases work wherever -m does: the flag, AICLI_MODEL, and an alias may name its provider" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef
	printf '{"aliases": {"fast": "gpt-5-mini", "gem": {"provider": "gemini", "model": "gemini-2.5-pro"}, "bad": 3}}\n' > "$AICLI_CONFIG"
	run --separate-stderr ask -m fast "hi"
	mock_request 1 | jq -e '.path == "/v1/responses" and .json.model == "gpt-5-mini"'
	AICLI_MODEL=gem AICLI_PROVIDER=openai run --separate-stderr ask "hi"
	[ "$status" -eq 0 ]
	mock_request 2 | jq -e '.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent"'
	run --separate-stderr ask -m bad "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"aliases: 'bad' must be a model name"* ]]
}

# ---- attachments ----

@test "attachments: each provider's own shape, the type from the first bytes" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef
	export ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=sk-ant-0123456789abcdef OLLAMA_HOST="$MOCK_URL"
	cp "$T/a.png" "$T/photo.pdf"   # the name lies: the bytes say PNG
	png=$(base64 -w0 "$T/a.png"); pdf=$(base64 -w0 "$T/a.pdf")
	run --separate-stderr ask -a "$T/photo.pdf" -a "$T/a.pdf" "what is this?"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e --arg png "$png" --arg pdf "$pdf" '.json.input == [{"role":"user","content":[
		{"type":"input_text","text":"what is this?"},
		{"type":"input_image","image_url":("data:image/png;base64," + $png)},
		{"type":"input_file","filename":"a.pdf","file_data":("data:application/pdf;base64," + $pdf)}]}]'
	run --separate-stderr ask --provider anthropic -a "$T/a.pdf" "summarize"
	mock_request 2 | jq -e --arg pdf "$pdf" '.json.messages[0].content == [
		{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":$pdf}},
		{"type":"text","text":"summarize"}]'
	run --separate-stderr ask --provider gemini -a "$T/a.png" "describe"
	mock_request 3 | jq -e --arg png "$png" '.json.contents[0].parts == [{"text":"describe"},{"inlineData":{"mimeType":"image/png","data":$png}}]'
	run --separate-stderr ask --provider openai-chat -a "$T/a.png" "describe"
	mock_request 4 | jq -e --arg png "$png" '.json.messages[0].content[1] == {"type":"image_url","image_url":{"url":("data:image/png;base64," + $png)}}'
	run --separate-stderr ask --provider ollama -a "$T/a.png" "describe"
	mock_request 5 | jq -e --arg png "$png" '.json.messages[0].images == [$png] and .json.messages[0].content == "describe"'
}

@test "attachments: a type or provider that cannot take it, a file too large or missing: refused before any request" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef DEEPSEEK_API_KEY=sk-ds-0123456789 OLLAMA_HOST="$MOCK_URL"
	run --separate-stderr ask -a "$T/a.txt" "x"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: attachment '$T/a.txt' is not a PNG, JPEG, GIF or WebP image nor a PDF document (by its first bytes)" ]
	run --separate-stderr ask --provider openai-chat -a "$T/a.pdf" "x"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: attachment '$T/a.pdf': openai-chat cannot take PDF documents" ]
	run --separate-stderr ask --provider ollama -a "$T/a.pdf" "x"
	[ "$status" -eq 65 ]
	run --separate-stderr ask --provider deepseek -a "$T/a.png" "x"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: attachment '$T/a.png': deepseek cannot take images" ]
	run --separate-stderr ask --max-attach 10 -a "$T/a.png" "x"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: attachment '$T/a.png' is larger than 10 bytes (--max-attach)" ]
	run --separate-stderr ask --max-attach 2G -a "$T/a.png" "x"
	[ "$status" -eq 64 ]
	run --separate-stderr ask -a "$T/none.png" "x"
	[ "$status" -eq 66 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "ai-loop -a: the files go with the task at every step; reasoning records stay in its transcript" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef
	mock_script '{"routes":{"POST /v1/responses":[{"json":{"id":"r","status":"completed","model":"o4-mini","output":[
		{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Looked at it."}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A tiny PNG."}]}],
		"usage":{"input_tokens":5,"output_tokens":9}}}]}}'
	run --separate-stderr ai-loop -n -a "$T/a.png" --transcript "$T/chat.ndjson" "what is this?"
	[ "$status" -eq 0 ]
	[ "$output" = "A tiny PNG." ]
	mock_request 1 | jq -e '.json.input[0].content[1].type == "input_image"'
	grep -q '"type":"reasoning","provider":"openai","text":"Looked at it."' "$T/chat.ndjson"
}

@test "attachments go with the last user message of records when no PROMPT adds one; with none, 64" {
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY=sk-0123456789abcdef
	printf '%s\n' '{"type":"message","role":"user","content":"first"}' '{"type":"message","role":"assistant","content":"ok"}' \
		'{"type":"message","role":"user","content":"look at this"}' \
		'{"type":"search_result","query":"q","rank":1,"title":"t","url":"https://example.org/","snippet":"s"}' > "$T/conv.ndjson"
	run --separate-stderr ai-ask -a "$T/a.png" < "$T/conv.ndjson"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '(.json.input[0].content | type) == "string" and
		.json.input[2].content[0] == {"type":"input_text","text":"look at this"} and
		.json.input[2].content[1].type == "input_image" and (.json.input[3].content | type) == "string"'
	printf '%s\n' '{"type":"message","role":"assistant","content":"ok"}' \
		'{"type":"tool_call","id":"c1","name":"f","arguments":{}}' '{"type":"tool_result","id":"c1","ok":true}' > "$T/noq.ndjson"
	run --separate-stderr ai-ask -a "$T/a.png" < "$T/noq.ndjson"
	[ "$status" -eq 64 ]
	[ "$stderr" = "ai-ask: nothing to attach the files to: give a PROMPT, or a user message
ai-ask: try 'ai-ask --help' for more information" ]
	[ "$(mock_count)" -eq 1 ]
}

@test "profiles of the configuration's own: an Ollama server needs no key, nor an OpenAI-compatible one on loopback" {
	printf '{"providers": {"lab": {"adapter": "ollama", "base_url": "%s"}, "local": {"adapter": "openai-chat", "base_url": "%s/v1", "model": "qwen2.5"}}}\n' \
		"$MOCK_URL" "$MOCK_URL" > "$AICLI_CONFIG"
	OPENAI_API_KEY=sk-must-not-go run --separate-stderr ask --provider lab -m llama3.2 "hi"
	[ "$status" -eq 0 ]
	OPENAI_API_KEY=sk-must-not-go run --separate-stderr ask --provider local "hi"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.path == "/api/chat" and (.headers | has("authorization") | not)'
	mock_request 2 | jq -e '.path == "/v1/chat/completions" and (.headers | has("authorization") | not) and .json.model == "qwen2.5"'
}

@test "a profile's refused key is named by its own variable; a 429 with Retry-After is retried" {
	export DEEPSEEK_API_KEY=sk-ds-0123456789abcdef DEEPSEEK_BASE_URL="$MOCK_URL"
	mock_script '{"routes":{"POST /chat/completions":[{"status":401,"json":{"error":{"message":"Authentication Fails, Your api key: ****cdef is invalid","type":"authentication_error","param":null,"code":"invalid_request_error"}}}]}}'
	run --separate-stderr ask --provider deepseek "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"(the key from \$DEEPSEEK_API_KEY)" ]]
	[[ "$stderr" != *"sk-ds-0123456789abcdef"* ]]
	mock_script '{"routes":{"POST /chat/completions":[{"status":429,"headers":{"Retry-After":"0"},"json":{"error":{"message":"Rate limit reached"}}},
		{"file":"deepseek/docs_example_chat_completion.json"}]}}'
	run --separate-stderr ask --provider deepseek "hi"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
}

@test "gemini thoughts and OpenRouter's reasoning are reasoning records; a redacted thinking block keeps its data" {
	mock_script '{"routes":{"POST /v1beta/models/gemini-2.5-flash:generateContent":[{"json":{"candidates":[{"content":{"role":"model","parts":[
		{"text":"Weighing both.","thought":true},{"text":"Rome."}]},"finishReason":"STOP"}],
		"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"thoughtsTokenCount":6}}}]}}'
	run --separate-stderr ask --provider gemini --json "capital of Italy?"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"reasoning","provider":"gemini","text":"Weighing both."}' ]
	[ "${lines[1]}" = '{"type":"message","role":"assistant","content":"Rome."}' ]
	jq -e '.output_tokens == 8' <<<"${lines[2]}"
	export OPENROUTER_API_KEY=sk-or-0123456789abcdef OPENROUTER_BASE_URL="$MOCK_URL/api/v1"
	mock_script '{"routes":{"POST /api/v1/chat/completions":[{"json":{"id":"gen-1","model":"deepseek/deepseek-r1","choices":[{"index":0,
		"message":{"role":"assistant","content":"42","reasoning":"Six times seven."},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":3,"completion_tokens":9}}}]}}'
	run --separate-stderr ask --provider openrouter -m deepseek/deepseek-r1 --json "6*7?"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"reasoning","provider":"openai-chat","text":"Six times seven."}' ]
	[ "${lines[1]}" = '{"type":"message","role":"assistant","content":"42"}' ]
	export ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=sk-ant-0123456789abcdef
	mock_script '{"routes":{"POST /v1/messages":[{"json":{"type":"message","model":"claude-sonnet-4-5","content":[
		{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"},{"type":"text","text":"Done."}],
		"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":7}}}]}}'
	run --separate-stderr ask --provider anthropic --json "x"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"reasoning","provider":"anthropic","text":"","data":"EmwKAhgBEgy3va3pzix"}' ]
	mock_reset
	{ echo '{"type":"message","role":"user","content":"x"}'; echo "${lines[0]}"; echo "${lines[1]}"; } |
		ai-ask --provider anthropic "and?" >/dev/null
	mock_request 1 | jq -e '.json.messages[1].content[0] == {"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"}'
}

@test "a profile whose headers carry its credential needs no key; with a key it may not set the key's header" {
	printf '{"providers": {"azure": {"adapter": "openai-chat", "base_url": "%s/openai/deployments/d1", "headers": {"api-key": "az-0123456789abcdef"}}}}\n' \
		"$MOCK_URL" > "$AICLI_CONFIG"
	run --separate-stderr ask --provider azure "hi"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-ask: no model for azure: give -m MODEL, set AICLI_MODEL, or \"model\" in the config file's providers.azure" ]
	OPENAI_API_KEY=sk-must-not-go run --separate-stderr ask -v --provider azure -m gpt-4o "hi"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"az-0123456789abcdef"* ]]
	mock_request 1 | jq -e '.path == "/openai/deployments/d1/chat/completions" and .headers["api-key"] == "az-0123456789abcdef"
		and (.headers | has("authorization") | not)'
	printf '{"providers": {"gw": {"adapter": "openai-chat", "base_url": "https://gw.example/v1", "key_env": "GW_KEY", "headers": {"Authorization": "Bearer other"}}}}\n' > "$AICLI_CONFIG"
	GW_KEY=gw-0123456789 run --separate-stderr ask --provider gw "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"providers: 'gw': \"headers\" may not set the header of the key"* ]]
	[ "$(mock_count)" -eq 1 ]
}

#!/usr/bin/env bats
# ai-ask against the mock server: every provider's wire format (asserted on
# the recorded requests), the real captured answers, tool calls and their
# follow-up turns, structured answers, input handling, every failure path,
# flushing, configuration, transcripts.

bats_require_minimum_version 1.5.0
load helpers/mock

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
	unset AICLI_MODEL AICLI_PROVIDER AICLI_TIMEOUT AICLI_RETRIES AICLI_OPENAI_API_KEY
	unset XDG_CONFIG_HOME NO_COLOR
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$HOME"
	export AICLI_CONFIG="$BATS_TEST_TMPDIR/none.json"
	echo '{}' > "$AICLI_CONFIG"
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY="sk-test-key-0123456789abcdef"
	export ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY="sk-ant-test-0123456789abcdef"
	export OLLAMA_HOST="$MOCK_URL"
	T="$BATS_TEST_TMPDIR"
	cat > "$T/tools.json" <<'JSON'
[{"name": "multiply", "description": "Multiply two numbers.",
  "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                 "required": ["a", "b"]}},
 {"name": "no_params"}]
JSON
	cat > "$T/schema.json" <<'JSON'
{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
 "required": ["name"]}
JSON
}

# ai-ask without standard input (bats may leave a pipe on it).
ask() { ai-ask "$@" </dev/null; }

# seconds since the epoch, with nanoseconds; elapsed milliseconds
now() { date +%s.%N; }
elapsed_ms() { echo "$1 $2" | awk '{ printf "%d", ($2 - $1) * 1000 }'; }

# the JSON body of the Nth request
body() { mock_request "$1" | jq -c .json; }

# script ROUTE RESP...: one route's responses
script() {
	local route=$1 list
	shift
	list=$(printf '%s,' "$@")
	mock_script "{\"routes\":{\"$route\":[${list%,}]}}"
}

# ---- plain answers, every provider, request fields ----

@test "openai: a streamed answer, and the request field by field" {
	run --separate-stderr ask -s "be brief" --temperature 0.2 --max-tokens 50 "Reply with exactly: pong"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	[ -z "$stderr" ]
	[ "$(mock_count)" -eq 1 ]
	r=$(mock_request 1)
	jq -e '.method == "POST" and .path == "/v1/responses"' <<<"$r"
	jq -e '.headers.authorization == "Bearer sk-test-key-0123456789abcdef"' <<<"$r"
	jq -e '.headers["content-type"] == "application/json"' <<<"$r"
	jq -e '.json == {"model":"gpt-4.1-mini","instructions":"be brief",
		"input":[{"role":"user","content":"Reply with exactly: pong"}],
		"temperature":0.2,"max_output_tokens":50,"store":false,"stream":true}' <<<"$r"
}

@test "openai: --json without --stream asks for one whole answer and writes message and usage" {
	run --separate-stderr ask --json "hi"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = '{"type":"message","role":"assistant","content":"pong"}' ]
	jq -e '. == {"type":"usage","model":"gpt-4.1-mini","input_tokens":11,"cached_tokens":0,
		"output_tokens":5,"calls":1,"weighted_tokens":31,"cost_usd":0.0000124}' <<<"${lines[1]}"
	body 1 | jq -e '.stream == false'
}

@test "openai: --json --stream writes delta records, then the message and usage" {
	run --separate-stderr ask --json --stream "hi"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"delta","text":"pong"}' ]
	[ "${lines[1]}" = '{"type":"message","role":"assistant","content":"pong"}' ]
	[[ "${lines[2]}" == '{"type":"usage",'* ]]
	[ "${#lines[@]}" -eq 3 ]
	body 1 | jq -e '.stream == true'
}

@test "openai: the multi-delta answer after a tool result arrives whole, non-ASCII intact" {
	script "POST /v1/responses" '{"file":"openai/responses_stream_text_after_function_call_output.sse"}'
	run --separate-stderr ask "x"
	[ "$status" -eq 0 ]
	want=$(grep '"type":"response.output_text.done"' \
		"$MOCK_FIXTURES/openai/responses_stream_text_after_function_call_output.sse" | sed 's/^data: //' | jq -r .text)
	[ "$output" = "$want" ]
}

@test "openai-chat: a streamed answer with include_usage, and the request" {
	run --separate-stderr ask --provider openai-chat --usage -s "sys" "Hey, what is up?"
	[ "$status" -eq 0 ]
	[ "$output" = "Not much, just here to chat and assist you with anything you need. How are you?" ]
	[[ "$stderr" == "ai-ask: usage: 13 input tokens (0 cached), 20 output tokens, 93 weighted, \$0.000037 (gpt-4.1-mini)" ]]
	r=$(mock_request 1)
	jq -e '.path == "/v1/chat/completions" and .headers.authorization == "Bearer sk-test-key-0123456789abcdef"' <<<"$r"
	jq -e '.json == {"model":"gpt-4.1-mini","messages":[{"role":"system","content":"sys"},
		{"role":"user","content":"Hey, what is up?"}],"stream":true,"stream_options":{"include_usage":true}}' <<<"$r"
}

@test "openai-chat: a whole answer in JSON mode" {
	run --separate-stderr ask --provider openai-chat --json --max-tokens 7 "q"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"message","role":"assistant","content":"YES"}' ]
	jq -e '.input_tokens == 146 and .output_tokens == 3 and .cached_tokens == 0' <<<"${lines[1]}"
	body 1 | jq -e '.stream == false and .max_tokens == 7 and (has("stream_options") | not)'
}

@test "openai-chat: no key is needed for a server on a loopback address" {
	unset OPENAI_API_KEY
	run --separate-stderr ask --provider openai-chat "hi"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.headers | has("authorization") | not'
}

@test "anthropic: a streamed answer, the headers, system and max_tokens" {
	run --separate-stderr ask --provider anthropic -s "be nice" "Say just hello"
	[ "$status" -eq 0 ]
	[ "$output" = "Hello" ]
	r=$(mock_request 1)
	jq -e '.path == "/v1/messages"' <<<"$r"
	jq -e '.headers["x-api-key"] == "sk-ant-test-0123456789abcdef"' <<<"$r"
	jq -e '.headers["anthropic-version"] == "2023-06-01" and (.headers | has("authorization") | not)' <<<"$r"
	jq -e '.json == {"model":"claude-haiku-4-5","max_tokens":4096,"system":"be nice",
		"messages":[{"role":"user","content":[{"type":"text","text":"Say just hello"}]}],"stream":true}' <<<"$r"
}

@test "anthropic: a model named claude-* picks the provider when none is set" {
	run --separate-stderr ask -m claude-3-5-haiku-latest "hi"
	[ "$status" -eq 0 ]
	[ "$output" = "Hello" ]
	mock_request 1 | jq -e '.path == "/v1/messages" and .json.model == "claude-3-5-haiku-latest"'
}

@test "anthropic: thinking blocks are left out of the answer" {
	script "POST /v1/messages" '{"file":"anthropic/messages_stream_thinking.sse"}'
	run --separate-stderr ask --provider anthropic "Two names for a pet pelican"
	[ "$status" -eq 0 ]
	[[ "$output" == "1. **Pouch** - references their iconic bill pouch"* ]]
	[[ "$output" != *"The user wants"* ]]
	[[ "$output" == *'ful take on "pelican"' ]]
}

@test "anthropic: an answer cut at max_tokens is written, marked, and ends with the limit status" {
	run --separate-stderr ask --provider anthropic --json "What does Nietzsche mean?"
	[ "$status" -eq 3 ]
	jq -e '.type == "message" and .truncated == true and
		.content == "When Nietzsche famously declared \"God is dead\" in his"' <<<"${lines[0]}"
	jq -e '.type == "usage" and .input_tokens == 22 and .output_tokens == 15' <<<"${lines[1]}"
	jq -e '.type == "error" and .code == "limit" and .exit == 3' <<<"${lines[2]}"
	[[ "$stderr" == *"the answer is incomplete: it reached the maximum length ('127.0.0.1:$MOCK_PORT' said 'max_tokens')"* ]]
}

@test "ollama: a streamed NDJSON answer and the native request" {
	run --separate-stderr ask --provider ollama --temperature 0 --max-tokens 500 "why is the sky blue?"
	[ "$status" -eq 0 ]
	[[ "$output" == "The sky appears blue because of a phenomenon called Rayleigh scattering"* ]]
	[ "$(printf '%s' "$output" | tail -c 1)" = "!" ]
	jq -e '.json == {"model":"llama3.2","messages":[{"role":"user","content":"why is the sky blue?"}],
		"options":{"temperature":0,"num_predict":500},"stream":true}' <<<"$(mock_request 1)"
	mock_request 1 | jq -e '.path == "/api/chat" and (.headers | has("authorization") | not)'
}

@test "ollama: OLLAMA_HOST as host:port, the way Ollama reads it" {
	OLLAMA_HOST="127.0.0.1:$MOCK_PORT" run --separate-stderr ask --provider ollama --json --usage "hi"
	[ "$status" -eq 0 ]
	jq -e '.type == "usage" and .input_tokens == 172 and .output_tokens == 26 and (has("cost_usd") | not)' <<<"${lines[1]}"
}

# ---- tool calls ----

@test "openai: a streamed call whose arguments arrive in pieces becomes one tool_call record" {
	script "POST /v1/responses" '{"file":"openai/responses_stream_function_call.sse"}'
	run --separate-stderr ask --json --stream --tools "$T/tools.json" "What is 1231 * 2331?"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = '{"type":"tool_call","id":"call_sVidsfFJ6zlzRpelrPkTPlpd","name":"multiply","arguments":{"a":1231,"b":2331}}' ]
	jq -e '.type == "usage" and .input_tokens == 58 and .output_tokens == 23' <<<"${lines[1]}"
	body 1 | jq -e '.tools == [{"type":"function","name":"multiply","description":"Multiply two numbers.",
		"parameters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},
		"strict":false},
		{"type":"function","name":"no_params","parameters":{"type":"object","properties":{}},"strict":false}]'
}

@test "openai: a whole answer with a call, and text mode shows the call as one line" {
	script "POST /v1/responses" '{"file":"openai/responses_nonstream_function_call.json"}' \
		'{"file":"openai/responses_nonstream_function_call.json"}'
	run --separate-stderr ask --json --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"tool_call","id":"call_nJmCK7SJe3ajdYYplIbH0KgL","name":"multiply","arguments":{"a":1231,"b":2331}}' ]
	run --separate-stderr ask --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	[ "$output" = 'multiply({"a":1231,"b":2331})' ]
}

@test "openai-chat: split arguments, and the tools declared in the nested shape" {
	script "POST /v1/chat/completions" '{"file":"openai/chat_completions_stream_tool_call_split_args.sse"}'
	run --separate-stderr ask --provider openai-chat --json --stream --tools "$T/tools.json" "What is 1231 * 2331?"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"tool_call","id":"call_1EYWDzueHEp8OsB8jJSEp7WB","name":"multiply","arguments":{"a":1231,"b":2331}}' ]
	body 1 | jq -e '.tools[0] == {"type":"function","function":{"name":"multiply","description":"Multiply two numbers.",
		"parameters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}}'
}

@test "openai-chat: two parallel calls, told apart by index, in order" {
	script "POST /v1/chat/completions" '{"file":"openai/chat_completions_stream_parallel_tool_calls.sse"}'
	run --separate-stderr ask --provider openai-chat --json --stream --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"tool_call","id":"call_JMW1whyEaYG438VE1OIflxA2","name":"GetWeatherArgs","arguments":{"city":"Edinburgh","country":"GB","units":"c"}}' ]
	[ "${lines[1]}" = '{"type":"tool_call","id":"call_DNYTawLBoN8fj3KN6qU9N1Ou","name":"get_stock_price","arguments":{"ticker":"AAPL","exchange":"NASDAQ"}}' ]
	jq -e '.type == "usage" and .input_tokens == 149 and .output_tokens == 60' <<<"${lines[2]}"
	[ "${#lines[@]}" -eq 3 ]
}

@test "openai-chat: only the first choice counts when a server sends several" {
	script "POST /v1/chat/completions" '{"file":"openai/chat_completions_stream_n2_choices_tool_calls.sse"}'
	run --separate-stderr ask --provider openai-chat --json --stream --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	[ "$(grep -c '"type":"tool_call"' <<<"$output")" -eq 1 ]
	jq -se 'map(select(.type == "tool_call"))[0] | .name == "get_current_weather" and
		.arguments == {"location":"San Francisco, CA"}' <<<"$output"
}

@test "anthropic: text, then a call whose input arrives as input_json_delta pieces" {
	script "POST /v1/messages" '{"file":"anthropic/messages_stream_text_then_tool_use_input_json_delta.sse"}'
	run --separate-stderr ask --provider anthropic --json --stream --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	msg=$(grep '"type":"message"' <<<"$output")
	jq -e '.content | startswith("<thinking>\nThe get_weather tool")' <<<"$msg"
	[ "$(grep '"type":"tool_call"' <<<"$output")" = '{"type":"tool_call","id":"toolu_01DYJo37oETVsCdLTTcCWcdq","name":"get_weather","arguments":{"location":"San Francisco, CA"}}' ]
	jq -e 'select(.type == "usage") | .input_tokens == 599 and .output_tokens == 135' <<<"$output"
	body 1 | jq -e '.tools == [{"name":"multiply","description":"Multiply two numbers.",
		"input_schema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}},
		{"name":"no_params","input_schema":{"type":"object","properties":{}}}]'
}

@test "anthropic: two tool_use blocks with empty input give two calls with {} arguments" {
	script "POST /v1/messages" '{"file":"anthropic/messages_stream_text_then_two_tool_use_blocks.sse"}'
	run --separate-stderr ask --provider anthropic --json --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = '{"type":"tool_call","id":"toolu_011ouQLPrqhKSuFJtuJrpaUX","name":"pelican_name_generator","arguments":{}}' ]
	[ "${lines[2]}" = '{"type":"tool_call","id":"toolu_01NtJRxGhJcEQ4axN1FzHayX","name":"pelican_name_generator","arguments":{}}' ]
}

@test "anthropic: a whole answer with a tool_use block" {
	script "POST /v1/messages" '{"file":"anthropic/messages_nonstream_tool_use.json"}'
	run --separate-stderr ask --provider anthropic --json --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = '{"type":"tool_call","id":"toolu_01DYJo37oETVsCdLTTcCWcdq","name":"get_weather","arguments":{"location":"San Francisco, CA"}}' ]
	jq -e '.input_tokens == 599 and .output_tokens == 152' <<<"${lines[2]}"
}

@test "ollama: a whole answer with a call gets an id made up for it" {
	run --separate-stderr ask --provider ollama --json --tools "$T/tools.json" "weather?"
	[ "$status" -eq 0 ]
	jq -e '.type == "tool_call" and (.id | test("^call_[0-9a-f]{8}_0$")) and .name == "get_current_weather" and
		.arguments == {"location":"San Francisco","unit":"fahrenheit"}' <<<"${lines[0]}"
	body 1 | jq -e '.stream == false and .tools[1] == {"type":"function","function":{"name":"no_params",
		"parameters":{"type":"object","properties":{}}}}'
}

# The follow-up turn: the records ai-ask wrote plus tool_result records are read
# back, and the request pairs each call with its result in the provider's format.
roundtrip() {
	local provider=$1 route=$2 first=$3 then=$4
	script "$route" "{\"file\":\"$first\"}" "{\"file\":\"$then\"}"
	ask --provider "$provider" --json --tools "$T/tools.json" "What is 1231 * 2331?" > "$T/step1"
	{
		echo '{"type":"message","role":"user","content":"What is 1231 * 2331?"}'
		cat "$T/step1"
		jq -c 'select(.type == "tool_call") | {type: "tool_result", id, name, ok: true, stdout_text: "2869461"}' "$T/step1"
	} > "$T/conv"
	run --separate-stderr ai-ask --provider "$provider" --json --tools "$T/tools.json" < "$T/conv"
}

@test "round trip, openai: function_call and function_call_output paired by call_id" {
	roundtrip openai "POST /v1/responses" openai/responses_nonstream_function_call.json \
		openai/responses_stream_text_after_function_call_output.sse
	[ "$status" -eq 0 ]
	jq -e '.type == "message" and (.content | length) > 0' <<<"${lines[0]}"
	body 2 | jq -e '.input == [{"role":"user","content":"What is 1231 * 2331?"},
		{"type":"function_call","call_id":"call_nJmCK7SJe3ajdYYplIbH0KgL","name":"multiply","arguments":"{\"a\":1231,\"b\":2331}"},
		{"type":"function_call_output","call_id":"call_nJmCK7SJe3ajdYYplIbH0KgL","output":"{\"ok\":true,\"stdout_text\":\"2869461\"}"}]'
}

@test "round trip, openai-chat: one assistant message with both calls, then a tool message each" {
	roundtrip openai-chat "POST /v1/chat/completions" openai/chat_completions_stream_parallel_tool_calls.sse \
		openai/chat_completions_stream_text_after_tool_result.sse
	[ "$status" -eq 0 ]
	jq -e '.type == "message" and (.content | startswith("The result of \\( 1231 \\times 2331 \\)"))' <<<"${lines[0]}"
	body 2 | jq -e '.messages == [{"role":"user","content":"What is 1231 * 2331?"},
		{"role":"assistant","content":null,"tool_calls":[
			{"id":"call_JMW1whyEaYG438VE1OIflxA2","type":"function","function":{"name":"GetWeatherArgs","arguments":"{\"city\":\"Edinburgh\",\"country\":\"GB\",\"units\":\"c\"}"}},
			{"id":"call_DNYTawLBoN8fj3KN6qU9N1Ou","type":"function","function":{"name":"get_stock_price","arguments":"{\"ticker\":\"AAPL\",\"exchange\":\"NASDAQ\"}"}}]},
		{"role":"tool","tool_call_id":"call_JMW1whyEaYG438VE1OIflxA2","content":"{\"ok\":true,\"stdout_text\":\"2869461\"}"},
		{"role":"tool","tool_call_id":"call_DNYTawLBoN8fj3KN6qU9N1Ou","content":"{\"ok\":true,\"stdout_text\":\"2869461\"}"}]'
}

@test "round trip, anthropic: text and tool_use in one assistant message, tool_result blocks after" {
	roundtrip anthropic "POST /v1/messages" anthropic/messages_stream_text_then_two_tool_use_blocks.sse \
		anthropic/messages_stream_text.sse
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"message","role":"assistant","content":"Hello"}' ]
	body 2 | jq -e '.messages == [{"role":"user","content":[{"type":"text","text":"What is 1231 * 2331?"}]},
		{"role":"assistant","content":[
			{"type":"text","text":"I'"'"'ll help you generate two potential names for a pet pelican by using the pelican name generator tool."},
			{"type":"tool_use","id":"toolu_011ouQLPrqhKSuFJtuJrpaUX","name":"pelican_name_generator","input":{}},
			{"type":"tool_use","id":"toolu_01NtJRxGhJcEQ4axN1FzHayX","name":"pelican_name_generator","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"toolu_011ouQLPrqhKSuFJtuJrpaUX","content":"{\"ok\":true,\"stdout_text\":\"2869461\"}"},
			{"type":"tool_result","tool_use_id":"toolu_01NtJRxGhJcEQ4axN1FzHayX","content":"{\"ok\":true,\"stdout_text\":\"2869461\"}"}]}]'
}

@test "round trip, ollama: the call with object arguments, then a tool message naming its tool" {
	roundtrip ollama "POST /api/chat" ollama/chat_nonstream_tool_calls.json ollama/chat_nonstream_tool_calls.json
	[ "$status" -eq 0 ]
	id=$(jq -r 'select(.type == "tool_call") | .id' "$T/step1")
	body 2 | jq -e '.messages == [{"role":"user","content":"What is 1231 * 2331?"},
		{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_current_weather",
			"arguments":{"location":"San Francisco","unit":"fahrenheit"}}}]},
		{"role":"tool","tool_name":"get_current_weather","content":"{\"ok\":true,\"stdout_text\":\"2869461\"}"}]'
	# the second answer's made-up id differs from the first one's
	[ "$(jq -r 'select(.type == "tool_call") | .id' <<<"$output")" != "$id" ] || [[ "$id" == call_*_0 ]]
}

@test "a failed result is marked is_error for Anthropic; a transcript moves between providers" {
	cat > "$T/conv" <<'EOF'
{"type":"message","role":"user","content":"list the files"}
{"type":"tool_call","id":"call:1/x","name":"execute","arguments":{"command":"ls"}}
{"type":"tool_result","id":"call:1/x","ok":false,"error":"not allowed","error_kind":"policy"}
EOF
	run --separate-stderr ai-ask --provider anthropic --json --stream < "$T/conv"
	[ "$status" -eq 0 ]
	body 1 | jq -e '.messages[1].content[0] == {"type":"tool_use","id":"call_1_x","name":"execute","input":{"command":"ls"}}'
	body 1 | jq -e '.messages[2].content[0] == {"type":"tool_result","tool_use_id":"call_1_x",
		"content":"{\"ok\":false,\"error\":\"not allowed\",\"error_kind\":\"policy\"}","is_error":true}'
}

@test "a prompt after tool results follows them in the same Anthropic user message" {
	cat > "$T/conv" <<'EOF'
{"type":"message","role":"user","content":"q"}
{"type":"message","role":"assistant","content":""}
{"type":"tool_call","id":"a","name":"t","arguments":{}}
{"type":"tool_result","id":"a","name":"t","ok":true}
EOF
	run --separate-stderr ai-ask --provider anthropic "now answer" < "$T/conv"
	[ "$status" -eq 0 ]
	body 1 | jq -e '.messages[1] == {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"t","input":{}}]}'
	body 1 | jq -e '.messages[2].content == [{"type":"tool_result","tool_use_id":"a","content":"{\"ok\":true}"},
		{"type":"text","text":"now answer"}]'
	[ "$(body 1 | jq '.messages | length')" -eq 3 ]
}

# ---- structured answers ----

@test "--schema, openai: text.format json_schema; a JSON answer is printed as given" {
	mock_script '{"routes":{"POST /v1/responses":[{"json":{"status":"completed","model":"gpt-4.1-mini",
		"output":[{"type":"message","content":[{"type":"output_text","text":" {\"name\": \"Ada\", \"age\": 36}\n"}]}],
		"usage":{"input_tokens":5,"output_tokens":9}}}]}}'
	run --separate-stderr ask --schema "$T/schema.json" "invent a person"
	[ "$status" -eq 0 ]
	[ "$output" = '{"name": "Ada", "age": 36}' ]
	body 1 | jq -e '.stream == false and .text.format == {"type":"json_schema","name":"answer",
		"schema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]},
		"strict":false}'
}

@test "--schema: an answer that is not JSON becomes seed 004's fallback object, exit 4" {
	run --separate-stderr ask --schema "$T/schema.json" "invent a person"
	[ "$status" -eq 4 ]
	[ "$output" = '{"result":"pong","_fallback":true,"_reason":"model_output_was_not_valid_json"}' ]
	[[ "$stderr" == "ai-ask: the answer is not a JSON object: wrote the fallback object"* ]]
	run --separate-stderr ask --json --schema "$T/schema.json" "invent a person"
	[ "$status" -eq 4 ]
	jq -e '.type == "message" and (.content | fromjson) == {"result":"pong","_fallback":true,
		"_reason":"model_output_was_not_valid_json"}' <<<"${lines[0]}"
	jq -e '.type == "usage"' <<<"${lines[1]}"
	jq -e '.type == "error" and .code == "format" and .exit == 4' <<<"${lines[2]}"
}

@test "--schema, anthropic: a forced tool whose streamed input is the answer" {
	script "POST /v1/messages" '{"file":"anthropic/messages_stream_tool_use_long_input_json_delta.sse"}'
	run --separate-stderr ask --provider anthropic --json --stream --schema "$T/schema.json" "Invent a good dog"
	[ "$status" -eq 0 ]
	msg=$(grep '"type":"message"' <<<"$output")
	jq -e '.content | fromjson | .name == "Buddy" and .age == 3' <<<"$msg"
	! grep -q '"type":"tool_call"' <<<"$output"
	grep -q '"type":"delta"' <<<"$output"
	body 1 | jq -e '.tool_choice == {"type":"tool","name":"answer"} and (.tools | length) == 1 and
		.tools[0].name == "answer" and .tools[0].input_schema.required == ["name"]'
}

@test "--schema, openai-chat and ollama: response_format and format" {
	script "POST /v1/chat/completions" '{"json":{"choices":[{"index":0,"message":{"role":"assistant","content":"{\"name\":\"Bo\"}"},"finish_reason":"stop"}]}}'
	run --separate-stderr ask --provider openai-chat --schema "$T/schema.json" "x"
	[ "$status" -eq 0 ]
	[ "$output" = '{"name":"Bo"}' ]
	body 1 | jq -e '.response_format.type == "json_schema" and .response_format.json_schema.name == "answer" and
		.response_format.json_schema.strict == false and .response_format.json_schema.schema.required == ["name"]'
	script "POST /api/chat" '{"json":{"model":"m","message":{"role":"assistant","content":"{\"name\":\"Al\"}"},"done":true,"done_reason":"stop"}}'
	run --separate-stderr ask --provider ollama --schema "$T/schema.json" "x"
	[ "$status" -eq 0 ]
	[ "$output" = '{"name":"Al"}' ]
	body 1 | jq -e '.format.required == ["name"] and .stream == false'
}

@test "--tools and --schema together, bad tools and schema files: refused before any request" {
	run --separate-stderr ask --tools "$T/tools.json" --schema "$T/schema.json" "x"
	[ "$status" -eq 64 ]
	[ "${stderr%%$'\n'*}" = "ai-ask: --tools and --schema cannot be used together" ]
	echo '{"name":"x"}' > "$T/bad.json"
	run --separate-stderr ask --tools "$T/bad.json" "x"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: tools file '$T/bad.json' must hold a non-empty JSON array of tools" ]
	echo '[{"name":"has space"}]' > "$T/bad.json"
	run --separate-stderr ask --tools "$T/bad.json" "x"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"tool 1 needs a \"name\" of 1 to 64 letters, digits, _ or -" ]]
	echo '[{"name":"a"},{"name":"a"}]' > "$T/bad.json"
	run --separate-stderr ask --tools "$T/bad.json" "x"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"tool 'a' is declared twice" ]]
	echo '[{"name":"a",}]' > "$T/bad.json"
	run --separate-stderr ask --tools "$T/bad.json" "x"
	[ "$status" -eq 65 ]
	[[ "$stderr" == "ai-ask: tools file '$T/bad.json': column "*": "* ]]
	run --separate-stderr ask --tools "$T/missing.json" "x"
	[ "$status" -eq 66 ]
	echo '{"type":"array"}' > "$T/bad.json"
	run --separate-stderr ask --schema "$T/bad.json" "x"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"must hold a JSON Schema for an object"* ]]
	[ "$(mock_count)" -eq 0 ]
}

# ---- input ----

@test "plain standard input is the material, PROMPT the instruction after it" {
	printf 'line one\nline two\n\n' > "$T/in.txt"
	run --separate-stderr ai-ask "why did this fail?" < "$T/in.txt"
	[ "$status" -eq 0 ]
	body 1 | jq -e '.input == [{"role":"user","content":"line one\nline two\n\nwhy did this fail?"}]'
	run --separate-stderr ai-ask < "$T/in.txt"
	[ "$status" -eq 0 ]
	body 2 | jq -e '.input == [{"role":"user","content":"line one\nline two"}]'
}

@test "-n leaves standard input unread; PROMPT words are joined" {
	printf 'material\n' > "$T/in.txt"
	run --separate-stderr ai-ask -n summarize this please < "$T/in.txt"
	[ "$status" -eq 0 ]
	body 1 | jq -e '.input == [{"role":"user","content":"summarize this please"}]'
}

@test "nothing to ask: usage status, no request" {
	run --separate-stderr ask
	[ "$status" -eq 64 ]
	[ "$stderr" = "ai-ask: nothing to ask: give a PROMPT, or input on standard input" ]
	printf '  \n\n' > "$T/in.txt"
	run --separate-stderr ai-ask < "$T/in.txt"
	[ "$status" -eq 64 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "bytes that are not UTF-8 in plain input are replaced, not sent raw" {
	printf 'caf\xe9\n' > "$T/in.txt"
	run --separate-stderr ai-ask < "$T/in.txt"
	[ "$status" -eq 0 ]
	body 1 | jq -e '.input[0].content == "caf\ufffd"'
}

@test "search_result records become numbered sources with title, URL, date and snippet" {
	cat > "$T/in.ndjson" <<'JSON'
{"type":"search_result","query":"openbsd pledge","rank":1,"title":"pledge(2)","url":"https://man.openbsd.org/pledge.2","snippet":"restrict system operations","provider":"brave"}
{"type":"search_result","query":"openbsd pledge","rank":2,"title":"Pledge paper","url":"https://www.openbsd.org/papers/x.pdf","snippet":"a talk","provider":"brave","date":"2016-03-01"}
JSON
	run --separate-stderr ai-ask "summarize, citing URLs" < "$T/in.ndjson"
	[ "$status" -eq 0 ]
	want='SEARCH_RESULTS (web search results; cite them by number and URL):

Query: openbsd pledge

[1] pledge(2)
URL: https://man.openbsd.org/pledge.2
restrict system operations

[2] Pledge paper
URL: https://www.openbsd.org/papers/x.pdf
Date: 2016-03-01
a talk'
	[ "$(body 1 | jq -r '.input[0].content')" = "$want" ]
	body 1 | jq -e '.input[1] == {"role":"user","content":"summarize, citing URLs"} and (.input | length) == 2'
}

@test "system context: --system-file, -s, system messages and summaries, in that order" {
	printf 'from a file\n' > "$T/sys.txt"
	cat > "$T/in.ndjson" <<'JSON'
{"type":"message","role":"system","content":"from a record"}
{"type":"summary","content":"We compared two parsers.","key_facts":["cJSON is lenient"],"open_tasks":["write tests"],"replaces":12}
{"type":"message","role":"user","content":"and now?"}
{"type":"usage","model":"m","input_tokens":1}
{"type":"frobnicate","x":1}
JSON
	run --separate-stderr ai-ask --system-file "$T/sys.txt" -s "from a flag" --provider anthropic < "$T/in.ndjson"
	[ "$status" -eq 0 ]
	want='from a file

from a flag

from a record

Summary of the earlier conversation:
We compared two parsers.

Key facts:
- cJSON is lenient

Open tasks:
- write tests'
	[ "$(body 1 | jq -r .system)" = "$want" ]
	body 1 | jq -e '.messages == [{"role":"user","content":[{"type":"text","text":"and now?"}]}]'
}

@test "empty messages are never sent; turns of one role are merged for Anthropic" {
	cat > "$T/in.ndjson" <<'JSON'
{"type":"message","role":"user","content":"first"}
{"type":"message","role":"assistant","content":""}
{"type":"message","role":"user","content":""}
{"type":"message","role":"user","content":"second"}
JSON
	run --separate-stderr ai-ask --provider anthropic "third" < "$T/in.ndjson"
	[ "$status" -eq 0 ]
	body 1 | jq -e '.messages == [{"role":"user","content":[{"type":"text","text":"first"},
		{"type":"text","text":"second"},{"type":"text","text":"third"}]}]'
	run --separate-stderr ai-ask "third" < "$T/in.ndjson"
	body 2 | jq -e '.input == [{"role":"user","content":"first"},{"role":"user","content":"second"},
		{"role":"user","content":"third"}]'
}

@test "a malformed record names its line; nothing is sent" {
	printf '{"type":"message","role":"user","content":"a"}\n{"type":"message",\n' > "$T/in.ndjson"
	run --separate-stderr ai-ask < "$T/in.ndjson"
	[ "$status" -eq 65 ]
	[[ "$stderr" == "ai-ask: standard input: line 2: "* ]]
	printf '{"type":"message","role":"robot","content":"a"}\n' > "$T/in.ndjson"
	run --separate-stderr ai-ask < "$T/in.ndjson"
	[ "$status" -eq 65 ]
	[ "$stderr" = 'ai-ask: standard input: line 1: message role must be "system", "user" or "assistant", not "robot"' ]
	printf '{"type":"tool_call","id":"c","name":"t","arguments":"{}"}\n' > "$T/in.ndjson"
	run --separate-stderr ai-ask < "$T/in.ndjson"
	[ "$status" -eq 65 ]
	[ "$stderr" = 'ai-ask: standard input: line 1: tool_call "arguments" must be a JSON object' ]
	[ "$(mock_count)" -eq 0 ]
}

@test "a call without its result, or a result without its call, is refused before any request" {
	cat > "$T/in.ndjson" <<'JSON'
{"type":"message","role":"user","content":"q"}
{"type":"tool_call","id":"c1","name":"t","arguments":{}}
{"type":"tool_call","id":"c2","name":"t","arguments":{}}
{"type":"tool_result","id":"c1","name":"t","ok":true}
JSON
	run --separate-stderr ai-ask --json < "$T/in.ndjson"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: tool_call 'c2' (standard input, line 3) has no tool_result" ]
	jq -e '.type == "error" and .code == "bad_input" and .exit == 65' <<<"$output"
	cat > "$T/in.ndjson" <<'JSON'
{"type":"message","role":"user","content":"q"}
{"type":"tool_result","id":"c9","name":"t","ok":true}
JSON
	run --separate-stderr ai-ask < "$T/in.ndjson"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: tool_result 'c9' (standard input, line 2) answers no tool_call just before it" ]
	cat > "$T/in.ndjson" <<'JSON'
{"type":"message","role":"user","content":"q"}
{"type":"tool_call","id":"c1","name":"t","arguments":{}}
{"type":"message","role":"user","content":"never mind"}
{"type":"tool_result","id":"c1","name":"t","ok":true}
JSON
	run --separate-stderr ai-ask < "$T/in.ndjson"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: tool_call 'c1' (standard input, line 2) has no tool_result" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "a conversation that ends with an answer needs a PROMPT" {
	printf '%s\n' '{"type":"message","role":"user","content":"q"}' \
		'{"type":"message","role":"assistant","content":"a"}' > "$T/in.ndjson"
	run --separate-stderr ai-ask < "$T/in.ndjson"
	[ "$status" -eq 64 ]
	[ "$stderr" = "ai-ask: nothing to ask: the conversation ends with an answer; give a PROMPT" ]
	run --separate-stderr ai-ask "go on" < "$T/in.ndjson"
	[ "$status" -eq 0 ]
	body 1 | jq -e '.input[1] == {"role":"assistant","content":"a"} and .input[2].content == "go on"'
}

@test "standard input over 16 MiB is refused with the limit named" {
	head -c 16777300 /dev/zero | tr '\0' 'a' > "$T/big.txt"
	run --separate-stderr ai-ask "x" < "$T/big.txt"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: standard input is larger than the limit of 16777216 bytes" ]
	[ "$(mock_count)" -eq 0 ]
}

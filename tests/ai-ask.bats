#!/usr/bin/env bats
# ai-ask against the mock server: every provider's wire format (asserted on
# the recorded requests), the real captured answers, tool calls and their
# follow-up turns, structured answers, input handling, every failure path,
# flushing, configuration, transcripts.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	clean_env
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

# script_sse ROUTE TEXT: one response of content type text/event-stream whose
# body is TEXT with its \n escapes turned into newlines.
script_sse() {
	mock_script "$(printf '%b' "$2" | jq -Rsc --arg r "$1" \
		'{routes: {($r): [{body: ., content_type: "text/event-stream"}]}}')"
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

@test "--schema: an answer that is not JSON becomes the fallback object, exit 4" {
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
	echo '[1]' > "$T/bad.json"
	run --separate-stderr ask --tools "$T/bad.json" "x"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: tools file '$T/bad.json': tool 1 is not an object" ]
	echo '[{"name":"a","description":3}]' > "$T/bad.json"
	run --separate-stderr ask --tools "$T/bad.json" "x"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: tools file '$T/bad.json': tool 'a': \"description\" must be a string" ]
	echo '[{"name":"a","parameters":[]}]' > "$T/bad.json"
	run --separate-stderr ask --tools "$T/bad.json" "x"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: tools file '$T/bad.json': tool 'a': \"parameters\" must be a JSON Schema object" ]
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
	[ "$stderr" = "ai-ask: nothing to ask: give a PROMPT, or input on standard input
ai-ask: try 'ai-ask --help' for more information" ]
	printf '  \n\n' > "$T/in.txt"
	run --separate-stderr ai-ask < "$T/in.txt"
	[ "$status" -eq 64 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "bytes that are not UTF-8 in plain input are refused with their offset, never replaced; nothing is sent" {
	printf 'caf\xe9\n' > "$T/in.txt"
	run --separate-stderr ai-ask < "$T/in.txt"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: standard input is not UTF-8 text: byte 0xe9 at offset 3 (line 1); convert it to UTF-8 first (iconv)" ]
	[ -z "$output" ]
	[ "$(mock_count)" -eq 0 ]
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
	[ "$stderr" = "ai-ask: nothing to ask: the conversation ends with an answer; give a PROMPT
ai-ask: try 'ai-ask --help' for more information" ]
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

# ---- failures, for every provider ----

PROVIDERS="openai openai-chat anthropic ollama"

route_of() {
	case $1 in
	openai) echo "POST /v1/responses" ;;
	openai-chat) echo "POST /v1/chat/completions" ;;
	anthropic) echo "POST /v1/messages" ;;
	ollama) echo "POST /api/chat" ;;
	esac
}

# the provider's streamed capture, the event to cut in (after some text), and that text
stream_of() {
	case $1 in
	openai) echo "openai/responses_stream_text.sse 7 pong" ;;
	openai-chat) echo "openai/chat_completions_stream_text_include_usage.sse 5 Not much," ;;
	anthropic) echo "anthropic/messages_stream_text.sse 6 Hello" ;;
	ollama) echo "ollama/chat_stream.ndjson 5 The sky appears" ;;
	esac
}

@test "the missing-key message names the file the tools would read first, as it is found" {
	unset OPENAI_API_KEY AICLI_CONFIG
	# XDG_CONFIG_HOME moves it
	export XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/xdg"
	run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"\"openai_api_key\" in $XDG_CONFIG_HOME/aicli/config.json (not created yet; see aicli(7))" ]]
	# a file that exists (with other settings) is named as it is
	mkdir -p "$XDG_CONFIG_HOME/aicli"
	printf '{"//": "mine", "model": "gpt-4.1-mini"}\n' > "$XDG_CONFIG_HOME/aicli/config.json"
	run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"\"openai_api_key\" in $XDG_CONFIG_HOME/aicli/config.json" ]]
	# only ~/.aicli.json: that one is read, so that one is named
	unset XDG_CONFIG_HOME
	printf '{}\n' > "$HOME/.aicli.json"
	run --separate-stderr ask "hi"
	[[ "$stderr" == *"\"openai_api_key\" in $HOME/.aicli.json" ]]
	# $AICLI_CONFIG comes first, also when it is missing (then it is an error of its own)
	printf '{}\n' > "$BATS_TEST_TMPDIR/mine.json"
	run --separate-stderr env AICLI_CONFIG="$BATS_TEST_TMPDIR/mine.json" ai-ask -n hi
	[[ "$stderr" == *"\"openai_api_key\" in $BATS_TEST_TMPDIR/mine.json" ]]
	[ "$(mock_count)" -eq 0 ]
}

@test "keys of the config file that begin with // are comments, whatever their value" {
	cfg="$BATS_TEST_TMPDIR/config.json"
	printf '{"//": "a comment", "//model": ["any", {"value": 1}], "openai_api_key": "sk-test-comments", "openai_base_url": "%s/v1"}\n' "$MOCK_URL" > "$cfg"
	chmod 600 "$cfg"
	run --separate-stderr env AICLI_CONFIG="$cfg" ai-ask -n hi
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	# a key that only looks like one is still unknown
	printf '{"/model": "x"}\n' > "$cfg"
	run --separate-stderr env AICLI_CONFIG="$cfg" ai-ask -n hi
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-ask: config file '$cfg': unknown key '/model'" ]
}

@test "a missing key is a configuration error naming the variable and the file; nothing is sent" {
	unset OPENAI_API_KEY ANTHROPIC_API_KEY
	run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-ask: no API key for openai: set OPENAI_API_KEY or AICLI_OPENAI_API_KEY, or \"openai_api_key\" in $AICLI_CONFIG" ]
	run --separate-stderr ask --json --provider anthropic "hi"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-ask: no API key for anthropic: set ANTHROPIC_API_KEY, or \"anthropic_api_key\" in $AICLI_CONFIG" ]
	jq -e '.type == "error" and .code == "config" and .exit == 78 and .retryable == false' <<<"$output"
	OPENAI_BASE_URL=https://api.example.com/v1 run --separate-stderr ask --provider openai-chat "hi"
	[ "$status" -eq 78 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "401 and 403: the key was refused, where it came from, never the key itself" {
	script "POST /v1/responses" '{"status":401,"file":"openai/responses_error_401_invalid_api_key.json"}'
	run --separate-stderr ask -v "hi"
	[ "$status" -eq 78 ]
	[ "$(mock_count)" -eq 1 ]
	[[ "$stderr" == *"ai-ask: '127.0.0.1:$MOCK_PORT' refused the API key (HTTP 401): invalid_request_error: Incorrect API key provided"*"(the key from \$OPENAI_API_KEY)" ]]
	[[ "$stderr" == *"> Authorization: [REDACTED]"* ]]
	[[ "$stderr$output" != *"sk-test-key-0123456789abcdef"* ]]
	script "POST /v1/messages" '{"status":403,"json":{"type":"error","error":{"type":"permission_error","message":"no access"}}}'
	run --separate-stderr ask --json --provider anthropic -vv "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"refused the API key (HTTP 403): permission_error: no access (the key from \$ANTHROPIC_API_KEY)" ]]
	[[ "$stderr" == *"> x-api-key: [REDACTED]"* ]]
	[[ "$stderr" == *"ai-ask: request body: {\"model\":\"claude-haiku-4-5\""* ]]
	[[ "$stderr$output" != *"sk-ant-test-0123456789abcdef"* ]]
	jq -e '.type == "error" and .code == "config" and .status == 403' <<<"$output"
}

@test "the key from the configuration file is used and never shown" {
	unset OPENAI_API_KEY
	printf '{"openai_api_key": "sk-from-config-0123456789"}\n' > "$AICLI_CONFIG"
	chmod 600 "$AICLI_CONFIG"
	script "POST /v1/responses" '{"status":401,"json":{"error":{"message":"Incorrect API key provided: sk-from-config-0123456789","type":"invalid_request_error"}}}'
	run --separate-stderr ask -vv "hi"
	[ "$status" -eq 78 ]
	mock_request 1 | jq -e '.headers.authorization == "Bearer sk-from-config-0123456789"'
	[[ "$stderr" == *"Incorrect API key provided: [REDACTED] (the key from config file)" ]]
	[[ "$stderr$output" != *"sk-from-config"* ]]
	chmod 644 "$AICLI_CONFIG"
	run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"holds an API key and can be read by other users; run: chmod 600"* ]]
}

@test "a provider's error body is shown: a rejected request is bad input, not retried" {
	script "POST /v1/messages" '{"status":400,"file":"anthropic/messages_error_400_invalid_request_error.json"}'
	run --separate-stderr ask --provider anthropic "hi"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: '127.0.0.1:$MOCK_PORT' answered HTTP 400: invalid_request_error: messages.0: Input does not match the expected shape." ]
	[ "$(mock_count)" -eq 1 ]
	script "POST /v1/chat/completions" '{"status":400,"json":{"error":{"message":"bad \u001b[31mmodel","type":"invalid_request_error"}}}'
	run --separate-stderr ask --provider openai-chat "hi"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: '127.0.0.1:$MOCK_PORT' answered HTTP 400: invalid_request_error: bad ^[[31mmodel" ]
}

@test "every provider: 429 with Retry-After, then success" {
	for p in $PROVIDERS; do
		mock_script "{\"routes\":{\"$(route_of "$p")\":[{\"status\":429,\"headers\":{\"Retry-After\":\"1\"},
			\"json\":{\"error\":{\"message\":\"slow down\"}}},{}]}}"
		t0=$(now)
		run --separate-stderr ask --provider "$p" "hi"
		t1=$(now)
		[ "$status" -eq 0 ] || { echo "$p: $status $stderr"; false; }
		[ -n "$output" ]
		[ "$(mock_count)" -eq 2 ]
		[ "$(elapsed_ms "$t0" "$t1")" -ge 1000 ]
	done
}

@test "every provider: repeated 500s give up within the bound, with the unavailable status" {
	for p in $PROVIDERS; do
		mock_script "{\"repeat_last\":true,\"routes\":{\"$(route_of "$p")\":[{\"status\":500,
			\"json\":{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}}]}}"
		t0=$(now)
		run --separate-stderr ask --provider "$p" --json --retries 2 "hi"
		t1=$(now)
		[ "$status" -eq 69 ] || { echo "$p: $status $stderr"; false; }
		[ "$(mock_count)" -eq 3 ]
		[ "$(elapsed_ms "$t0" "$t1")" -lt 4000 ]
		[ "$stderr" = "ai-ask: '127.0.0.1:$MOCK_PORT' answered HTTP 500 after 3 attempts: server_error: boom" ]
		jq -e '.type == "error" and .code == "unavailable" and .retryable == true and .status == 500' <<<"$output"
	done
	mock_script '{"repeat_last":true,"routes":{"POST /v1/responses":[{"status":503,"body":"busy"}]}}'
	t0=$(now)
	run --separate-stderr ask --retries 10 --timeout 1.5 "hi"
	t1=$(now)
	[ "$status" -eq 69 ]
	[ "$(elapsed_ms "$t0" "$t1")" -lt 2500 ]
}

@test "anthropic: 529 overloaded is retried" {
	script "POST /v1/messages" '{"status":529,"json":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}' '{}'
	run --separate-stderr ask --provider anthropic "hi"
	[ "$status" -eq 0 ]
	[ "$output" = "Hello" ]
	[ "$(mock_count)" -eq 2 ]
}

@test "anthropic: an overloaded_error event in the stream is retried while nothing was written" {
	script "POST /v1/messages" '{"file":"anthropic/docs_example_stream_error_event_overloaded.sse"}' '{}'
	run --separate-stderr ask --provider anthropic "hi"
	[ "$status" -eq 0 ]
	[ "$output" = "Hello" ]
	[ "$(mock_count)" -eq 2 ]
	mock_script '{"repeat_last":true,"routes":{"POST /v1/messages":[{"file":"anthropic/docs_example_stream_error_event_overloaded.sse"}]}}'
	run --separate-stderr ask --provider anthropic --json --retries 1 "hi"
	[ "$status" -eq 69 ]
	[ "$(mock_count)" -eq 2 ]
	[ "$stderr" = "ai-ask: '127.0.0.1:$MOCK_PORT' reported an error: overloaded_error: Overloaded" ]
	jq -e '.type == "error" and .code == "unavailable" and .retryable == true' <<<"$output"
}

@test "an error event after part of the answer is not retried: the text stays, the error follows" {
	body='event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\nevent: error\ndata: {"type":"error","error":{"type":"api_error","message":"Internal"}}\n\n'
	script_sse "POST /v1/messages" "$body"
	run --separate-stderr ask --provider anthropic "hi"
	[ "$status" -eq 69 ]
	[ "$output" = "Hel" ]
	[ "$(mock_count)" -eq 1 ]
	[ "$stderr" = "ai-ask: '127.0.0.1:$MOCK_PORT' reported an error: api_error: Internal" ]
}

@test "openai: response.failed and error events end the run with the provider's reason" {
	mock_script '{"routes":{"POST /v1/responses":[{"body":"event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"too fast\"}}}\n\n","content_type":"text/event-stream"}]}}'
	run --separate-stderr ask --retries 0 "hi"
	[ "$status" -eq 75 ]
	[ "$stderr" = "ai-ask: '127.0.0.1:$MOCK_PORT' could not answer: rate_limit_exceeded: too fast" ]
	mock_script '{"routes":{"POST /v1/responses":[{"body":"event: error\ndata: {\"type\":\"error\",\"code\":\"invalid_prompt\",\"message\":\"nope\"}\n\n","content_type":"text/event-stream"}]}}'
	run --separate-stderr ask --retries 0 "hi"
	[ "$status" -eq 69 ]
	[ "$stderr" = "ai-ask: '127.0.0.1:$MOCK_PORT' reported an error: invalid_prompt: nope" ]
}

@test "every provider: a stream cut after part of the answer: the text stays, no message record" {
	for p in $PROVIDERS; do
		set -- $(stream_of "$p")
		file=$1 cut=$2
		shift 2
		partial="$*"
		script "$(route_of "$p")" "{\"file\":\"$file\",\"cut_mid_event\":$cut}" "{\"file\":\"$file\",\"cut_mid_event\":$cut}"
		run --separate-stderr ask --provider "$p" "hi"
		[ "$status" -eq 76 ] || { echo "$p: $status $stderr"; false; }
		[[ "$output" == "$partial"* ]] || { echo "$p: $output"; false; }
		[[ "$stderr" == "ai-ask: the connection to '127.0.0.1:$MOCK_PORT' broke in the middle of the response"* ]]
		run --separate-stderr ask --provider "$p" --json --stream "hi"
		[ "$status" -eq 76 ]
		[ "$(mock_count)" -eq 2 ]
		! grep -q '"type":"message"' <<<"$output"
		! grep -q '"type":"usage"' <<<"$output"
		grep -q '"type":"delta"' <<<"$output"
		jq -e '.type == "error" and .code == "protocol" and .exit == 76' <<<"${lines[-1]}"
	done
}

@test "every provider: a malformed chunk is a protocol error naming the event" {
	for p in $PROVIDERS; do
		set -- $(stream_of "$p")
		if [ "$p" = ollama ]; then bad='{not json\n' what=line; else bad='data: {not json\n\n' what=event; fi
		script "$(route_of "$p")" "{\"file\":\"$1\",\"malformed\":\"$bad\"}"
		run --separate-stderr ask --provider "$p" --json "hi"
		[ "$status" -eq 76 ] || { echo "$p: $status $stderr"; false; }
		[[ "$stderr" == "ai-ask: cannot parse the answer from '127.0.0.1:$MOCK_PORT': $what 2: column 2: "* ]]
		[ "${#lines[@]}" -eq 1 ]
		# broken framing is a cut: retried while nothing was written, so no retry here
		script "$(route_of "$p")" "{\"file\":\"$1\",\"malformed_chunk\":true}"
		run --separate-stderr ask --provider "$p" --retries 0 "hi"
		[ "$status" -eq 76 ] || { echo "$p chunk: $status $stderr"; false; }
	done
}

@test "a stream that ends cleanly but before the provider's end of answer is cut short" {
	mock_script '{"routes":{"POST /v1/responses":[{"body":"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"po\"}\n\n","content_type":"text/event-stream"}]}}'
	run --separate-stderr ask "hi"
	[ "$status" -eq 76 ]
	[ "$output" = "po" ]
	[ "$stderr" = "ai-ask: the answer from '127.0.0.1:$MOCK_PORT' ended before it was complete" ]
	# nothing was written with --json: the cut answer is asked again, and cut again
	mock_script '{"routes":{"POST /api/chat":[{"body":"{\"message\":{\"content\":\"The\"},\"done\":false}\n","content_type":"application/x-ndjson"}]},"repeat_last":true}'
	run --separate-stderr ask --provider ollama --json --retries 1 "hi"
	[ "$status" -eq 76 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(mock_count)" -eq 2 ]
}

@test "every provider: a slow first byte inside the timeout is waited for; outside it is a timeout" {
	for p in $PROVIDERS; do
		script "$(route_of "$p")" '{"delay_ms":600}' '{"delay_ms":5000}'
		run --separate-stderr ask --provider "$p" --timeout 3 "hi"
		[ "$status" -eq 0 ] || { echo "$p: $status $stderr"; false; }
		t0=$(now)
		run --separate-stderr ask --provider "$p" --timeout 0.5 "hi"
		t1=$(now)
		[ "$status" -eq 75 ] || { echo "$p: $status $stderr"; false; }
		[ "$stderr" = "ai-ask: '127.0.0.1:$MOCK_PORT' did not answer within 500 ms" ] || { echo "$p: $stderr"; false; }
		[ "$(elapsed_ms "$t0" "$t1")" -lt 2000 ]
	done
}

@test "every provider: an idle drip stops at the idle timeout" {
	for p in $PROVIDERS; do
		set -- $(stream_of "$p")
		script "$(route_of "$p")" "{\"file\":\"$1\",\"drip_ms\":3000}"
		t0=$(now)
		# a stall before any text is retried like a cut: --retries 0 keeps this to one
		run --separate-stderr ask --provider "$p" --idle-timeout 0.5 --retries 0 "hi"
		t1=$(now)
		[ "$status" -eq 75 ] || { echo "$p: $status $stderr"; false; }
		[ "$stderr" = "ai-ask: no data from '127.0.0.1:$MOCK_PORT' for 500 ms" ]
		[ "$(elapsed_ms "$t0" "$t1")" -lt 2500 ]
		[ "$(mock_count)" -eq 1 ]
	done
}

@test "openai-chat: finish_reason length is a truncated answer: what arrived, the limit status" {
	script "POST /v1/chat/completions" '{"file":"openai/chat_completions_stream_finish_reason_length.sse"}'
	run --separate-stderr ask --provider openai-chat --max-tokens 1 "weather?"
	[ "$status" -eq 3 ]
	[ "$output" = '{"' ]
	[ "$stderr" = "ai-ask: the answer is incomplete: it reached the maximum length ('127.0.0.1:$MOCK_PORT' said 'length'); raise --max-tokens" ]
}

@test "openai: an incomplete response, and a call cut at the maximum length" {
	mock_script '{"routes":{"POST /v1/responses":[{"json":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},
		"output":[{"type":"function_call","call_id":"c1","name":"multiply","arguments":"{\"a\":12"}],"usage":{"input_tokens":3,"output_tokens":4}}}]}}'
	run --separate-stderr ask --json --tools "$T/tools.json" "x"
	[ "$status" -eq 3 ]
	[ "$stderr" = "ai-ask: the call of tool 'multiply' was cut off at the maximum length of the answer" ]
	jq -e '.type == "error" and .code == "limit"' <<<"$output"
	[ "${#lines[@]}" -eq 1 ]
}

@test "arguments that are not a JSON object: the call with {} and the model's text, for the caller to answer" {
	mock_script '{"routes":{"POST /v1/chat/completions":[{"json":{"choices":[{"index":0,"message":{"role":"assistant",
		"tool_calls":[{"id":"c1","type":"function","function":{"name":"multiply","arguments":"[1,2]"}},
		{"id":"c2","type":"function","function":{"name":"multiply","arguments":"{\"a\": 2"}}]},"finish_reason":"tool_calls"}]}}]}}'
	run --separate-stderr ask --provider openai-chat --json --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = '{"type":"tool_call","id":"c1","name":"multiply","arguments":{},"arguments_text":"[1,2]"}' ]
	[ "${lines[1]}" = '{"type":"tool_call","id":"c2","name":"multiply","arguments":{},"arguments_text":"{\"a\": 2"}' ]
}

@test "an answer larger than the 32 MiB cap stops with a protocol error" {
	script "POST /v1/responses" '{"oversize_bytes":34000000,"content_type":"application/json"}'
	run --separate-stderr ask --json "hi"
	[ "$status" -eq 76 ]
	[[ "$stderr" == *"larger than the limit of 33554432 bytes" ]]
}

@test "a refused connection is unavailable after the retries" {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	OPENAI_BASE_URL="http://127.0.0.1:$port/v1" run --separate-stderr ask --retries 1 "hi"
	[ "$status" -eq 69 ]
	[[ "$stderr" == "ai-ask: cannot reach '127.0.0.1:$port': "* ]]
}

# ---- flushing, terminals, pipes ----

@test "flushing: the first delta is readable from the pipe while the mock is still dripping" {
	script "POST /v1/chat/completions" \
		'{"file":"openai/chat_completions_stream_text_include_usage.sse","drip_ms":200}' \
		'{"file":"openai/chat_completions_stream_text_include_usage.sse","drip_ms":200}'
	mkfifo "$T/fifo"
	ai-ask -n --provider openai-chat "hi" > "$T/fifo" 2>/dev/null &
	pid=$!
	exec 5<"$T/fifo"
	IFS= read -r -t 5 -N 3 first <&5
	kill -0 "$pid"   # still running: the rest of the stream has not been sent yet
	cat <&5 > "$T/rest"
	exec 5<&-
	wait "$pid"
	[ "$first" = "Not" ]
	[ "$first$(cat "$T/rest")" = "Not much, just here to chat and assist you with anything you need. How are you?" ]

	ai-ask -n --provider openai-chat --json --stream "hi" > "$T/fifo" 2>/dev/null &
	pid=$!
	exec 5<"$T/fifo"
	IFS= read -r -t 5 line <&5
	kill -0 "$pid"
	cat <&5 > /dev/null
	exec 5<&-
	wait "$pid"
	[ "$line" = '{"type":"delta","text":"Not"}' ]
}

@test "a terminal: standard input is never read, a spinner while waiting, control characters shown" {
	mock_script '{"repeat_last":true,"routes":{"POST /v1/responses":[{"delay_ms":800,"json":{"status":"completed",
		"output":[{"type":"message","content":[{"type":"output_text","text":"a\u001b[2Jb"}]}]}}]}}'
	run timeout 10 script -qec "ai-ask --json --stream hi; ai-ask hi" /dev/null < /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\e[2mai-ask: waiting for the answer |\e[0m'* ]]
	[[ "$output" == *$'\r\e[K'* ]]
	[[ "$output" == *'a^[[2Jb'* ]]
	[[ "$output" != *$'a\e[2Jb'* ]]
	# the same answer into a pipe is the product, unchanged, and no spinner
	mock_script '{"routes":{"POST /v1/responses":[{"delay_ms":800,"json":{"status":"completed",
		"output":[{"type":"message","content":[{"type":"output_text","text":"a\u001b[2Jb"}]}]}}]}}'
	run --separate-stderr ask --json "hi"
	[ "${lines[0]}" = '{"type":"message","role":"assistant","content":"a\u001b[2Jb"}' ]
	[ -z "$stderr" ]
}

@test "NO_COLOR: the spinner is not drawn faint" {
	script "POST /v1/responses" '{"delay_ms":800}'
	NO_COLOR=1 run timeout 10 script -qec "ai-ask hi" /dev/null < /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\rai-ask: waiting for the answer |'* ]]
	[[ "$output" != *$'\e[2m'* ]]
	[[ "$output" == *pong* ]]
}

@test "a reader that goes away ends ai-ask quietly, by SIGPIPE" {
	# dripped, so that ai-ask still has text to write once head has gone
	script "POST /v1/chat/completions" '{"file":"openai/chat_completions_stream_text_include_usage.sse","drip_ms":200}'
	run --separate-stderr bash -c "set -o pipefail; ai-ask -n --provider openai-chat hi | head -c 12"
	[ "$status" -eq 141 ]
	[ "$output" = "Not much, ju" ]
	[ -z "$stderr" ]
}

@test "an answer without a final newline gets one; an empty answer a warning" {
	run --separate-stderr bash -c "ai-ask -n hi | od -c | head -1"
	[[ "$output" == *"p   o   n   g  \\n" ]]
	mock_script '{"routes":{"POST /v1/responses":[{"json":{"status":"completed","output":[]}}]}}'
	run --separate-stderr ask "hi"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$stderr" = "ai-ask: warning: the answer from '127.0.0.1:$MOCK_PORT' is empty" ]
}

# ---- usage and prices ----

@test "usage: cached tokens, weights and the built-in price" {
	mock_script '{"routes":{"POST /v1/responses":[{"json":{"status":"completed","output":[{"type":"message",
		"content":[{"type":"output_text","text":"ok"}]}],
		"usage":{"input_tokens":2000,"input_tokens_details":{"cached_tokens":1000},"output_tokens":100}}}]}}'
	run --separate-stderr ask --json --usage "hi"
	[ "$status" -eq 0 ]
	jq -e '. == {"type":"usage","model":"gpt-4.1-mini","input_tokens":2000,"cached_tokens":1000,"output_tokens":100,
		"calls":1,"weighted_tokens":1650,"cost_usd":0.00066}' <<<"${lines[1]}"
	[ "$stderr" = "ai-ask: usage: 2000 input tokens (1000 cached), 100 output tokens, 1650 weighted, \$0.000660 (gpt-4.1-mini)" ]
}

@test "usage: Anthropic's cache reads and writes count as input; writes at their own price" {
	mock_script '{"routes":{"POST /v1/messages":[{"json":{"type":"message","model":"claude-sonnet-4-5-20250929",
		"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn",
		"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":5}}}]}}'
	run --separate-stderr ask --provider anthropic -m claude-sonnet-4-5 --json "hi"
	[ "$status" -eq 0 ]
	# 10 x 3 + 100 written x 3.75 + 1000 read x 0.30 + 5 x 15, per million
	jq -e '.input_tokens == 1110 and .cached_tokens == 1000 and .cache_write_tokens == 100 and
		.output_tokens == 5 and .weighted_tokens == 380 and .cost_usd == 0.00078' <<<"${lines[1]}"
}

@test "prices: the configuration file adds and overrides; a dated snapshot matches; unknown has none" {
	printf '{"prices": {"my-model": {"input": 1, "output": 2}, "gpt-4.1-mini": {"input": 10, "cached": 1, "output": 20}}}\n' > "$AICLI_CONFIG"
	run --separate-stderr ask --json -m my-model "hi"
	jq -e '.model == "my-model" and .cost_usd == 0.000021' <<<"${lines[1]}"
	run --separate-stderr ask --json "hi"
	jq -e '.cost_usd == 0.00021' <<<"${lines[1]}"
	# the provider answered as gpt-4o-mini-2024-07-18: priced as gpt-4o-mini
	run --separate-stderr ask --provider openai-chat --json -m some-alias "hi"
	jq -e '.model == "some-alias" and .cost_usd == 0.0000237' <<<"${lines[1]}"
	run --separate-stderr ask --provider ollama --json "hi"
	jq -e 'has("cost_usd") | not' <<<"${lines[-1]}"
	printf '{"prices": {"m": {"input": "cheap"}}}\n' > "$AICLI_CONFIG"
	run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == "ai-ask: config file: prices: 'm' needs \"input\": a price in USD per million tokens" ]]
}

@test "usage a server does not report is estimated, and says so" {
	mock_script '{"routes":{"POST /v1/chat/completions":[{"json":{"choices":[{"index":0,
		"message":{"role":"assistant","content":"12345678"},"finish_reason":"stop"}]}}]}}'
	run --separate-stderr ask --provider openai-chat --json "hi"
	[ "$status" -eq 0 ]
	jq -e '.estimated == true and .output_tokens == 2 and .input_tokens > 0' <<<"${lines[1]}"
}

# ---- configuration ----

@test "model and provider from the configuration file, the environment, the flag, in that order" {
	printf '{"model": "from-file", "provider": "openai-chat"}\n' > "$AICLI_CONFIG"
	run --separate-stderr ask "hi"
	mock_request 1 | jq -e '.path == "/v1/chat/completions" and .json.model == "from-file"'
	AICLI_MODEL=from-env AICLI_PROVIDER=anthropic run --separate-stderr ask "hi"
	mock_request 2 | jq -e '.path == "/v1/messages" and .json.model == "from-env"'
	AICLI_MODEL=from-env run --separate-stderr ask -m from-flag --provider ollama "hi"
	mock_request 3 | jq -e '.path == "/api/chat" and .json.model == "from-flag"'
}

@test "bad settings name where they came from: flag 64, environment or file 78" {
	run --separate-stderr ask --provider nosuch "hi"
	[ "$status" -eq 64 ]
	[[ "$stderr" == "ai-ask: option '--provider': 'nosuch' is not a provider: openai, openai-chat, anthropic, gemini, ollama, deepseek, "*", mistral or xai, or one of the config file's \"providers\"
ai-ask: try 'ai-ask --help' for more information" ]]
	AICLI_PROVIDER=nosuch run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == "ai-ask: \$AICLI_PROVIDER: 'nosuch' is not a provider: openai, "*" or xai, or one of the config file's \"providers\"" ]]
	AICLI_TIMEOUT=soon run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-ask: \$AICLI_TIMEOUT: 'soon' is not a number of seconds from 0.001 to 86400" ]
	run --separate-stderr ask --timeout soon "hi"
	[ "$status" -eq 64 ]
	printf '{"retries": 99}\n' > "$AICLI_CONFIG"
	run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-ask: config file '$AICLI_CONFIG': retries: '99' is not a whole number from 0 to 10" ]
	OPENAI_BASE_URL="ftp://example.com" run --separate-stderr ask "hi"
	[ "$status" -eq 78 ]
	[[ "$stderr" == "ai-ask: \$OPENAI_BASE_URL: 'ftp://example.com' "* ]]
	run --separate-stderr ask --temperature 3 "hi"
	[ "$status" -eq 64 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "AICLI_TIMEOUT and AICLI_RETRIES bound the request" {
	mock_script '{"repeat_last":true,"routes":{"POST /v1/responses":[{"status":502,"body":"bad gateway"}]}}'
	AICLI_RETRIES=0 run --separate-stderr ask "hi"
	[ "$status" -eq 69 ]
	[ "$(mock_count)" -eq 1 ]
	script "POST /v1/responses" '{"delay_ms":3000}'
	t0=$(now)
	AICLI_TIMEOUT=0.4 run --separate-stderr ask "hi"
	t1=$(now)
	[ "$status" -eq 75 ]
	[ "$(elapsed_ms "$t0" "$t1")" -lt 2000 ]
}

@test "--base-url wins over the environment" {
	OPENAI_BASE_URL=http://127.0.0.1:9/v1 run --separate-stderr ask --base-url "$MOCK_URL/v1/" "hi"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.path == "/v1/responses"'
}

# ---- transcripts ----

@test "--continue: the conversation grows in the file, and is sent back" {
	run --separate-stderr ask --continue "$T/chat.ndjson" "name a prime"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$T/chat.ndjson")" = 600 ]
	[ "$(jq -sc 'map(.type)' "$T/chat.ndjson")" = '["message","message","usage"]' ]
	[ "$(sed -n 1p "$T/chat.ndjson")" = '{"type":"message","role":"user","content":"name a prime"}' ]
	[ "$(sed -n 2p "$T/chat.ndjson")" = '{"type":"message","role":"assistant","content":"pong"}' ]
	echo "more material" > "$T/in.txt"
	run --separate-stderr ai-ask --continue "$T/chat.ndjson" "and another" < "$T/in.txt"
	[ "$status" -eq 0 ]
	body 2 | jq -e '.input == [{"role":"user","content":"name a prime"},{"role":"assistant","content":"pong"},
		{"role":"user","content":"more material\n\nand another"}]'
	[ "$(wc -l < "$T/chat.ndjson")" -eq 6 ]
	[ "$(sed -n 4p "$T/chat.ndjson")" = '{"type":"message","role":"user","content":"more material\n\nand another"}' ]
}

@test "--continue: a failed exchange leaves the transcript as it was, and creates none" {
	script "POST /v1/responses" '{"status":500,"body":"x"}'
	run --separate-stderr ask --retries 0 --continue "$T/new.ndjson" "hi"
	[ "$status" -eq 69 ]
	[ ! -e "$T/new.ndjson" ]
	printf '%s\n' '{"type":"message","role":"user","content":"q"}' '{"type":"message","role":"assistant","content":"a"}' > "$T/old.ndjson"
	cp "$T/old.ndjson" "$T/before"
	script "POST /v1/responses" '{"status":500,"body":"x"}'
	run --separate-stderr ask --retries 0 --continue "$T/old.ndjson" "hi"
	[ "$status" -eq 69 ]
	cmp "$T/old.ndjson" "$T/before"
	echo "just text" > "$T/text.ndjson"
	run --separate-stderr ask --continue "$T/text.ndjson" "hi"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: transcript '$T/text.ndjson' does not hold records" ]
}

@test "--continue: records on standard input are appended with the answer's records" {
	printf '%s\n' '{"type":"message","role":"user","content":"q"}' \
		'{"type":"tool_call","id":"c1","name":"multiply","arguments":{"a":1,"b":2}}' \
		'{"type":"tool_result","id":"c1","name":"multiply","ok":true,"value":2}' > "$T/in.ndjson"
	run --separate-stderr ai-ask --continue "$T/chat.ndjson" --json --tools "$T/tools.json" < "$T/in.ndjson"
	[ "$status" -eq 0 ]
	[ "$(jq -sc 'map(.type)' "$T/chat.ndjson")" = '["message","tool_call","tool_result","message","usage"]' ]
	# the file is itself a conversation ai-ask reads back
	run --separate-stderr ask --continue "$T/chat.ndjson" --tools "$T/tools.json" "thanks"
	[ "$status" -eq 0 ]
	body 2 | jq -e '.input | length == 5'
}

# ---- servers that bend the formats ----

@test "openai-chat: a server that sends tool calls without index: ids tell the calls apart" {
	d='data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"x1","type":"function","function":{"name":"multiply","arguments":"{\"a\":"}}]}}]}\n\ndata: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}\n\ndata: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"x2","type":"function","function":{"name":"no_params","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
	script_sse "POST /v1/chat/completions" "$d"
	run --separate-stderr ask --provider openai-chat --json --stream --tools "$T/tools.json" "x"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"type":"tool_call","id":"x1","name":"multiply","arguments":{"a":1}}' ]
	[ "${lines[1]}" = '{"type":"tool_call","id":"x2","name":"no_params","arguments":{}}' ]
	jq -e '.type == "usage" and .estimated == true' <<<"${lines[2]}"
}

@test "openai: a stream without deltas still yields the text of the completed response" {
	mock_script '{"routes":{"POST /v1/responses":[{"body":"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"whole\"}]}],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n","content_type":"text/event-stream"}]}}'
	run --separate-stderr ask "hi"
	[ "$status" -eq 0 ]
	[ "$output" = "whole" ]
}

@test "a server asked to stream that answers with one JSON body is read as one" {
	script "POST /v1/chat/completions" '{"file":"openai/chat_completions_nonstream_text.json"}'
	run --separate-stderr ask --provider openai-chat "q"
	[ "$status" -eq 0 ]
	[ "$output" = "YES" ]
	body 1 | jq -e '.stream == true'
}

@test "anthropic: a conversation with calls but no --tools declares the called tools, choice none" {
	cat > "$T/conv" <<'JSON'
{"type":"message","role":"user","content":"q"}
{"type":"tool_call","id":"a","name":"execute","arguments":{"command":"ls"}}
{"type":"tool_call","id":"b","name":"execute","arguments":{"command":"wc"}}
{"type":"tool_result","id":"a","ok":true}
{"type":"tool_result","id":"b","ok":true}
JSON
	run --separate-stderr ai-ask --provider anthropic "give your best answer now" < "$T/conv"
	[ "$status" -eq 0 ]
	body 1 | jq -e '.tools == [{"name":"execute","description":"Called earlier in this conversation.",
		"input_schema":{"type":"object"}}] and .tool_choice == {"type":"none"}'
	run --separate-stderr ai-ask --provider anthropic --schema "$T/schema.json" "summarize" < "$T/conv"
	body 2 | jq -e '(.tools | map(.name)) == ["answer","execute"] and .tool_choice == {"type":"tool","name":"answer"}'
	run --separate-stderr ai-ask --provider anthropic -n "no calls"
	body 3 | jq -e '(has("tools") or has("tool_choice")) | not'
}

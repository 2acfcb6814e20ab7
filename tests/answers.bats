#!/usr/bin/env bats
# How ai-ask reads answers that arrive in unexpected shapes: Ollama's
# native stream under any content type, answers checked against --schema
# (and JSON recovered from one fenced block), and streams cut before
# anything reached standard output, which are retried wherever they were
# cut.  Real captures from tests/fixtures, served by the mock.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	export OLLAMA_HOST="$MOCK_URL"
}

SVC() { echo "'127.0.0.1:$MOCK_PORT'"; }

# ---- Ollama ----

@test "ollama: the native stream is read line by line whatever its content type says" {
	want="$(ai-ask -n --provider ollama "why is the sky blue?")"
	[ -n "$want" ]
	for ct in application/json text/plain text/event-stream application/octet-stream; do
		mock_script "{\"routes\":{\"POST /api/chat\":[{\"file\":\"ollama/chat_stream.ndjson\",\"content_type\":\"$ct\",\"chunked\":true}]}}"
		run --separate-stderr ai-ask -n --provider ollama "why is the sky blue?"
		[ "$status" -eq 0 ] || { echo "$ct: $status $stderr"; false; }
		[ "$output" = "$want" ]
		[ -z "$stderr" ]
	done
	# the records too: one message, the usage of the last line
	mock_script '{"routes":{"POST /api/chat":[{"file":"ollama/chat_stream.ndjson","content_type":"application/json"}]}}'
	run --separate-stderr ai-ask -n --json --provider ollama "why is the sky blue?"
	[ "$status" -eq 0 ]
	jq -e --arg t "$want" '.type == "message" and .content == $t' <<<"${lines[0]}"
	jq -e '.type == "usage" and (has("estimated") | not)' <<<"${lines[1]}"
}

@test "ollama: one whole answer, on one line or spread over several, under any content type" {
	jq . "$MOCK_FIXTURES/ollama/chat_nonstream_tool_calls.json" > pretty.json
	for f in "$MOCK_FIXTURES/ollama/chat_nonstream_tool_calls.json" "$W/pretty.json"; do
		for ct in application/json application/x-ndjson; do
			mock_script "{\"routes\":{\"POST /api/chat\":[{\"file\":\"$f\",\"content_type\":\"$ct\"}]}}"
			run --separate-stderr ai-ask -n --json --provider ollama "weather?"
			[ "$status" -eq 0 ] || { echo "$f $ct: $status $stderr"; false; }
			jq -e '.type == "tool_call" and .name == "get_current_weather" and
				.arguments == {"location":"San Francisco","unit":"fahrenheit"}' <<<"${lines[0]}"
		done
	done
}

@test "ollama: a line that is not JSON after good ones is a malformed answer, named" {
	{ head -3 "$MOCK_FIXTURES/ollama/chat_stream.ndjson"; echo '{"model":'; } > broken.ndjson
	mock_script "{\"routes\":{\"POST /api/chat\":[{\"file\":\"$W/broken.ndjson\",\"content_type\":\"application/json\"}]}}"
	run --separate-stderr ai-ask -n --provider ollama "why?"
	[ "$status" -eq 76 ]
	[[ "$stderr" == *"ai-ask: cannot parse the answer from $(SVC): line 4: "* ]]
}

# ---- --schema ----

# answer_with TEXT: a Chat Completions answer with this text, in the wire
# shape of the real capture openai/chat_completions_nonstream_text.json.
answer_with() {
	jq -c --arg t "$1" '.choices[0].message.content = $t' \
		"$MOCK_FIXTURES/openai/chat_completions_nonstream_text.json" > answer.json
	mock_script "{\"routes\":{\"POST /v1/chat/completions\":[{\"file\":\"$W/answer.json\"}]}}"
}

@test "--schema: every case of tests/ai-ask/schema-cases.txt: status, message, the JSON as given" {
	n=0
	while IFS= read -r line; do
		case $line in '#'* | '') continue ;; esac
		line="$line "
		schema=${line%% | *}; rest=${line#* | }
		text=${rest%% | *}; rest=${rest#* | }
		want=${rest%% | *}; msg=${rest#* | }
		msg=${msg% }
		printf '%s\n' "$schema" > schema.json
		answer_with "$(printf '%b' "$text")"
		run --separate-stderr ai-ask -n --provider openai-chat --schema schema.json "go"
		[ "$status" -eq "$want" ] || { echo "$line: exit $status: $stderr"; false; }
		if [ -n "$msg" ]; then
			[ "$stderr" = "ai-ask: $msg" ] || { echo "$line: $stderr"; false; }
		else
			[ -z "$stderr" ] || { echo "$line: $stderr"; false; }
		fi
		n=$((n + 1))
	done < "$BATS_TEST_DIRNAME/ai-ask/schema-cases.txt"
	[ "$n" -ge 30 ]
}

@test "--schema: a violation exits 4 with the JSON as the model gave it, and the path in the error record" {
	printf '%s\n' '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}' > schema.json
	answer_with '{"nom": "Ada"}'
	run --separate-stderr ai-ask -n --provider openai-chat --schema schema.json "invent a person"
	[ "$status" -eq 4 ]
	[ "$output" = '{"nom": "Ada"}' ]
	[ "$stderr" = 'ai-ask: the answer does not follow the schema: $.name: is required and missing' ]
	answer_with '{"nom": "Ada"}'
	run --separate-stderr ai-ask -n --json --provider openai-chat --schema schema.json "invent a person"
	[ "$status" -eq 4 ]
	jq -e '. == {"type":"message","role":"assistant","content":"{\"nom\": \"Ada\"}"}' <<<"${lines[0]}"
	jq -e '.type == "error" and .code == "format" and .exit == 4 and
		.message == "the answer does not follow the schema: $.name: is required and missing"' <<<"${lines[2]}"
	# the JSON out of its fence, as written
	answer_with $'Sure:\n```json\n{"name": "Ada"}\n```'
	run --separate-stderr ai-ask -n --provider openai-chat --schema schema.json "invent a person"
	[ "$status" -eq 0 ]
	[ "$output" = '{"name": "Ada"}' ]
}

@test "--schema: Anthropic's forced tool input is checked too" {
	printf '%s\n' '{"type":"object","properties":{"age":{"type":"string"}},"required":["name","age"]}' > schema.json
	mock_script '{"routes":{"POST /v1/messages":[{"file":"anthropic/messages_stream_tool_use_long_input_json_delta.sse"}]}}'
	run --separate-stderr ai-ask -n --provider anthropic --schema schema.json "Invent a good dog"
	[ "$status" -eq 4 ]
	[ "$stderr" = 'ai-ask: the answer does not follow the schema: $.age: is an integer, not of type string' ]
	jq -e '.name == "Buddy" and .age == 3' <<<"$output"
}

@test "--schema: a schema whose keywords are not of their kind is refused before any request: 65" {
	while IFS='|' read -r schema want; do
		printf '%s\n' "$schema" > schema.json
		run --separate-stderr ai-ask -n --schema schema.json "go"
		[ "$status" -eq 65 ] || { echo "$schema: $status"; false; }
		[ "$stderr" = "ai-ask: schema file 'schema.json': $want" ] || { echo "$schema: $stderr"; false; }
	done <<'EOF2'
{"type":"object","required":"name"}|$: "required" must be an array of strings
{"type":"object","properties":{"a":{"type":"strng"}}}|$.properties.a: "type" must name types among object, array, string, number, integer, boolean and null
{"type":"object","properties":{"a":{"type":"array","items":{"minItems":-1}}}}|$.properties.a.items: "minItems" must be a whole number >= 0
{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}|$.properties.a: "$ref" '#/$defs/none' leads nowhere in the schema
{"type":"object","properties":{"a":{"pattern":"(unclosed"}}}|$.properties.a: "pattern" '(unclosed' is not a regular expression ai-ask can read
{"type":"object","properties":{"a":{"pattern":"^]+++++++[A-Z]{3}$"}}}|$.properties.a: "pattern" '^]+++++++[A-Z]{3}$' is not a regular expression ai-ask can read
{"type":"object","properties":{"a":{"pattern":"a{2000}"}}}|$.properties.a: "pattern" 'a{2000}' is not a regular expression ai-ask can read
{"type":"object","anyOf":{"type":"string"}}|$: "anyOf" must be an array of schemas
{"type":"object","properties":{"n":{"multipleOf":0}}}|$.properties.n: "multipleOf" must be a number above 0
EOF2
	[ "$(mock_count)" -eq 0 ]
}

# ---- cut streams ----

# cut ROUTE FAULT [THEN]: the route's first answer has the fault; the next
# is THEN (default: the route's default capture).
cut() {
	mock_script "{\"routes\":{\"$1\":[$2,${3:-{\}}]}}"
}

@test "a stream cut inside its first event is retried, for every provider and framing" {
	while IFS='|' read -r provider route; do
		# cut in the first event, at its first byte, and (before any text: not Ollama, whose
		# every line has text) in the second
		faults='{"cut_mid_event":1} {"cut_after_bytes":1}'
		[ "$provider" = ollama ] || faults="$faults {\"cut_mid_event\":2}"
		for fault in $faults; do
			cut "$route" "$fault"
			run --separate-stderr ai-ask -n --provider "$provider" "hi"
			[ "$status" -eq 0 ] || { echo "$provider $fault: $status $stderr"; false; }
			[ -n "$output" ]
			[ -z "$stderr" ]
			[ "$(mock_count)" -eq 2 ] || { echo "$provider $fault: $(mock_count) requests"; false; }
		done
	done <<'EOF2'
openai|POST /v1/responses
openai-chat|POST /v1/chat/completions
anthropic|POST /v1/messages
ollama|POST /api/chat
EOF2
}

@test "with --json nothing is written before the end: a cut anywhere is retried, the answer whole" {
	want=$(ai-ask -n --json --provider openai-chat "hi")
	for fault in '{"cut_mid_event":5}' '{"cut_after_bytes":3000}' '{"malformed_chunk":true}'; do
		mock_script "{\"routes\":{\"POST /v1/chat/completions\":[$(jq -c '. + {file: "openai/chat_completions_stream_text_include_usage.sse", content_type: "text/event-stream"}' <<<"$fault"),{\"file\":\"openai/chat_completions_stream_text_include_usage.sse\",\"content_type\":\"text/event-stream\"}]}}"
		run --separate-stderr ai-ask -n --json --provider openai-chat "hi"
		[ "$status" -eq 0 ] || { echo "$fault: $status $stderr"; false; }
		jq -e -s '.[0].type == "message" and (.[0].content | length) > 50' <<<"$output"
		[ "$(mock_count)" -eq 2 ]
	done
	# a whole JSON body cut short, with a clean close
	mock_script '{"routes":{"POST /v1/responses":[{"file":"openai/responses_nonstream_text.json","cut_after_bytes":700},{}]}}'
	run --separate-stderr ai-ask -n --json "hi"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	jq -e '.type == "message" and .content == "pong"' <<<"${lines[0]}"
}

@test "a stream cut after text reached stdout is not retried: the text stays, exit 76" {
	mock_script '{"routes":{"POST /v1/chat/completions":[{"file":"openai/chat_completions_stream_text_include_usage.sse","content_type":"text/event-stream","cut_mid_event":6},{}]}}'
	run --separate-stderr ai-ask -n --provider openai-chat "hi"
	[ "$status" -eq 76 ]
	[ -n "$output" ]
	[ "$(mock_count)" -eq 1 ]
	[[ "$stderr" == "ai-ask: "*"$(SVC)"* ]]
}

@test "a stream cut every time: the attempts run out, the cut is named, exit 76" {
	mock_script '{"routes":{"POST /v1/responses":[{"cut_mid_event":1}]},"repeat_last":true}'
	run --separate-stderr ai-ask -n --retries 1 "hi"
	[ "$status" -eq 76 ]
	[ -z "$output" ]
	[ "$(mock_count)" -eq 2 ]
	[[ "$stderr" == "ai-ask: "*"$(SVC)"* ]]
	[[ "$stderr" == *"cut short"* || "$stderr" == *"broke"* || "$stderr" == *"stopped inside"* ]]
}

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

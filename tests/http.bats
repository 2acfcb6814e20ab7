#!/usr/bin/env bats
# lib/http.c, lib/sse.c and lib/lines.c against the mock server, through the
# test driver tests/helpers/aicli-http (one request, exactly as a tool makes it).

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env

setup_file() { mock_start; }
teardown_file() { mock_stop; }
setup() {
	mock_reset
	HTTP="$BATS_TEST_DIRNAME/helpers/aicli-http"
	clean_env
}

# seconds since the epoch with milliseconds
now() { date +%s.%N; }
elapsed_ms() { echo "$1 $2" | awk '{ printf "%d", ($2 - $1) * 1000 }'; }

@test "an SSE stream is parsed into the same events as the recorded capture holds" {
	run "$HTTP" --sse --post '{"stream":true}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 0 ]
	want=$(grep -c '^event:' "$MOCK_FIXTURES/openai/responses_stream_text.sse")
	[ "${#lines[@]}" -eq "$want" ]
	[[ "${lines[0]}" == 'response.created|{"type":"response.created",'* ]]
	[[ "${lines[-1]}" == 'response.completed|'* ]]
}

@test "Anthropic SSE with padded data lines parses into one event per event: line" {
	run "$HTTP" --sse --post '{"stream":true}' "$MOCK_URL/v1/messages"
	[ "$status" -eq 0 ]
	want=$(grep -c '^event:' "$MOCK_FIXTURES/anthropic/messages_stream_text.sse")
	[ "${#lines[@]}" -eq "$want" ]
	[[ "${lines[0]}" == 'message_start|'* ]]
}

@test "an NDJSON stream (Ollama) arrives line by line, each line valid JSON" {
	run "$HTTP" --ndjson --post '{}' "$MOCK_URL/api/chat"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq "$(wc -l < "$MOCK_FIXTURES/ollama/chat_stream.ndjson")" ]
	[[ "${lines[-1]}" == *'"done":true'* ]]
}

@test "a dripped stream is handed on piece by piece, before the stream ends" {
	mock_script '{"routes":{"POST /v1/responses":[{"file":"openai/responses_stream_text.sse","drip_ms":300}]}}'
	out="$BATS_TEST_TMPDIR/out"
	"$HTTP" --sse --post '{}' "$MOCK_URL/v1/responses" > "$out" &
	pid=$!
	sleep 1
	# after one second, some events (but not all) are already out
	n=$(wc -l < "$out")
	total=$(grep -c '^event:' "$MOCK_FIXTURES/openai/responses_stream_text.sse")
	wait "$pid"
	[ "$n" -ge 1 ]
	[ "$n" -lt "$total" ]
	[ "$(wc -l < "$out")" -eq "$total" ]
}

@test "429 with Retry-After is retried after the wait, then succeeds" {
	mock_script '{"routes":{"GET /customsearch/v1":[
		{"status":429,"headers":{"Retry-After":"1"},"json":{"error":{"message":"slow down"}}},{}]}}'
	t0=$(now)
	run "$HTTP" "$MOCK_URL/customsearch/v1?q=x"
	t1=$(now)
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	[ "$(elapsed_ms "$t0" "$t1")" -ge 1000 ]
	[[ "$output" == *'"kind": "customsearch#search"'* ]]
}

@test "429 with a Retry-After past the deadline gives up at once with the rate-limit code" {
	mock_script '{"routes":{"GET /customsearch/v1":[{"status":429,"headers":{"Retry-After":"120"},
		"json":{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}}]}}'
	t0=$(now)
	run "$HTTP" --timeout 5000 "$MOCK_URL/customsearch/v1?q=x"
	t1=$(now)
	[ "$status" -eq 75 ]
	[ "$(mock_count)" -eq 1 ]
	[ "$(elapsed_ms "$t0" "$t1")" -lt 2000 ]
	[[ "$output" == *"rate limited by '127.0.0.1:$MOCK_PORT' (HTTP 429); retry after 120 s: RESOURCE_EXHAUSTED: Quota exceeded"* ]]
}

@test "repeated 500s give up after the attempt cap with the unavailable code and the body's message" {
	mock_script '{"repeat_last":true,"routes":{"POST /v1/responses":[{"status":500,"json":{"error":{"message":"boom","type":"server_error"}}}]}}'
	run "$HTTP" --attempts 3 --backoff 50 --post '{}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 69 ]
	[ "$(mock_count)" -eq 3 ]
	[ "$output" = "aicli-http: '127.0.0.1:$MOCK_PORT' answered HTTP 500 after 3 attempts: server_error: boom" ]
}

@test "retries stop at the total deadline even with attempts left" {
	mock_script '{"repeat_last":true,"routes":{"POST /v1/responses":[{"status":503,"body":"busy"}]}}'
	t0=$(now)
	run "$HTTP" --attempts 20 --backoff 400 --timeout 1500 --post '{}' "$MOCK_URL/v1/responses"
	t1=$(now)
	[ "$status" -eq 69 ]
	[ "$(elapsed_ms "$t0" "$t1")" -lt 2500 ]
	[ "$(mock_count)" -lt 20 ]
	[[ "$output" == *"answered HTTP 503"*": busy" ]]
}

@test "529 (Anthropic overloaded) is retried" {
	mock_script '{"routes":{"POST /v1/messages":[{"status":529,"json":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}},{}]}}'
	run "$HTTP" --backoff 50 --post '{}' "$MOCK_URL/v1/messages"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
}

@test "401 is not retried: the key was refused, configuration code, the provider's message" {
	mock_script '{"routes":{"POST /v1/messages":[{"status":401,"file":"anthropic/messages_error_401_authentication_error.json"}]}}'
	run "$HTTP" --post '{}' "$MOCK_URL/v1/messages"
	[ "$status" -eq 78 ]
	[ "$(mock_count)" -eq 1 ]
	[ "$output" = "aicli-http: '127.0.0.1:$MOCK_PORT' refused the API key (HTTP 401): authentication_error: invalid x-api-key" ]
}

@test "OpenAI's 401 body is shown with the key it echoes redacted" {
	mock_script '{"routes":{"POST /v1/responses":[{"status":401,"file":"openai/responses_error_401_invalid_api_key.json"}]}}'
	run "$HTTP" --post '{}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 78 ]
	[[ "$output" == *"refused the API key (HTTP 401): invalid_request_error: Incorrect API key provided"* ]]
}

@test "400 is a rejected request: bad-input code, no retry" {
	mock_script '{"routes":{"POST /v1/messages":[{"status":400,"file":"anthropic/messages_error_400_invalid_request_error.json"}]}}'
	run "$HTTP" --post '{}' "$MOCK_URL/v1/messages"
	[ "$status" -eq 65 ]
	[ "$(mock_count)" -eq 1 ]
	[[ "$output" == *"answered HTTP 400: invalid_request_error: messages.0: Input does not match the expected shape." ]]
}

@test "an error body is never streamed to the consumer" {
	mock_script '{"routes":{"POST /v1/responses":[{"status":400,"body":"data: not an event\n\n"}]}}'
	run --separate-stderr "$HTTP" --sse --post '{}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 65 ]
	[ -z "$output" ]
}

@test "a slow first byte inside the deadline is waited for" {
	mock_script '{"routes":{"GET /res/v1/web/search":[{"delay_ms":700}]}}'
	run "$HTTP" --timeout 3000 "$MOCK_URL/res/v1/web/search?q=1"
	[ "$status" -eq 0 ]
}

@test "a first byte later than the deadline: timeout code, within the deadline" {
	mock_script '{"routes":{"GET /res/v1/web/search":[{"delay_ms":5000}]}}'
	t0=$(now)
	run "$HTTP" --timeout 800 "$MOCK_URL/res/v1/web/search?q=1"
	t1=$(now)
	[ "$status" -eq 75 ]
	[ "$(elapsed_ms "$t0" "$t1")" -lt 2000 ]
	[ "$output" = "aicli-http: '127.0.0.1:$MOCK_PORT' did not answer within 800 ms" ]
}

@test "an idle stream (a drip slower than the idle timeout) stops with the timeout code" {
	mock_script '{"routes":{"POST /v1/responses":[{"file":"openai/responses_stream_text.sse","drip_ms":2500}]}}'
	t0=$(now)
	run --separate-stderr "$HTTP" --sse --idle 700 --post '{}' "$MOCK_URL/v1/responses"
	t1=$(now)
	[ "$status" -eq 75 ]
	[ "$(elapsed_ms "$t0" "$t1")" -lt 2400 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$stderr" = "aicli-http: no data from '127.0.0.1:$MOCK_PORT' for 700 ms" ]
	[ "$(mock_count)" -eq 1 ]
}

@test "a stream cut mid-event: the complete events are delivered, then a protocol error" {
	mock_script '{"routes":{"POST /v1/responses":[{"file":"openai/responses_stream_text.sse","cut_mid_event":3}]}}'
	run --separate-stderr "$HTTP" --sse --post '{}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 76 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "$stderr" == *"the connection to '127.0.0.1:$MOCK_PORT' broke in the middle of the response"* ]]
	[ "$(mock_count)" -eq 1 ]
}

@test "an answer cut short before anything was passed on is retried, then a protocol error" {
	mock_script '{"repeat_last":true,"routes":{"GET /customsearch/v1":[{"cut_after_bytes":300}]}}'
	run --separate-stderr "$HTTP" --buffer --attempts 2 --backoff 50 "$MOCK_URL/customsearch/v1"
	[ "$status" -eq 76 ]
	[ "$(mock_count)" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "aicli-http: the answer from '127.0.0.1:$MOCK_PORT' was cut short: transfer closed with "*"(after several attempts)" ]]
}

@test "a malformed chunk in a stream is a protocol error, not retried once data went out" {
	mock_script '{"routes":{"POST /v1/responses":[{"file":"openai/responses_stream_text.sse","malformed_chunk":true}]}}'
	run --separate-stderr "$HTTP" --sse --post '{}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 76 ]
	[ "$(mock_count)" -eq 1 ]
}

@test "a body over the size cap stops with a protocol error naming the limit" {
	mock_script '{"routes":{"GET /customsearch/v1":[{"oversize_bytes":50000,"chunked":true}]}}'
	run --separate-stderr "$HTTP" --max-bytes 10000 "$MOCK_URL/customsearch/v1"
	[ "$status" -eq 76 ]
	[ "$stderr" = "aicli-http: the response from '127.0.0.1:$MOCK_PORT' is larger than the limit of 10000 bytes" ]
	[ "${#output}" -le 10000 ]
}

@test "a connection reset is retried, then reported as unavailable" {
	mock_script '{"repeat_last":true,"routes":{"GET /customsearch/v1":[{"reset":true}]}}'
	run "$HTTP" --attempts 2 --backoff 50 "$MOCK_URL/customsearch/v1"
	[ "$status" -eq 69 ]
	[ "$(mock_count)" -eq 2 ]
	[[ "$output" == "aicli-http: cannot reach '127.0.0.1:$MOCK_PORT': "* ]]
}

@test "a refused connection is unavailable" {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	run "$HTTP" --attempts 2 --backoff 50 "http://127.0.0.1:$port/x"
	[ "$status" -eq 69 ]
	[[ "$output" == "aicli-http: cannot reach '127.0.0.1:$port': "*"(after several attempts)" ]]
}

@test "redirects: not followed by default, followed when allowed, refused off the allowlist" {
	mock_script '{"routes":{"GET /old":[{"status":302,"headers":{"Location":"/customsearch/v1"}}]}}'
	run "$HTTP" "$MOCK_URL/old"
	[ "$status" -eq 76 ]
	[[ "$output" == *"answered with a redirect (HTTP 302), which is not followed" ]]

	mock_script '{"routes":{"GET /old":[{"status":302,"headers":{"Location":"/customsearch/v1"}}]}}'
	run "$HTTP" --redirects 3 --allow "$MOCK_URL/customsearch/" "$MOCK_URL/old"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]

	mock_script '{"routes":{"GET /old":[{"status":301,"headers":{"Location":"http://169.254.169.254/latest"}}]}}'
	run "$HTTP" --redirects 3 --allow "$MOCK_URL/" "$MOCK_URL/old"
	[ "$status" -eq 77 ]
	[ "$output" = "aicli-http: redirect to 'http://169.254.169.254/latest' is not allowed" ]
	[ "$(mock_count)" -eq 1 ]
}

@test "redirect loops stop at the redirect cap" {
	mock_script '{"repeat_last":true,"routes":{"GET /loop":[{"status":302,"headers":{"Location":"/loop"}}]}}'
	run "$HTTP" --redirects 3 --allow "$MOCK_URL/" "$MOCK_URL/loop"
	[ "$status" -eq 76 ]
	[[ "$output" == *"more than 3 redirects" ]]
	[ "$(mock_count)" -eq 4 ]
}

@test "only http and https: other schemes are refused before any connection" {
	run "$HTTP" "file:///etc/passwd"
	[ "$status" -eq 65 ]
	[ "$output" = "aicli-http: bad URL: only http and https URLs are supported" ]
	run "$HTTP" "gopher://127.0.0.1:$MOCK_PORT/"
	[ "$status" -eq 65 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "verbose tracing redacts Authorization, x-api-key and key query parameters" {
	run "$HTTP" -v -H "Authorization: Bearer sk-live-abcdefghijklmnop" -H "x-api-key: ant-secret-123456" \
		-H "X-Subscription-Token: brave-tok-123456" "$MOCK_URL/customsearch/v1?key=AIzaSecretValue1234&q=x"
	[ "$status" -eq 0 ]
	[[ "$output" == *"> Authorization: [REDACTED]"* ]]
	[[ "$output" == *"> x-api-key: [REDACTED]"* ]]
	[[ "$output" == *"> X-Subscription-Token: [REDACTED]"* ]]
	[[ "$output" == *"key=[REDACTED]&q=x"* ]]
	[[ "$output" != *"sk-live"* && "$output" != *"ant-secret"* && "$output" != *"brave-tok"* && "$output" != *"AIzaSecret"* ]]
	# the headers did reach the server
	mock_request 1 | jq -e '.headers.authorization == "Bearer sk-live-abcdefghijklmnop"'
}

@test "requests carry the aicli user agent and no Expect: 100-continue" {
	big=$(head -c 5000 /dev/zero | tr '\0' 'a')
	run "$HTTP" --post "{\"x\":\"$big\"}" "$MOCK_URL/v1/chat/completions"
	[ "$status" -eq 0 ]
	v=$(sed -n 's/^VERSION *= *//p' "$BATS_TEST_DIRNAME/../Makefile")
	mock_request 1 | jq -e --arg ua "aicli/$v" '.headers["user-agent"] == $ua and (.headers | has("expect") | not)'
	mock_request 1 | jq -e '.json.x | length == 5000'
}

@test "a reader that goes away ends the process quietly, as coreutils do" {
	# dripped, so that lines are still coming after head has gone (all at once,
	# the whole stream may fit into the pipe before head exits)
	mock_script '{"routes":{"POST /api/chat":[{"file":"ollama/chat_stream.ndjson","drip_ms":20}]}}'
	run bash -c "set -o pipefail; '$HTTP' --ndjson --post '{}' '$MOCK_URL/api/chat' | head -n 1"
	[ "$status" -eq 141 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == '{"model":"llama3"'* ]]
}

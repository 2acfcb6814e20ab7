#!/usr/bin/env bats
# Tests of the loopback mock API server (tests/mock/mock.py) and its bats helpers,
# with curl as the client.  Nothing here leaves 127.0.0.1.

load helpers/mock

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	EXTRA_PIDS=""
}

teardown() {
	local p
	for p in $EXTRA_PIDS; do
		kill -KILL "$p" 2>/dev/null || true
	done
}

# curl as a test client: no proxy, bounded time, errors on stderr.
mcurl() {
	env -u http_proxy -u https_proxy -u HTTP_PROXY -u HTTPS_PROXY -u ALL_PROXY -u all_proxy \
		curl --noproxy '*' --silent --show-error --max-time 10 "$@"
}

# expect_fixture METHOD PATH JSON_BODY STATUS CONTENT_TYPE FIXTURE
# The response has this status and content type, and its body is byte-identical to FIXTURE.
expect_fixture() {
	local out="$BATS_TEST_TMPDIR/body" args=(-X "$1" -o "$BATS_TEST_TMPDIR/body" -w '%{http_code} %{content_type}')
	[ -z "$3" ] || args+=(-H 'Content-Type: application/json' --data-binary "$3")
	run mcurl "${args[@]}" "$MOCK_URL$2"
	[ "$status" -eq 0 ] || { echo "curl exit $status: $output"; return 1; }
	[ "$output" = "$4 $5" ] || { echo "got '$output', want '$4 $5'"; return 1; }
	cmp "$out" "$MOCK_FIXTURES/$6"
}

# at_least A B: A >= B, as decimal numbers.
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# size FILE: byte count.
size() { wc -c <"$1" | tr -d ' '; }

# --- fixtures -----------------------------------------------------------------

@test "every fixture file matches the sha256 recorded for it in tests/fixtures/SOURCES.md" {
	run python3 - "$MOCK_FIXTURES" <<'EOF'
import hashlib, os, re, sys
root = sys.argv[1]
text = open(os.path.join(root, "SOURCES.md"), encoding="utf-8").read()
recorded = {}
for section in re.split(r"^### ", text, flags=re.M)[1:]:
    name = section.split("\n", 1)[0].strip()
    m = re.search(r"sha256 ([0-9a-f]{64})", section)
    recorded[name] = m.group(1) if m else None
bad = 0
for d in sorted(os.listdir(root)):
    if not os.path.isdir(os.path.join(root, d)):
        continue
    for f in sorted(os.listdir(os.path.join(root, d))):
        rel = d + "/" + f
        digest = hashlib.sha256(open(os.path.join(root, rel), "rb").read()).hexdigest()
        if recorded.get(rel) != digest:
            print("%s: sha256 %s, SOURCES.md says %s" % (rel, digest, recorded.get(rel)))
            bad += 1
sys.exit(1 if bad else 0)
EOF
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the constructed SearXNG fixture has the format=json fields, 12+ results, dates and HTML entities" {
	f="$MOCK_FIXTURES/search/searxng_search_response.json"
	run jq -e '
		(keys | sort) == (["answers","corrections","infoboxes","number_of_results","query","results","suggestions","unresponsive_engines"])
		and (.results | length >= 12)
		and all(.results[]; has("url") and has("title") and has("content") and has("engine") and has("engines")
			and has("positions") and has("score") and has("category") and has("parsed_url") and has("template"))
		and any(.results[]; .publishedDate != null)
		and any(.results[]; has("publishedDate") and .publishedDate == null)
		and any(.results[]; (.title + .content) | contains("&amp;"))' "$f"
	[ "$status" -eq 0 ]
}

# --- default routes: the real captures ----------------------------------------

@test "POST /v1/responses with stream:true serves the recorded OpenAI Responses SSE stream" {
	expect_fixture POST /v1/responses '{"model":"m","stream":true}' 200 text/event-stream openai/responses_stream_text.sse
}

@test "POST /v1/responses without stream serves the recorded OpenAI Responses JSON" {
	expect_fixture POST /v1/responses '{"model":"m"}' 200 application/json openai/responses_nonstream_text.json
}

@test "any POST path ending in /responses is the Responses API (custom base URL)" {
	expect_fixture POST /proxy/openai/v1/responses '{"stream":true}' 200 text/event-stream openai/responses_stream_text.sse
}

@test "POST /v1/chat/completions with stream:true serves the recorded Chat Completions SSE with usage" {
	expect_fixture POST /v1/chat/completions '{"stream":true,"stream_options":{"include_usage":true}}' \
		200 text/event-stream openai/chat_completions_stream_text_include_usage.sse
}

@test "POST /v1/chat/completions with stream:false serves the recorded Chat Completions JSON" {
	expect_fixture POST /v1/chat/completions '{"stream":false}' 200 application/json openai/chat_completions_nonstream_text.json
}

@test "POST /v1/messages with stream:true serves the recorded Anthropic Messages SSE stream" {
	expect_fixture POST /v1/messages '{"stream":true}' 200 text/event-stream anthropic/messages_stream_text.sse
}

@test "POST /v1/messages without stream serves the recorded Anthropic Messages JSON" {
	expect_fixture POST /v1/messages '{"max_tokens":5}' 200 application/json anthropic/messages_nonstream_text.json
}

@test "POST /api/chat without a stream field streams the recorded Ollama NDJSON, as Ollama does" {
	expect_fixture POST /api/chat '{"model":"llama3"}' 200 application/x-ndjson ollama/chat_stream.ndjson
}

@test "POST /api/chat with stream:false serves the recorded Ollama JSON with tool calls" {
	expect_fixture POST /api/chat '{"model":"llama3.1","stream":false}' 200 application/json ollama/chat_nonstream_tool_calls.json
}

@test "POST .../models/M:generateContent and :streamGenerateContent serve the recorded Gemini JSON" {
	expect_fixture POST '/v1beta/models/gemini-2.5-pro:generateContent' '{}' 200 application/json gemini/generate_content_text.json
	expect_fixture POST '/v1beta/models/gemini-flash-latest:streamGenerateContent' '{}' 200 application/json gemini/stream_generate_content_text.json
	expect_fixture POST '/v1beta/models/gemini-flash-latest:streamGenerateContent?alt=sse' '{}' 200 text/event-stream gemini/stream_generate_content_text_sse.sse
}

@test "GET /customsearch/v1 serves the recorded Google Custom Search response" {
	expect_fixture GET '/customsearch/v1?key=k&cx=c&q=test' '' 200 application/json search/google_customsearch_v1_response.json
}

@test "GET /res/v1/web/search serves the recorded Brave Search response" {
	expect_fixture GET '/res/v1/web/search?q=1' '' 200 application/json search/brave_web_search_response.json
}

@test "GET /search?format=json serves the SearXNG fixture" {
	expect_fixture GET '/search?q=curl&format=json' '' 200 application/json search/searxng_search_response.json
}

@test "GET /search without format=json is refused with 403, as SearXNG does for a format it does not serve" {
	run mcurl -o /dev/null -w '%{http_code}' "$MOCK_URL/search?q=curl"
	[ "$output" = 403 ]
	run mcurl -o /dev/null -w '%{http_code}' "$MOCK_URL/search?q=curl&format=csv"
	[ "$output" = 403 ]
}

@test "POST /search serves the recorded Tavily response" {
	expect_fixture POST /search '{"query":"What is Pydantic AI?"}' 200 application/json search/tavily_search_response.json
}

@test "POST /search with an x-api-key header (Exa's) serves Exa's documented response" {
	local out="$BATS_TEST_TMPDIR/body"
	run mcurl -X POST -H 'x-api-key: k' -H 'Content-Type: application/json' --data-binary '{"query":"q"}' \
		-o "$out" -w '%{http_code} %{content_type}' "$MOCK_URL/search"
	[ "$output" = "200 application/json" ]
	cmp "$out" "$MOCK_FIXTURES/search/exa_search_response.json"
}

@test "an unknown route answers 404 with a JSON error naming method and path" {
	run mcurl -w ' %{http_code}' "$MOCK_URL/v2/nothing?x=1"
	[ "$output" = '{"error":{"message":"mock: no route for GET /v2/nothing"}} 404' ]
	run mcurl -w ' %{http_code}' -X DELETE "$MOCK_URL/v1/responses"
	[ "$output" = '{"error":{"message":"mock: no route for DELETE /v1/responses"}} 404' ]
}

# --- scripts ------------------------------------------------------------------

@test "a script gives the Nth response to the Nth request of a route, then 404 once exhausted" {
	mock_script '{"routes": {"GET /customsearch/v1": [
		{"body": "one"}, {"status": 500, "body": "two"}, {"body": "three"}]}}'
	run mcurl -w ' %{http_code}' "$MOCK_URL/customsearch/v1?q=a"
	[ "$output" = "one 200" ]
	run mcurl -w ' %{http_code}' "$MOCK_URL/customsearch/v1?q=b"
	[ "$output" = "two 500" ]
	run mcurl -w ' %{http_code}' "$MOCK_URL/customsearch/v1"
	[ "$output" = "three 200" ]
	run mcurl -w ' %{http_code}' "$MOCK_URL/customsearch/v1"
	[ "$output" = '{"error":{"message":"mock: script exhausted for GET /customsearch/v1 (request 4)"}} 404' ]
}

@test "repeat_last serves the last response again once a route's list is exhausted" {
	mock_script '{"repeat_last": true, "routes": {"POST /v1/messages": [{"body": "a"}, {"body": "b"}]}}'
	for want in a b b b; do
		run mcurl -d '{}' "$MOCK_URL/v1/messages"
		[ "$output" = "$want" ]
	done
}

@test "a route not in the script keeps its default response; a scripted RESP without a body uses the default fixture" {
	mock_script '{"routes": {"POST /v1/chat/completions": [{"status": 201}]}}'
	expect_fixture POST /v1/messages '{}' 200 application/json anthropic/messages_nonstream_text.json
	expect_fixture POST /v1/chat/completions '{"stream":true}' 201 text/event-stream openai/chat_completions_stream_text_include_usage.sse
}

@test "RESP body sources: fixture file, inline text, inline JSON (compact), with content_type override" {
	mock_script '{"routes": {"POST /x": [
		{"file": "anthropic/messages_error_401_authentication_error.json", "status": 401},
		{"body": "plain words"},
		{"json": {"a": [1, 2], "b": "é"}},
		{"body": "data: {}\n\n", "content_type": "text/event-stream"}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b1" -w '%{http_code} %{content_type}' -d '{}' "$MOCK_URL/x"
	[ "$output" = "401 application/json" ]
	cmp "$BATS_TEST_TMPDIR/b1" "$MOCK_FIXTURES/anthropic/messages_error_401_authentication_error.json"
	run mcurl -w ' %{content_type}' -d '{}' "$MOCK_URL/x"
	[ "$output" = "plain words text/plain" ]
	run mcurl -w ' %{content_type}' -d '{}' "$MOCK_URL/x"
	[ "$output" = '{"a":[1,2],"b":"é"} application/json' ]
	run mcurl -D "$BATS_TEST_TMPDIR/h" -w '%{content_type}' -o /dev/null -d '{}' "$MOCK_URL/x"
	[ "$output" = "text/event-stream" ]
	grep -qi '^transfer-encoding: chunked' "$BATS_TEST_TMPDIR/h"
}

@test "a bad script is refused with 400 naming the problem, and the previous script stays in force" {
	mock_script '{"routes": {"GET /a": [{"body": "kept"}]}}'
	run mock_script '{"routes": {"GET /a": [{"bdy": "typo"}]}}'
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown field 'bdy'"* ]]
	run mock_script '{"routes": {"GET /a?q=1": []}}'
	[[ "$output" == *"no query string"* ]]
	run mock_script '{"routes": {"GET /a": [{"file": "no/such.json"}]}}'
	[[ "$output" == *"no such fixture file"* ]]
	run mcurl "$MOCK_URL/a"
	[ "$output" = kept ]
}

@test "mock_script_file loads a script from a file" {
	printf '%s' '{"routes": {"POST /search": [{"json": {"from": "file"}}]}}' >"$BATS_TEST_TMPDIR/s.json"
	mock_script_file "$BATS_TEST_TMPDIR/s.json"
	run mcurl -d '{}' "$MOCK_URL/search"
	[ "$output" = '{"from":"file"}' ]
}

# --- the request log ----------------------------------------------------------

@test "the request log records n, route_n, method, path, query, headers, body and parsed JSON" {
	mcurl -o /dev/null -H 'Authorization: Bearer sk-test' -H 'Content-Type: application/json' \
		-d '{"model":"m","input":"hi"}' "$MOCK_URL/v1/responses"
	mcurl -o /dev/null "$MOCK_URL/customsearch/v1?q=test&num=10&empty="
	mcurl -o /dev/null -d '{"stream":false}' "$MOCK_URL/v1/responses"
	[ "$(mock_count)" -eq 3 ]
	run mock_request 1
	echo "$output" | jq -e '.n == 1 and .route_n == 1 and .method == "POST" and .path == "/v1/responses"
		and .query == {} and .headers.authorization == "Bearer sk-test"
		and .headers["content-type"] == "application/json"
		and .body == "{\"model\":\"m\",\"input\":\"hi\"}" and .json == {"model":"m","input":"hi"}'
	mock_request 2 | jq -e '.n == 2 and .route_n == 1 and .method == "GET" and .path == "/customsearch/v1"
		and .query == {"q":["test"],"num":["10"],"empty":[""]} and .body == "" and .json == null'
	mock_request 3 | jq -e '.n == 3 and .route_n == 2'
	[ "$(mock_requests | wc -l)" -eq 3 ]
	run mock_request 4
	[ "$status" -eq 1 ]
}

@test "control requests are not logged; mock_script empties the log and restarts the counters" {
	mcurl -o /dev/null "$MOCK_URL/__mock/health"
	mcurl -o /dev/null "$MOCK_URL/__mock/requests"
	[ "$(mock_count)" -eq 0 ]
	mcurl -o /dev/null -d '{}' "$MOCK_URL/v1/messages"
	mcurl -o /dev/null -d '{}' "$MOCK_URL/v1/messages"
	[ "$(mcurl "$MOCK_URL/__mock/requests" | wc -l)" -eq 2 ]
	mock_script '{"routes": {}}'
	[ "$(mock_count)" -eq 0 ]
	mcurl -o /dev/null -d '{}' "$MOCK_URL/v1/messages"
	mock_request 1 | jq -e '.n == 1 and .route_n == 1'
}

@test "chunked request bodies and Expect: 100-continue bodies are read and logged in full" {
	head -c 5000 "$MOCK_FIXTURES/ollama/chat_stream.ndjson" >"$BATS_TEST_TMPDIR/req"
	mcurl -o /dev/null -H 'Transfer-Encoding: chunked' --data-binary @"$BATS_TEST_TMPDIR/req" "$MOCK_URL/v1/chat/completions"
	run mcurl -o /dev/null -w '%{time_total}' -H 'Expect: 100-continue' --data-binary @"$BATS_TEST_TMPDIR/req" "$MOCK_URL/v1/chat/completions"
	# curl waits 1 s for "100 Continue" before sending anyway; the mock answers at once
	! at_least "$output" 0.9
	mock_request 1 | jq -e '.headers["transfer-encoding"] == "chunked"'
	mock_request 1 | jq -j .body | cmp - "$BATS_TEST_TMPDIR/req"
	mock_request 2 | jq -e '.headers.expect == "100-continue"'
	mock_request 2 | jq -j .body | cmp - "$BATS_TEST_TMPDIR/req"
}

# --- faults -------------------------------------------------------------------

@test "any status with any body and extra headers: 429 with Retry-After, 529 with an HTML body" {
	mock_script '{"routes": {"POST /v1/messages": [
		{"status": 429, "headers": {"Retry-After": "2"}, "json": {"error": {"type": "rate_limit"}}},
		{"status": 529, "body": "<html>overloaded</html>", "content_type": "text/html"}]}}'
	run mcurl -D "$BATS_TEST_TMPDIR/h" -w ' %{http_code}' -d '{}' "$MOCK_URL/v1/messages"
	[ "$output" = '{"error":{"type":"rate_limit"}} 429' ]
	grep -q $'^Retry-After: 2\r$' "$BATS_TEST_TMPDIR/h"
	run mcurl -w ' %{http_code} %{content_type}' -d '{}' "$MOCK_URL/v1/messages"
	[ "$output" = '<html>overloaded</html> 529 text/html' ]
}

@test "delay_ms holds back the first byte (status line included) for at least the delay" {
	mock_script '{"routes": {"POST /v1/responses": [{"delay_ms": 400}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b" -w '%{time_starttransfer}' -d '{}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 0 ]
	at_least "$output" 0.4
	cmp "$BATS_TEST_TMPDIR/b" "$MOCK_FIXTURES/openai/responses_nonstream_text.json"
}

@test "drip_ms sends SSE events one at a time, spread out over time, bytes unchanged" {
	# responses_stream_text.sse has 9 events: 8 pauses of 100 ms after the first byte
	mock_script '{"routes": {"POST /v1/responses": [{"drip_ms": 100}]}}'
	run mcurl -N -o "$BATS_TEST_TMPDIR/b" -w '%{time_starttransfer} %{time_total}' -d '{"stream":true}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 0 ]
	read -r first total <<<"$output"
	at_least "$total" 0.8
	at_least "$total" "$(awk -v f="$first" 'BEGIN { print f + 0.5 }')" # first byte well before the last
	cmp "$BATS_TEST_TMPDIR/b" "$MOCK_FIXTURES/openai/responses_stream_text.sse"
}

@test "drip_ms on a JSON body sends drip_bytes-sized pieces with the pause between them" {
	# 1584 bytes in 400-byte pieces: 4 pieces, 3 pauses
	mock_script '{"routes": {"POST /v1/responses": [{"drip_ms": 100, "drip_bytes": 400}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b" -w '%{time_total}' -d '{}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 0 ]
	at_least "$output" 0.3
	cmp "$BATS_TEST_TMPDIR/b" "$MOCK_FIXTURES/openai/responses_nonstream_text.json"
}

# expected_cut FILE K: bytes sent by cut_mid_event=K (K-1 whole SSE events or NDJSON lines, then half of the Kth)
expected_cut() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
body, k = open(sys.argv[1], "rb").read(), int(sys.argv[2])
rx = rb"\r?\n\r?\n" if sys.argv[1].endswith(".sse") else rb"\n"
ends = [0] + [m.end() for m in re.finditer(rx, body)]
print(ends[k - 1] + (ends[k] - ends[k - 1]) // 2)
EOF
}

@test "cut_mid_event ends an SSE stream inside event k: curl fails (18) holding a strict prefix" {
	f="$MOCK_FIXTURES/anthropic/messages_stream_text.sse"
	mock_script '{"routes": {"POST /v1/messages": [{"cut_mid_event": 3}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b" -d '{"stream":true}' "$MOCK_URL/v1/messages"
	[ "$status" -eq 18 ] || [ "$status" -eq 56 ]
	want="$(expected_cut "$f" 3)"
	[ "$(size "$BATS_TEST_TMPDIR/b")" -eq "$want" ]
	[ "$want" -lt "$(size "$f")" ]
	cmp -n "$want" "$BATS_TEST_TMPDIR/b" "$f"
}

@test "cut_mid_event ends an NDJSON stream inside line k" {
	f="$MOCK_FIXTURES/ollama/chat_stream.ndjson"
	mock_script '{"routes": {"POST /api/chat": [{"cut_mid_event": 5}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b" -d '{}' "$MOCK_URL/api/chat"
	[ "$status" -eq 18 ] || [ "$status" -eq 56 ]
	want="$(expected_cut "$f" 5)"
	[ "$(size "$BATS_TEST_TMPDIR/b")" -eq "$want" ]
	cmp -n "$want" "$BATS_TEST_TMPDIR/b" "$f"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/b")" -eq 4 ]
}

@test "cut_after_bytes sends exactly N bytes of a Content-Length body, then closes (curl 18)" {
	f="$MOCK_FIXTURES/search/brave_web_search_response.json"
	mock_script '{"routes": {"GET /res/v1/web/search": [{"cut_after_bytes": 1000}]}}'
	run mcurl -D "$BATS_TEST_TMPDIR/h" -o "$BATS_TEST_TMPDIR/b" "$MOCK_URL/res/v1/web/search?q=1"
	[ "$status" -eq 18 ]
	grep -qi "^content-length: $(size "$f")" "$BATS_TEST_TMPDIR/h"
	[ "$(size "$BATS_TEST_TMPDIR/b")" -eq 1000 ]
	cmp -n 1000 "$BATS_TEST_TMPDIR/b" "$f"
}

@test "cut_after_bytes on a chunked stream sends N bytes and no terminating chunk (curl 18)" {
	f="$MOCK_FIXTURES/openai/chat_completions_stream_text_include_usage.sse"
	mock_script '{"routes": {"POST /v1/chat/completions": [{"cut_after_bytes": 777}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b" -d '{"stream":true}' "$MOCK_URL/v1/chat/completions"
	[ "$status" -eq 18 ]
	[ "$(size "$BATS_TEST_TMPDIR/b")" -eq 777 ]
	cmp -n 777 "$BATS_TEST_TMPDIR/b" "$f"
}

@test "malformed inserts a raw piece after the first event, the rest of the stream unchanged" {
	f="$MOCK_FIXTURES/anthropic/messages_stream_text.sse"
	mock_script '{"routes": {"POST /v1/messages": [{"malformed": "data: {not json\n\n"}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b" -d '{"stream":true}' "$MOCK_URL/v1/messages"
	[ "$status" -eq 0 ]
	python3 - "$f" "$BATS_TEST_TMPDIR/want" <<'EOF'
import sys
body = open(sys.argv[1], "rb").read()
end = body.index(b"\n\n") + 2
open(sys.argv[2], "wb").write(body[:end] + b"data: {not json\n\n" + body[end:])
EOF
	cmp "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/want"
}

@test "malformed_chunk breaks the chunked framing mid-stream: curl reports a transfer error" {
	mock_script '{"routes": {"POST /v1/responses": [{"malformed_chunk": true}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b" -d '{"stream":true}' "$MOCK_URL/v1/responses"
	[ "$status" -eq 56 ]
	[[ "$output" == *chunked* ]]
}

@test "oversize_bytes sends N bytes of filler, with Content-Length or chunked" {
	mock_script '{"routes": {"GET /customsearch/v1": [
		{"oversize_bytes": 3000000},
		{"oversize_bytes": 3000000, "chunked": true, "content_type": "application/json"}]}}'
	run mcurl -D "$BATS_TEST_TMPDIR/h1" -o "$BATS_TEST_TMPDIR/b1" "$MOCK_URL/customsearch/v1"
	[ "$status" -eq 0 ]
	[ "$(size "$BATS_TEST_TMPDIR/b1")" -eq 3000000 ]
	[ "$(tr -d x <"$BATS_TEST_TMPDIR/b1" | wc -c)" -eq 0 ]
	grep -qi '^content-length: 3000000' "$BATS_TEST_TMPDIR/h1"
	run mcurl -D "$BATS_TEST_TMPDIR/h2" -o "$BATS_TEST_TMPDIR/b2" "$MOCK_URL/customsearch/v1"
	[ "$status" -eq 0 ]
	[ "$(size "$BATS_TEST_TMPDIR/b2")" -eq 3000000 ]
	grep -qi '^transfer-encoding: chunked' "$BATS_TEST_TMPDIR/h2"
	grep -qi '^content-type: application/json' "$BATS_TEST_TMPDIR/h2"
}

@test "reset closes the connection with a RST and no response at all (curl 56 or 52)" {
	mock_script '{"routes": {"POST /v1/chat/completions": [{"reset": true}]}}'
	run mcurl -o "$BATS_TEST_TMPDIR/b" -d '{}' "$MOCK_URL/v1/chat/completions"
	[ "$status" -eq 56 ] || [ "$status" -eq 52 ]
	[ ! -s "$BATS_TEST_TMPDIR/b" ]
	[ "$(mock_count)" -eq 1 ]
}

@test "wait_for holds a response until another route has been requested, else 504 after 10 s" {
	mock_script '{"routes": {"GET /a": [{"body": "A", "wait_for": "GET /b"}], "GET /b": [{"body": "B", "wait_for": "GET /a"}]}}'
	# each answers only once the other was asked for: both come back when asked together
	_mock_curl "$MOCK_URL/a" > "$BATS_TEST_TMPDIR/a" & pa=$!
	_mock_curl "$MOCK_URL/b" > "$BATS_TEST_TMPDIR/b"
	wait "$pa"
	[ "$(cat "$BATS_TEST_TMPDIR/a")" = A ]
	[ "$(cat "$BATS_TEST_TMPDIR/b")" = B ]
	# asked alone, it gives up
	mock_script '{"routes": {"GET /a": [{"body": "A", "wait_for": "GET /never"}]}}'
	run curl --noproxy '*' -s -w '%{http_code}' --max-time 15 "$MOCK_URL/a"
	[ "$output" = '{"error":{"message":"mock: waited 10 s for GET /never"}}504' ]
}

@test "chunked:false sends a stream with Content-Length; chunked:true sends JSON chunked" {
	mock_script '{"routes": {"POST /v1/messages": [{"chunked": false}, {"chunked": true}]}}'
	run mcurl -D "$BATS_TEST_TMPDIR/h1" -o "$BATS_TEST_TMPDIR/b1" -d '{"stream":true}' "$MOCK_URL/v1/messages"
	grep -qi "^content-length: $(size "$MOCK_FIXTURES/anthropic/messages_stream_text.sse")" "$BATS_TEST_TMPDIR/h1"
	cmp "$BATS_TEST_TMPDIR/b1" "$MOCK_FIXTURES/anthropic/messages_stream_text.sse"
	run mcurl -D "$BATS_TEST_TMPDIR/h2" -o "$BATS_TEST_TMPDIR/b2" -d '{}' "$MOCK_URL/v1/messages"
	grep -qi '^transfer-encoding: chunked' "$BATS_TEST_TMPDIR/h2"
	cmp "$BATS_TEST_TMPDIR/b2" "$MOCK_FIXTURES/anthropic/messages_nonstream_text.json"
}

@test "an HTTP/1.0 client gets a stream with Content-Length, never chunked" {
	run mcurl --http1.0 -D "$BATS_TEST_TMPDIR/h" -o "$BATS_TEST_TMPDIR/b" -d '{"stream":true}' "$MOCK_URL/v1/messages"
	[ "$status" -eq 0 ]
	! grep -qi '^transfer-encoding' "$BATS_TEST_TMPDIR/h"
	cmp "$BATS_TEST_TMPDIR/b" "$MOCK_FIXTURES/anthropic/messages_stream_text.sse"
}

@test "every response carries Connection: close" {
	mcurl -D "$BATS_TEST_TMPDIR/h1" -o /dev/null -d '{"stream":true}' "$MOCK_URL/v1/responses"
	mcurl -D "$BATS_TEST_TMPDIR/h2" -o /dev/null "$MOCK_URL/nowhere"
	mcurl -D "$BATS_TEST_TMPDIR/h3" -o /dev/null "$MOCK_URL/__mock/health"
	grep -qi $'^connection: close\r$' "$BATS_TEST_TMPDIR/h1"
	grep -qi $'^connection: close\r$' "$BATS_TEST_TMPDIR/h2"
	grep -qi $'^connection: close\r$' "$BATS_TEST_TMPDIR/h3"
}

@test "concurrent requests are served in parallel, each logged once" {
	mock_script '{"repeat_last": true, "routes": {"POST /v1/responses": [{"delay_ms": 600}]}}'
	start=$(date +%s%N)
	pids=""
	for i in 1 2 3 4 5 6; do
		mcurl -o "$BATS_TEST_TMPDIR/c$i" -d "{\"i\":$i}" "$MOCK_URL/v1/responses" 3>&- &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p"; done
	elapsed_ms=$((($(date +%s%N) - start) / 1000000))
	echo "6 requests of 600 ms took $elapsed_ms ms"
	[ "$elapsed_ms" -lt 2000 ]
	for i in 1 2 3 4 5 6; do
		cmp "$BATS_TEST_TMPDIR/c$i" "$MOCK_FIXTURES/openai/responses_nonstream_text.json"
	done
	[ "$(mock_requests | jq -s '[.[].n] | sort == [1,2,3,4,5,6]')" = true ]
	[ "$(mock_requests | jq -s '[.[].json.i] | sort == [1,2,3,4,5,6]')" = true ]
}

@test "a client that disconnects mid-stream leaves the mock serving, with no traceback" {
	mock_script '{"routes": {"POST /api/chat": [{"drip_ms": 200}]}}'
	run mcurl --max-time 0.5 -o /dev/null -d '{}' "$MOCK_URL/api/chat"
	[ "$status" -eq 28 ]
	sleep 0.5 # the mock's next write hits the closed socket
	run mcurl "$MOCK_URL/__mock/health"
	[ "$output" = ok ]
	! grep -q Traceback "$MOCK_DIR/stderr"
}

# --- lifetime -----------------------------------------------------------------

@test "the port file holds just the port, and mock_stop leaves no process behind" {
	grep -Eqx '[0-9]+' "$MOCK_DIR/port"
	(
		BATS_FILE_TMPDIR="$BATS_TEST_TMPDIR"
		unset MOCK_PID
		mock_start
		pid=$MOCK_PID
		mcurl -fsS -o /dev/null "$MOCK_URL/__mock/health"
		mock_stop
		! kill -0 "$pid" 2>/dev/null
	)
}

@test "the mock exits by itself after --max-seconds" {
	python3 "$MOCK_PY" --port-file "$BATS_TEST_TMPDIR/port" --max-seconds 1 \
		</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	pid=$!
	EXTRA_PIDS="$pid"
	sleep 0.3
	kill -0 "$pid"
	_mock_wait_gone "$pid" 3
	wait "$pid"
	grep -q 'max-seconds' "$BATS_TEST_TMPDIR/err"
}

@test "the mock exits within 2 s when the process that started it dies" {
	d="$BATS_TEST_TMPDIR"
	bash -c 'python3 "$1" --port-file "$2/port" --max-seconds 30 </dev/null >/dev/null 2>&1 &
		echo $! >"$2/pid"; wait' _ "$MOCK_PY" "$d" </dev/null >/dev/null 2>&1 3>&- &
	parent=$!
	EXTRA_PIDS="$parent"
	for ((i = 0; i < 50; i++)); do
		[ -s "$d/port" ] && [ -s "$d/pid" ] && break
		sleep 0.1
	done
	child="$(cat "$d/pid")"
	EXTRA_PIDS="$parent $child"
	kill -0 "$child"
	kill -KILL "$parent"
	wait "$parent" 2>/dev/null || true
	_mock_wait_gone "$child" 2
}

@test "echo answers with the prompt's text in the recorded answer; [status N] and [delay MS] in it shape that answer" {
	mock_script '{"routes":{"POST /v1/responses":[{"echo":true}],"POST /v1/messages":[{"echo":true}]},"repeat_last":true}'
	run mcurl -d '{"input":[{"role":"user","content":[{"type":"input_text","text":"hi there"}]}]}' "$MOCK_URL/v1/responses"
	[ "$(jq -r '.output[0].content[0].text' <<<"$output")" = "echo: hi there" ]
	[ "$(jq -r .usage.input_tokens <<<"$output")" = "$(jq -r .usage.input_tokens "$MOCK_FIXTURES/openai/responses_nonstream_text.json")" ]
	run mcurl -d '{"messages":[{"role":"user","content":"yo"}]}' "$MOCK_URL/v1/messages"
	[ "$(jq -c '[.content[0].text, .stop_reason]' <<<"$output")" = '["echo: yo","end_turn"]' ]
	run mcurl -o /dev/null -w '%{http_code}' -d '{"input":"x [status 503]"}' "$MOCK_URL/v1/responses"
	[ "$output" = 503 ]
}

@test "rate_limit: beyond N a minute per key, 429 with Retry-After and the providers' rate-limit headers; stats count them" {
	mock_script '{"rate_limit":60}'
	run mcurl -D - -o /dev/null -H 'Authorization: Bearer a' -d '{}' "$MOCK_URL/v1/responses"
	[[ "$output" == *"HTTP/1.1 200"* ]]
	[[ "$output" == *"x-ratelimit-limit-requests: 60"* ]]
	[[ "$output" == *"x-ratelimit-remaining-requests: 0"* ]]
	run mcurl -D - -H 'Authorization: Bearer a' -d '{}' "$MOCK_URL/v1/responses"
	[[ "$output" == *"HTTP/1.1 429"* ]]
	[[ "$output" == *"Retry-After: 1"* ]]
	[[ "$output" == *'"code": "rate_limit_exceeded"'* ]]
	# another key has a bucket of its own; Anthropic's paths get Anthropic's headers
	run mcurl -D - -o /dev/null -H 'x-api-key: b' -d '{}' "$MOCK_URL/v1/messages"
	[[ "$output" == *"HTTP/1.1 200"* ]]
	[[ "$output" == *"anthropic-ratelimit-requests-remaining: 0"* ]]
	[[ "$output" =~ anthropic-ratelimit-requests-reset:\ 20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T ]]
	[ "$(mcurl "$MOCK_URL/__mock/stats")" = '{"requests": 3, "rate_limited": 1}' ]
	run mcurl -d '{"rate_limit":-1}' "$MOCK_URL/__mock/script"
	[[ "$output" == *"rate_limit must be a non-negative integer"* ]]
}

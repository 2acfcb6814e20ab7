# Foundation cases: the library's HTTP path and start-up, through the test
# driver tests/helpers/aicli-http.

bench_case "start-up: aicli-http --version" "within 2 ms of true" -- \
	"$ROOT/tests/helpers/aicli-http" --version -- \
	"true" /bin/true

bench_case "GET 23 KB JSON from the mock" "<= 1.5x curl" -- \
	"$ROOT/tests/helpers/aicli-http" "$MOCK_URL/customsearch/v1?q=test" -- \
	"curl" curl -s "$MOCK_URL/customsearch/v1?q=test"

bench_case "POST, SSE stream parsed" "<= 1.5x curl" -- \
	"$ROOT/tests/helpers/aicli-http" --sse --post '{"stream":true}' "$MOCK_URL/v1/responses" -- \
	"curl -N" curl -sN -d '{"stream":true}' "$MOCK_URL/v1/responses"

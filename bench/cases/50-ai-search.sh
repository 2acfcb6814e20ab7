# ai-search: start-up, and one search against the mock next to curl making
# the same request (curl only fetches; ai-search also parses, cleans and
# writes the records).

export GOOGLE_API_KEY=AIzaBENCH-google-key-0123456789 GOOGLE_CSE_CX=bench-cx \
	BRAVE_API_KEY=BSAbench-brave-key-0123456789
unset AICLI_SEARCH_PROVIDER AICLI_SEARCH_BASE_URL AICLI_TIMEOUT AICLI_RETRIES

bench_case "start-up: ai-search --version" "within 2 ms of true" -- \
	"$ROOT/bin/ai-search" --version -- \
	"true" /bin/true

bench_case "ai-search: Google, 10 results" "<= 1.5x curl" -- \
	"$ROOT/bin/ai-search" --base-url "$MOCK_URL" --json test -- \
	"curl" curl -s "$MOCK_URL/customsearch/v1?key=$GOOGLE_API_KEY&cx=$GOOGLE_CSE_CX&q=test&num=10"

bench_case "ai-search: Brave, 20 results" "<= 1.5x curl" -- \
	"$ROOT/bin/ai-search" --provider brave --base-url "$MOCK_URL" --json -n 20 1 -- \
	"curl" curl -s -H "Accept: application/json" -H "X-Subscription-Token: $BRAVE_API_KEY" \
	"$MOCK_URL/res/v1/web/search?q=1&count=20"

unset GOOGLE_API_KEY GOOGLE_CSE_CX BRAVE_API_KEY

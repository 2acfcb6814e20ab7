#!/usr/bin/env bats
# ai-search against the mock server: the real captures of Google Custom
# Search, Brave and Tavily, Exa's documented example, and the constructed
# SearXNG answer
# (tests/fixtures/SOURCES.md).  Every request the tool makes is asserted
# from the mock's log: endpoint, each mapped parameter, the key.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env

GKEY="AIzaTESTgoogle-key-0123456789abcdefXYZ"
CX="test-cx-0123"
BKEY="BSAtest-brave-key-0123456789abcdef"
TKEY="tvly-TEST-tavily-key-0123456789"
XKEY="exa-TEST-key-0123456789abcdef"
FIX_SEARCH=""

setup_file() {
	mock_start
	# later pages: the same captures with other URLs, so that they are new results
	local d="$BATS_FILE_TMPDIR"
	jq -c '.items |= map(.link += "#page2")' "$MOCK_FIXTURES/search/google_customsearch_v1_response.json" > "$d/google_p2.json"
	jq -c '.items |= map(.link += "#page3")' "$MOCK_FIXTURES/search/google_customsearch_v1_response.json" > "$d/google_p3.json"
	for i in $(seq 2 10); do
		jq -c --arg p "#p$i" '.items |= map(.link += $p)' "$MOCK_FIXTURES/search/google_customsearch_v1_response.json" > "$d/google_n$i.json"
	done
	jq -c '.items |= .[0:3] | del(.queries.nextPage)' "$MOCK_FIXTURES/search/google_customsearch_v1_response.json" > "$d/google_short.json"
	jq -c '.web.results |= map(.url += "#page2")' "$MOCK_FIXTURES/search/brave_web_search_response.json" > "$d/brave_p2.json"
	jq -c '.query.more_results_available = false' "$MOCK_FIXTURES/search/brave_web_search_response.json" > "$d/brave_last.json"
	jq -c '.results |= map(.url += "#page2")' "$MOCK_FIXTURES/search/searxng_search_response.json" > "$d/searxng_p2.json"
}
teardown_file() { mock_stop; }
setup() {
	mock_reset
	clean_env
	D="$BATS_FILE_TMPDIR"
}

google() { GOOGLE_API_KEY="$GKEY" GOOGLE_CSE_CX="$CX" ai-search --base-url "$MOCK_URL" "$@"; }
brave() { BRAVE_API_KEY="$BKEY" ai-search --provider brave --base-url "$MOCK_URL" "$@"; }
searxng() { AICLI_SEARXNG_URL="$MOCK_URL" ai-search --provider searxng "$@"; }
tavily() { TAVILY_API_KEY="$TKEY" ai-search --provider tavily --base-url "$MOCK_URL" "$@"; }
exa() { EXA_API_KEY="$XKEY" ai-search --provider exa --base-url "$MOCK_URL" "$@"; }

# q N: the query parameters of logged request N, as {name: value}
q() { mock_request "$1" | jq -c '.query | map_values(.[0])'; }

# ---------------------------------------------------------------- Google

@test "google_cse: search_result records from the real capture, ranked, clean, one per line" {
	run --separate-stderr google test
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 10 ]
	for i in $(seq 0 9); do
		echo "${lines[$i]}" | jq -e --argjson r $((i + 1)) \
			'.type == "search_result" and .query == "test" and .rank == $r and .provider == "google_cse"
			 and (.title | type == "string") and (.url | startswith("http")) and (.snippet | type == "string")'
	done
	echo "${lines[0]}" | jq -e '.title == "Android Beta Program" and .url == "https://www.google.com/android/beta"
		and (has("date") | not)'
	# htmlSnippet's <b> and &nbsp; are gone
	echo "${lines[0]}" | jq -e '.snippet == "Android 13 Beta is now available and gives you early access to test new ... If you would like to continue beta testing, you can enroll in the Android 13 ..."'
	# Google's "Jul 15, 2015 ..." snippet prefix is the result's date
	echo "${lines[1]}" | jq -e '.date == "2015-07-15"'
	echo "${lines[9]}" | jq -e '.title == "Think with Google - Discover Marketing Research & Digital Trends"
		and (.snippet | startswith("Tools \u00b7 Test My Site."))'
	[ "$(mock_count)" -eq 1 ]
}

@test "google_cse: the request carries key, cx, q, num and the mapped --lang and --freshness" {
	run google -n 5 --lang ja --freshness week "openbsd pledge"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	mock_request 1 | jq -e '.method == "GET" and .path == "/customsearch/v1"'
	q 1 | jq -e --arg k "$GKEY" --arg cx "$CX" '. == {"key": $k, "cx": $cx, "q": "openbsd pledge", "num": "5",
		"lr": "lang_ja", "hl": "ja", "dateRestrict": "w1"}'
	for f in day:d1 month:m1 year:y1; do
		mock_reset
		run google --freshness "${f%%:*}" x
		[ "$status" -eq 0 ]
		q 1 | jq -e --arg d "${f##*:}" '.dateRestrict == $d'
	done
	mock_reset
	run google --lang zh-TW x
	q 1 | jq -e '.lr == "lang_zh-TW" and .hl == "zh-TW"'
	mock_reset
	run google --lang zh x
	q 1 | jq -e '.lr == "lang_zh-CN" and .hl == "zh"'
	mock_reset
	run google --lang pt-BR x
	q 1 | jq -e '.lr == "lang_pt" and .hl == "pt-BR"'
}

@test "google_cse: a count past one page pages through with start, ranks continuing" {
	mock_script "{\"routes\":{\"GET /customsearch/v1\":[{},{\"file\":\"$D/google_p2.json\"},{\"file\":\"$D/google_p3.json\"}]}}"
	run --separate-stderr google -n 25 test
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 25 ]
	[ "$(mock_count)" -eq 3 ]
	q 1 | jq -e '.num == "10" and (has("start") | not)'
	q 2 | jq -e '.num == "10" and .start == "11"'
	q 3 | jq -e '.num == "5" and .start == "21"'
	printf '%s\n' "${lines[@]}" | jq -s -e 'map(.rank) == [range(1; 26)]'
	echo "${lines[10]}" | jq -e '.url == "https://www.google.com/android/beta#page2"'
}

@test "google_cse: paging stops at a short last page, and at a page with nothing new" {
	mock_script "{\"routes\":{\"GET /customsearch/v1\":[{\"file\":\"$D/google_short.json\"}]}}"
	run google -n 30 test
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(mock_count)" -eq 1 ]
	# the default route serves the same capture again: page 2 repeats page 1
	mock_reset
	run --separate-stderr google -v -n 30 test
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	[ "$(mock_count)" -eq 2 ]
	[[ "$stderr" == *"google_cse: page 2: 10 result(s), 0 new"* ]]
}

@test "google_cse: -n 100 is ten pages, the last at start=91; past 100 is a usage error" {
	run -64 ai-search -n 101 x
	[[ "$output" == *"option '-n': '101' is out of range 1..100"* ]]
	script='{"routes":{"GET /customsearch/v1":[{}'
	for i in $(seq 2 10); do script="$script,{\"file\":\"$D/google_n$i.json\"}"; done
	mock_script "$script]}}"
	run google -n 100 test
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 100 ]
	[ "$(mock_count)" -eq 10 ]
	q 10 | jq -e '.num == "10" and .start == "91"'
	echo "${lines[99]}" | jq -e '.rank == 100'
}

@test "google_cse: no items is zero results: nothing on stdout, exit 0, a note with -v" {
	mock_script '{"repeat_last":true,"routes":{"GET /customsearch/v1":[{"json":{"kind":"customsearch#search","searchInformation":{"totalResults":"0"}}}]}}'
	run --separate-stderr google "no such thing"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	run --separate-stderr google -v "no such thing"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[[ "$stderr" == *"ai-search: no results for 'no such thing'"* ]]
}

@test "google_cse: 403 dailyLimitExceeded is the daily quota: exit 75, a clear message, no retry" {
	mock_script '{"routes":{"GET /customsearch/v1":[{"status":403,"json":{"error":{"errors":[{"domain":"usageLimits","reason":"dailyLimitExceeded","message":"Daily Limit Exceeded"}],"code":403,"message":"Daily Limit Exceeded"}}}]}}'
	run --separate-stderr google --text q
	[ "$status" -eq 75 ]
	[ -z "$output" ]
	[ "$stderr" = "ai-search: google_cse: the daily query quota is used up ('127.0.0.1:$MOCK_PORT' answered HTTP 403 dailyLimitExceeded): Daily Limit Exceeded; Google resets it at midnight Pacific time" ]
	[ "$(mock_count)" -eq 1 ]
}

@test "google_cse: 429 RESOURCE_EXHAUSTED is retried, then exit 75 naming the per-day quota" {
	mock_script '{"repeat_last":true,"routes":{"GET /customsearch/v1":[{"status":429,"headers":{"Retry-After":"0"},"json":{"error":{"code":429,"message":"Quota exceeded for quota metric '"'"'Queries'"'"' and limit '"'"'Queries per day'"'"' of service '"'"'customsearch.googleapis.com'"'"'.","errors":[{"message":"Quota exceeded","domain":"global","reason":"rateLimitExceeded"}],"status":"RESOURCE_EXHAUSTED"}}}]}}'
	run --separate-stderr google --retries 2 --text q
	[ "$status" -eq 75 ]
	[ "$(mock_count)" -eq 3 ]
	[[ "$stderr" == "ai-search: google_cse: the daily query quota is used up ('127.0.0.1:$MOCK_PORT' answered HTTP 429 rateLimitExceeded): Quota exceeded for quota metric 'Queries' and limit 'Queries per day'"* ]]
}

@test "google_cse: a per-minute rate limit says so; a 429 that clears is retried to success" {
	mock_script '{"routes":{"GET /customsearch/v1":[{"status":429,"headers":{"Retry-After":"0"},"json":{"error":{"code":429,"message":"Quota exceeded for quota metric Queries per minute","status":"RESOURCE_EXHAUSTED"}}},{}]}}'
	run google q
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	[ "$(mock_count)" -eq 2 ]
	mock_script '{"repeat_last":true,"routes":{"GET /customsearch/v1":[{"status":429,"headers":{"Retry-After":"0"},"json":{"error":{"code":429,"message":"Quota exceeded for quota metric Queries per minute","status":"RESOURCE_EXHAUSTED"}}}]}}'
	run --separate-stderr google --retries 0 --text q
	[ "$status" -eq 75 ]
	[[ "$stderr" == *"google_cse: the query rate limit was reached ('127.0.0.1:$MOCK_PORT' answered HTTP 429 RESOURCE_EXHAUSTED after 1 attempt): Quota exceeded"* ]]
}

@test "google_cse: 400 API_KEY_INVALID is a refused key (exit 78), the echoed key redacted" {
	mock_script "{\"routes\":{\"GET /customsearch/v1\":[{\"status\":400,\"json\":{\"error\":{\"code\":400,\"message\":\"API key not valid: $GKEY\",\"status\":\"INVALID_ARGUMENT\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"API_KEY_INVALID\",\"domain\":\"googleapis.com\"}]}}}]}}"
	run --separate-stderr google q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: google_cse: '127.0.0.1:$MOCK_PORT' refused the API key (HTTP 400 API_KEY_INVALID): API key not valid: [REDACTED]" ]
	# into a pipe, the failure is also an error record, redacted
	echo "$output" | jq -e '.type == "error" and .tool == "ai-search" and .code == "config" and .exit == 78
		and .status == 400 and .retryable == false and (.message | contains("[REDACTED]"))'
	[[ "$output" != *"$GKEY"* && "$stderr" != *"$GKEY"* ]]
}

@test "google_cse: the key never shows in -v notes or the -vv HTTP trace" {
	run --separate-stderr google -vv -n 3 q
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ai-search: google_cse: GET http://127.0.0.1:$MOCK_PORT/customsearch/v1?key=[REDACTED]&cx=$CX&q=q&num=3"* ]]
	[[ "$stderr" == *"> GET /customsearch/v1?key=[REDACTED]&cx="* ]]
	[[ "$stderr" == *"google_cse: page 1: 3 result(s), 3 new"* ]]
	[[ "$stderr" != *"$GKEY"* && "$output" != *"$GKEY"* ]]
	# it did reach the service
	q 1 | jq -e --arg k "$GKEY" '.key == $k'
}

@test "google_cse: missing keys are a configuration error naming exactly what to set" {
	run --separate-stderr ai-search --provider google_cse q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: google_cse needs GOOGLE_API_KEY and GOOGLE_CSE_CX: set them, or google_api_key and google_cse_cx in $HOME/.config/aicli/config.json (not created yet; see aicli(7))" ]
	# half of Google's settings: Google is meant, and the message says what is missing
	run --separate-stderr env GOOGLE_API_KEY="$GKEY" ai-search q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: google_cse needs GOOGLE_CSE_CX, the search engine ID: set it, or google_cse_cx in $HOME/.config/aicli/config.json (not created yet; see aicli(7))" ]
	run --separate-stderr env GOOGLE_CSE_CX="$CX" ai-search --provider google q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: google_cse needs GOOGLE_API_KEY: set it, or google_api_key in $HOME/.config/aicli/config.json (not created yet; see aicli(7))" ]
	# a key that would break the header or URL it goes into
	run --separate-stderr env BRAVE_API_KEY=$'abc\r\nX-Evil: 1' ai-search --provider brave --text q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: \$BRAVE_API_KEY holds a blank or a control character" ]
	[ "$(mock_count)" -eq 0 ]
}

# ---------------------------------------------------------------- Brave

@test "brave: records from the real capture: <strong> and entities gone, page_age as the date" {
	run --separate-stderr brave -n 20 1
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 20 ]
	echo "${lines[0]}" | jq -e '.rank == 1 and .title == "the 1" and .provider == "brave"
		and .snippet == "Listen to the 1 on Spotify. Song \u00b7 Taylor Swift \u00b7 2020" and (has("date") | not)'
	echo "${lines[1]}" | jq -e '.date == "2025-06-29T17:13:16" and (.snippet | startswith("1 (one, unit, unity) is a number"))'
	echo "${lines[11]}" | jq -e '.snippet | startswith("\"The 1\" is a song by the American singer-songwriter Taylor Swift")
		and contains("Swift'"'"'s conversational")'
	! printf '%s\n' "${lines[@]}" | grep -q -e '<strong>' -e '&quot;' -e '&#x27;'
	mock_request 1 | jq -e --arg k "$BKEY" '.path == "/res/v1/web/search" and .headers["x-subscription-token"] == $k
		and .headers.accept == "application/json"'
	q 1 | jq -e '. == {"q": "1", "count": "20"}'
}

@test "brave: --lang and --freshness map onto search_lang (Brave's own codes) and freshness" {
	for m in ja:jp en:en en-GB:en-gb zh:zh-hans zh-TW:zh-hant zh-Hant:zh-hant pt:pt-br pt-PT:pt-pt de-AT:de; do
		mock_reset
		run brave -n 5 --lang "${m%%:*}" x
		[ "$status" -eq 0 ]
		q 1 | jq -e --arg l "${m##*:}" '.search_lang == $l and .count == "5"'
	done
	for f in day:pd week:pw month:pm year:py; do
		mock_reset
		run brave --freshness "${f%%:*}" x
		q 1 | jq -e --arg f "${f##*:}" '.freshness == $f'
	done
}

@test "brave: past one page, every page asks the same count and offset counts pages" {
	mock_script "{\"routes\":{\"GET /res/v1/web/search\":[{},{\"file\":\"$D/brave_p2.json\"}]}}"
	run --separate-stderr brave -n 30 1
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 30 ]
	[ "$(mock_count)" -eq 2 ]
	q 1 | jq -e '.count == "15" and (has("offset") | not)'
	q 2 | jq -e '.count == "15" and .offset == "1"'
	printf '%s\n' "${lines[@]}" | jq -s -e 'map(.rank) == [range(1; 31)]'
	# more_results_available false ends the paging
	mock_script "{\"routes\":{\"GET /res/v1/web/search\":[{\"file\":\"$D/brave_last.json\"}]}}"
	run brave -n 30 1
	[ "${#lines[@]}" -eq 20 ]
	[ "$(mock_count)" -eq 1 ]
}

@test "brave: 429 RATE_LIMITED is retried, then exit 75 with what the plan allows" {
	mock_script '{"repeat_last":true,"routes":{"GET /res/v1/web/search":[{"status":429,"headers":{"Retry-After":"0"},"json":{"type":"ErrorResponse","error":{"id":"x","status":429,"detail":"Request rate limit exceeded for plan","meta":{"plan":"Free","rate_limit":1,"rate_current":1,"quota_limit":2000,"quota_current":15,"component":"rate_limiter"},"code":"RATE_LIMITED"},"time":1773685964}}]}}'
	run --separate-stderr brave --retries 2 --text x
	[ "$status" -eq 75 ]
	[ "$(mock_count)" -eq 3 ]
	[ "$stderr" = "ai-search: brave: rate limited by '127.0.0.1:$MOCK_PORT' (HTTP 429 RATE_LIMITED after 3 attempts): Request rate limit exceeded for plan; plan Free allows 1 request per second, 15 of 2000 requests used this month" ]
}

@test "brave: a used-up monthly quota says so (exit 75)" {
	mock_script '{"repeat_last":true,"routes":{"GET /res/v1/web/search":[{"status":429,"headers":{"Retry-After":"0"},"json":{"type":"ErrorResponse","error":{"status":429,"detail":"Request quota exceeded","meta":{"plan":"Free","rate_limit":1,"quota_limit":2000,"quota_current":2000},"code":"RATE_LIMITED"}}}]}}'
	run --separate-stderr brave --retries 0 --text x
	[ "$status" -eq 75 ]
	[ "$stderr" = "ai-search: brave: the monthly quota of 2000 requests is used up ('127.0.0.1:$MOCK_PORT' answered HTTP 429 RATE_LIMITED): Request quota exceeded" ]
}

@test "brave: 422 SUBSCRIPTION_TOKEN_INVALID is a refused key; 422 VALIDATION names the parameter" {
	mock_script '{"routes":{"GET /res/v1/web/search":[{"status":422,"json":{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","meta":{}}}}]}}'
	run --separate-stderr brave --text x
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: brave: '127.0.0.1:$MOCK_PORT' refused the API key (HTTP 422 SUBSCRIPTION_TOKEN_INVALID): The provided subscription token is invalid." ]
	mock_script '{"routes":{"GET /res/v1/web/search":[{"status":422,"json":{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"VALIDATION","detail":"Unable to validate request parameter(s)","meta":{"errors":[{"type":"enum","loc":["query","search_lang"],"msg":"Input should be '"'"'zh-hans'"'"' or '"'"'zh-hant'"'"'","input":"zz"}]}}}}]}}'
	run --separate-stderr brave --text --lang zz x
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-search: brave: '127.0.0.1:$MOCK_PORT' answered HTTP 422 VALIDATION: Unable to validate request parameter(s); search_lang: Input should be 'zh-hans' or 'zh-hant'" ]
	[ "$(mock_count)" -eq 1 ]
}

@test "brave: no web section is zero results; a missing key names BRAVE_API_KEY" {
	mock_script '{"routes":{"GET /res/v1/web/search":[{"json":{"type":"search","query":{"original":"x"}}}]}}'
	run --separate-stderr brave x
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run --separate-stderr ai-search --provider brave x
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: brave needs BRAVE_API_KEY: set it, or brave_api_key in $HOME/.config/aicli/config.json (not created yet; see aicli(7))" ]
}

# ---------------------------------------------------------------- SearXNG

@test "searxng: records from the constructed answer, entities decoded, publishedDate kept" {
	run --separate-stderr searxng -n 20 "curl connect timeout"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 14 ]
	echo "${lines[0]}" | jq -e '.provider == "searxng" and .title == "curl.1 the man page"
		and (.snippet | startswith("--connect-timeout <fractional seconds> Maximum time in seconds that you allow curl'"'"'s connection"))
		and (has("date") | not)'
	echo "${lines[1]}" | jq -e '.date == "2024-03-18T00:00:00" and (.snippet | contains("working & curl offers"))'
	echo "${lines[3]}" | jq -e '.title == "How to set connect timeout & max time in curl? - Stack Overflow"'
	echo "${lines[12]}" | jq -e '.snippet == "Network operations are by their nature rather unreliable\u2026"'
	mock_request 1 | jq -e '.path == "/search" and (.headers | has("authorization") | not)'
	q 1 | jq -e '. == {"q": "curl connect timeout", "format": "json"}'
}

@test "searxng: language, time_range, and pageno for later pages, under the instance's path" {
	mock_script "{\"routes\":{\"GET /searx/search\":[{\"file\":\"search/searxng_search_response.json\"},{\"file\":\"$D/searxng_p2.json\"}]}}"
	run env AICLI_SEARXNG_URL="$MOCK_URL/searx/" ai-search --provider searxng -n 20 --lang fr --freshness week q
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 20 ]
	[ "$(mock_count)" -eq 2 ]
	mock_request 1 | jq -e '.path == "/searx/search"'
	q 1 | jq -e '. == {"q": "q", "format": "json", "language": "fr", "time_range": "week"}'
	q 2 | jq -e '.pageno == "2" and .language == "fr"'
	for f in day month year; do
		mock_reset
		run searxng --freshness "$f" q
		q 1 | jq -e --arg f "$f" '.time_range == $f'
	done
}

@test "searxng: an instance without the JSON format (403) is a configuration error with the fix" {
	mock_script '{"routes":{"GET /search":[{"status":403,"content_type":"text/html","body":"<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>"}]}}'
	run --separate-stderr searxng --text q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: searxng: the instance at '127.0.0.1:$MOCK_PORT' refused format=json (HTTP 403); enable \"json\" in search.formats of its settings.yml" ]
}

@test "searxng: the instance is required; --base-url alone can name it; -v tells which engines failed" {
	run --separate-stderr ai-search --provider searxng q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: searxng needs AICLI_SEARXNG_URL, the instance's URL such as http://localhost:8888: set it, or searxng_url in $HOME/.config/aicli/config.json (not created yet; see aicli(7))" ]
	run --separate-stderr ai-search --provider searxng --base-url "$MOCK_URL" -v -n 2 q
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "$stderr" == *"searxng: engine 'startpage' did not answer: CAPTCHA"* ]]
}

# ---------------------------------------------------------------- Tavily

@test "tavily: POST /search with a Bearer key and a JSON body; results as records" {
	run --separate-stderr tavily -n 3 --freshness month "What is Pydantic AI?"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	echo "${lines[0]}" | jq -e '.provider == "tavily" and .title == "Pydantic AI: Agent Framework"
		and .url == "https://medium.com/ai-agent-insider/pydantic-ai-agent-framework-02b138e8db71"'
	echo "${lines[1]}" | jq -e '.title == "Pydantic AI - Pydantic AI" and .url == "https://ai.pydantic.dev/"'
	mock_request 1 | jq -e --arg k "Bearer $TKEY" '.method == "POST" and .path == "/search"
		and .headers.authorization == $k and .headers["content-type"] == "application/json"'
	mock_request 1 | jq -e '.json == {"query": "What is Pydantic AI?", "max_results": 3, "time_range": "month"}'
}

@test "tavily: what it cannot do is said once on stderr: more than 20 results, a language" {
	run --separate-stderr tavily -n 50 --lang de q
	[ "$status" -eq 0 ]
	[ "$stderr" = "ai-search: warning: tavily gives at most 20 results per query; --count 50 gives 20
ai-search: warning: tavily cannot restrict the language; --lang is ignored" ]
	mock_request 1 | jq -e '.json == {"query": "q", "max_results": 20}'
	# said once, not per query
	run --separate-stderr tavily -n 50 < <(printf 'a\nb\n')
	[ "$(echo "$stderr" | grep -c 'at most 20')" -eq 1 ]
	[ "$(mock_count)" -eq 3 ]
}

@test "tavily: 401 is a refused key, 432 a plan limit and 429 a rate limit (exit 75)" {
	mock_script '{"routes":{"POST /search":[{"status":401,"json":{"detail":{"error":"Unauthorized: missing or invalid API key."}}}]}}'
	run --separate-stderr tavily --text q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: tavily: '127.0.0.1:$MOCK_PORT' refused the API key (HTTP 401): Unauthorized: missing or invalid API key." ]
	mock_script '{"routes":{"POST /search":[{"status":432,"json":{"detail":{"error":"This request exceeds your plan'"'"'s set usage limit."}}}]}}'
	run --separate-stderr tavily --text q
	[ "$status" -eq 75 ]
	[ "$stderr" = "ai-search: tavily: the plan's usage limit is reached ('127.0.0.1:$MOCK_PORT' answered HTTP 432): This request exceeds your plan's set usage limit." ]
	mock_script '{"repeat_last":true,"routes":{"POST /search":[{"status":429,"headers":{"Retry-After":"0"},"json":{"detail":{"error":"Rate limit exceeded"}}}]}}'
	run --separate-stderr tavily --retries 1 --text q
	[ "$status" -eq 75 ]
	[ "$stderr" = "ai-search: tavily: rate limited by '127.0.0.1:$MOCK_PORT' (HTTP 429 after 2 attempts): Rate limit exceeded" ]
	run --separate-stderr ai-search --provider tavily q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: tavily needs TAVILY_API_KEY: set it, or tavily_api_key in $HOME/.config/aicli/config.json (not created yet; see aicli(7))" ]
}

# ---------------------------------------------------------------- Exa

@test "exa: POST /search with x-api-key and a JSON body asking for highlights; the documented answer as a record" {
	run --separate-stderr exa -n 3 "Latest research in LLMs"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 1 ]
	echo "${lines[0]}" | jq -e '.type == "search_result" and .provider == "exa" and .rank == 1
		and .query == "Latest research in LLMs"
		and .title == "A Comprehensive Overview of Large Language Models"
		and .url == "https://arxiv.org/pdf/2307.06435.pdf"
		and .snippet == "Such requirements have limited their adoption..."
		and .date == "2023-11-16T01:36:32Z"'
	mock_request 1 | jq -e --arg k "$XKEY" '.method == "POST" and .path == "/search"
		and .headers["x-api-key"] == $k and .headers["content-type"] == "application/json"
		and (.headers | has("authorization") | not)'
	mock_request 1 | jq -e '.json == {"query": "Latest research in LLMs", "numResults": 3,
		"contents": {"highlights": true}}'
	[[ "$output" != *"$XKEY"* && "$stderr" != *"$XKEY"* ]]
}

@test "exa: --freshness asks for pages published since that many days ago; --lang and over 100 are said once" {
	for w in day:1 week:7 month:30 year:365; do
		mock_reset
		before=$(( $(date -u +%s) - ${w#*:} * 86400 ))
		run --separate-stderr exa --freshness "${w%%:*}" q
		after=$(( $(date -u +%s) - ${w#*:} * 86400 ))
		[ "$status" -eq 0 ]
		since=$(mock_request 1 | jq -r '.json.startPublishedDate')
		[[ "$since" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.000Z$ ]]
		t=$(date -u -d "$since" +%s)
		[ "$t" -ge "$before" ] && [ "$t" -le "$after" ]
	done
	mock_reset
	run --separate-stderr exa -n 100 --lang ja q
	[ "$status" -eq 0 ]
	[ "$stderr" = "ai-search: warning: exa cannot restrict the language; --lang is ignored" ]
	mock_request 1 | jq -e '.json.numResults == 100 and (.json | has("startPublishedDate") | not)'
}

@test "exa: a result without highlights gets its summary, else the start of its text; a bad URL is skipped" {
	mock_script '{"routes":{"POST /search":[{"json":{"requestId":"r1","results":[
		{"title":"A","url":"https://a.example/","summary":"the summary","text":"the text"},
		{"title":"B","url":"https://b.example/","highlights":[],"text":"only <b>text</b> here"},
		{"title":"C","url":"javascript:alert(1)","highlights":["x"]},
		{"title":"D","url":"https://d.example/","highlights":["one.","two."],"publishedDate":null}]}}]}}'
	run --separate-stderr exa q
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	echo "${lines[0]}" | jq -e '.snippet == "the summary" and .rank == 1'
	echo "${lines[1]}" | jq -e '.snippet == "only text here" and .rank == 2'
	echo "${lines[2]}" | jq -e '.snippet == "one. ... two." and .rank == 3 and (has("date") | not)'
}

@test "exa: 401 is a refused key, 402 used-up credits (75), 429 a rate limit (75), a body without results a protocol error" {
	mock_script '{"routes":{"POST /search":[{"status":401,"json":{"requestId":"r","error":"Invalid API key","tag":"INVALID_API_KEY"}}]}}'
	run --separate-stderr exa --text q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: exa: '127.0.0.1:$MOCK_PORT' refused the API key (HTTP 401 INVALID_API_KEY): Invalid API key" ]
	mock_script '{"routes":{"POST /search":[{"status":402,"json":{"requestId":"r","error":"You have run out of credits","tag":"NO_MORE_CREDITS"}}]}}'
	run --separate-stderr exa --text q
	[ "$status" -eq 75 ]
	[ "$stderr" = "ai-search: exa: the credits or the key's budget are used up ('127.0.0.1:$MOCK_PORT' answered HTTP 402 NO_MORE_CREDITS): You have run out of credits" ]
	mock_script '{"repeat_last":true,"routes":{"POST /search":[{"status":429,"headers":{"Retry-After":"0"},"json":{"error":"Too many requests"}}]}}'
	run --separate-stderr exa --retries 1 --text q
	[ "$status" -eq 75 ]
	[ "$stderr" = "ai-search: exa: rate limited by '127.0.0.1:$MOCK_PORT' (HTTP 429 after 2 attempts): Too many requests" ]
	mock_script '{"routes":{"POST /search":[{"json":{"requestId":"r"}}]}}'
	run --separate-stderr exa --text q
	[ "$status" -eq 76 ]
	[ "$stderr" = "ai-search: exa: unexpected response from '127.0.0.1:$MOCK_PORT': no \"results\" array" ]
	run --separate-stderr ai-search --provider exa q
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-search: exa needs EXA_API_KEY: set it, or exa_api_key in $HOME/.config/aicli/config.json (not created yet; see aicli(7))" ]
}

# ---------------------------------------------------------------- the default provider

@test "no --provider: the first provider whose settings are set, in the order google_cse, brave, tavily, exa, searxng" {
	export AICLI_SEARCH_BASE_URL="$MOCK_URL"
	run --separate-stderr env BRAVE_API_KEY="$BKEY" TAVILY_API_KEY="$TKEY" EXA_API_KEY="$XKEY" AICLI_SEARXNG_URL="$MOCK_URL" ai-search -v -n 1 q
	[ "$status" -eq 0 ]
	echo "${lines[0]}" | jq -e '.provider == "brave"'
	[[ "$stderr" == "ai-search: provider: brave"* ]]
	mock_request 1 | jq -e '.path == "/res/v1/web/search"'
	run --separate-stderr env TAVILY_API_KEY="$TKEY" EXA_API_KEY="$XKEY" ai-search -n 1 q
	echo "${lines[0]}" | jq -e '.provider == "tavily"'
	run --separate-stderr env EXA_API_KEY="$XKEY" AICLI_SEARXNG_URL="$MOCK_URL" ai-search -n 1 q
	echo "${lines[0]}" | jq -e '.provider == "exa"'
	run --separate-stderr env AICLI_SEARXNG_URL="$MOCK_URL" ai-search -n 1 q
	echo "${lines[0]}" | jq -e '.provider == "searxng"'
	run --separate-stderr env GOOGLE_API_KEY="$GKEY" GOOGLE_CSE_CX="$CX" BRAVE_API_KEY="$BKEY" ai-search -n 1 q
	echo "${lines[0]}" | jq -e '.provider == "google_cse"'
	# Google half set and Brave set: Brave, the first configured
	run --separate-stderr env GOOGLE_API_KEY="$GKEY" BRAVE_API_KEY="$BKEY" ai-search -n 1 q
	[ "$status" -eq 0 ]
	echo "${lines[0]}" | jq -e '.provider == "brave"'
	# a provider named wins over the order
	run --separate-stderr env BRAVE_API_KEY="$BKEY" EXA_API_KEY="$XKEY" AICLI_SEARCH_PROVIDER=exa ai-search -n 1 q
	echo "${lines[0]}" | jq -e '.provider == "exa"'
}

@test "no --provider: keys in the config file count as configured, and the file's search_provider wins" {
	cfg="$BATS_TEST_TMPDIR/config.json"
	printf '{"exa_api_key":"%s","search_base_url":"%s"}\n' "$XKEY" "$MOCK_URL" > "$cfg"
	chmod 600 "$cfg"
	run --separate-stderr env AICLI_CONFIG="$cfg" ai-search -n 1 q
	[ "$status" -eq 0 ]
	echo "${lines[0]}" | jq -e '.provider == "exa"'
	mock_request 1 | jq -e --arg k "$XKEY" '.headers["x-api-key"] == $k'
	printf '{"exa_api_key":"%s","tavily_api_key":"%s","search_provider":"exa","search_base_url":"%s"}\n' \
		"$XKEY" "$TKEY" "$MOCK_URL" > "$cfg"
	run --separate-stderr env AICLI_CONFIG="$cfg" ai-search -n 1 q
	echo "${lines[0]}" | jq -e '.provider == "exa"'
}

@test "no provider configured at all: one message lists each, what it needs and where to get it; nothing is sent" {
	run --separate-stderr ai-search --text q
	[ "$status" -eq 78 ]
	[ -z "$output" ]
	[ "$stderr" = "ai-search: no search provider is configured: set the keys of one of these, in the environment or in the config file
ai-search:   google_cse GOOGLE_API_KEY and GOOGLE_CSE_CX (google_api_key, google_cse_cx), closed to new customers, ends on 1 January 2027
ai-search:   brave      BRAVE_API_KEY (brave_api_key), https://brave.com/search/api/
ai-search:   tavily     TAVILY_API_KEY (tavily_api_key), https://app.tavily.com/
ai-search:   exa        EXA_API_KEY (exa_api_key), https://dashboard.exa.ai/api-keys
ai-search:   searxng    AICLI_SEARXNG_URL (searxng_url), a SearXNG instance with JSON output, https://docs.searxng.org/
ai-search: the config file: $HOME/.config/aicli/config.json (not created yet; see aicli(7))" ]
	# into a pipe, the next tool learns of it from an error record too
	run --separate-stderr ai-search q
	[ "$status" -eq 78 ]
	echo "$output" | jq -e '.type == "error" and .exit == 78
		and (.message | startswith("no search provider is configured"))'
	[ "$(mock_count)" -eq 0 ]
}

# ---------------------------------------------------------------- output

@test "--text: rank, title, URL and a snippet wrapped to 80 columns, at most three lines" {
	run --separate-stderr brave --text -n 3 1
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "1. the 1" ]
	[ "${lines[1]}" = "   https://open.spotify.com/track/0Jlcvv8IykzHaSmj49uNW8" ]
	[ "${lines[2]}" = "   Listen to the 1 on Spotify. Song · Taylor Swift · 2020" ]
	[ "${lines[3]}" = "2. 1 - Wikipedia" ]
	[ "${lines[5]}" = "   2025-06-29 — 1 (one, unit, unity) is a number, numeral, and glyph. It is the" ]
	[[ "${lines[7]}" == *"…" ]]
	[ "${lines[8]}" = "3. r/TaylorSwift on Reddit: “The 1” is the saddest song in the history of ever…" ]
	# blank lines between results, no line wider than 80 columns, no escape sequence
	[ "$(printf '%s\n' "$output" | grep -c '^$')" -eq 2 ]
	! printf '%s\n' "$output" | grep -v '^   http' | LC_ALL=C.UTF-8 awk 'length($0) > 80 { bad = 1 } END { exit !bad }'
	[[ "$output" != *$'\033'* ]]
}

@test "a terminal gets the list in colour, unless NO_COLOR; a pipe gets records" {
	cmd="BRAVE_API_KEY=$BKEY ai-search --provider brave --base-url $MOCK_URL -n 2 1"
	run script -qec "$cmd" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\033[1mthe 1\033[0m'* ]]
	[[ "$output" == *$'\033[32mhttps://open.spotify.com/track/0Jlcvv8IykzHaSmj49uNW8\033[0m'* ]]
	run script -qec "NO_COLOR=1 $cmd" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"1. the 1"* ]]
	[[ "$output" != *$'\033'* ]]
	run script -qec "$cmd --json" /dev/null
	[[ "$output" == *'{"type":"search_result"'* ]]
	run brave -n 1 1
	echo "$output" | jq -e '.type == "search_result"'
}

@test "hostile text from the web never reaches the terminal or the records raw" {
	mock_script '{"routes":{"GET /res/v1/web/search":[{"json":{"query":{"more_results_available":false},"web":{"results":[
		{"title":"evil\u001b]0;owned\u0007 <b>title</b>","url":"https://example.org/a","description":"x\u001b[2Jy &#27;z &#x202E;w"},
		{"title":"no scheme","url":"javascript:alert(1)","description":"d"},
		{"title":"control in URL","url":"https://example.org/\u001b[31m","description":"d"},
		{"title":"repeat","url":"https://example.org/a","description":"d"}]}}}]}}'
	run --separate-stderr brave --text x
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "1. evil]0;owned title" ]
	[ "${lines[2]}" = "   x[2Jy z w" ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "$output" != *$'\033'* && "$output" != *$'\a'* ]]
	mock_script '{"routes":{"GET /res/v1/web/search":[{"json":{"web":{"results":[
		{"title":"evil\u001b]0;owned\u0007","url":"https://example.org/a","description":"x\u202ey"}]}}}]}}'
	run --separate-stderr brave -v x
	echo "$output" | jq -e '.title == "evil]0;owned" and .snippet == "xy"'
}

@test "records are flushed one by one: page 1 is out while page 2 is still on its way" {
	mock_script "{\"routes\":{\"GET /customsearch/v1\":[{},{\"file\":\"$D/google_p2.json\",\"delay_ms\":1500}]}}"
	out="$BATS_TEST_TMPDIR/out"
	GOOGLE_API_KEY="$GKEY" GOOGLE_CSE_CX="$CX" ai-search --base-url "$MOCK_URL" -n 20 q > "$out" &
	pid=$!
	sleep 0.8
	n=$(wc -l < "$out")
	wait "$pid"
	[ "$n" -eq 10 ]
	[ "$(wc -l < "$out")" -eq 20 ]
}

@test "ai-search q | head -1 stops quietly, ended by SIGPIPE" {
	mock_script "{\"routes\":{\"GET /customsearch/v1\":[{},{\"file\":\"$D/google_p2.json\",\"delay_ms\":400}]}}"
	run --separate-stderr bash -c "set -o pipefail; GOOGLE_API_KEY=$GKEY GOOGLE_CSE_CX=$CX ai-search --base-url $MOCK_URL -n 20 q | head -n 1"
	[ "$status" -eq 141 ]
	[ "${#lines[@]}" -eq 1 ]
	echo "${lines[0]}" | jq -e '.rank == 1'
	[ -z "$stderr" ]
}

# ---------------------------------------------------------------- input

@test "stdin: one query per line, blank lines skipped, results in the order of the queries" {
	run --separate-stderr google -n 2 < <(printf 'first query\n\n  \nsecond\r\n')
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	printf '%s\n' "${lines[@]}" | jq -s -e 'map([.query, .rank]) == [["first query",1],["first query",2],["second",1],["second",2]]'
	q 1 | jq -e '.q == "first query"'
	q 2 | jq -e '.q == "second"'
	# the list for people heads each query's results
	run google --text -n 1 < <(printf 'alpha\nbeta\n')
	[ "${lines[0]}" = "# alpha" ]
	[ "${lines[1]}" = "1. Android Beta Program" ]
	[[ "$output" == *$'\n\n# beta\n\n1. Android Beta Program'* ]]
}

@test "stdin records: query records are searched, other records pass through in order" {
	input='{"type":"message","role":"user","content":"context"}
{"type":"query","query":"openbsd pledge"}

{"type":"summary","content":"s","key_facts":[],"open_tasks":[],"replaces":2}
{"type":"query","query":"  second  "}'
	run --separate-stderr google -n 1 <<<"$input"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = '{"type":"message","role":"user","content":"context"}' ]
	echo "${lines[1]}" | jq -e '.type == "search_result" and .query == "openbsd pledge"'
	[ "${lines[2]}" = '{"type":"summary","content":"s","key_facts":[],"open_tasks":[],"replaces":2}' ]
	echo "${lines[3]}" | jq -e '.query == "second"'
}

@test "stdin records: a malformed line stops with exit 65 naming it, after the results before it" {
	run --separate-stderr google -n 1 < <(printf '{"type":"query","query":"a"}\n{"type":"query",\n{"type":"query","query":"c"}\n')
	[ "$status" -eq 65 ]
	[[ "$stderr" == "ai-search: line 2: "* ]]
	echo "${lines[0]}" | jq -e '.query == "a"'
	echo "${lines[1]}" | jq -e '.type == "error" and .exit == 65'
	[ "$(mock_count)" -eq 1 ]
	run --separate-stderr google --text < <(printf '{"type":"query","q":"a"}\n')
	[ "$status" -eq 65 ]
	[ "$stderr" = 'ai-search: standard input: line 1: a query record needs a string "query"' ]
	[ "$(mock_count)" -eq 1 ]
}

@test "operands are one query joined by spaces; an empty one is a usage error" {
	run google -n 1 openbsd pledge
	[ "$status" -eq 0 ]
	q 1 | jq -e '.q == "openbsd pledge"'
	run -64 --separate-stderr google "  "
	[ -z "$output" ]
	[[ "$stderr" == "ai-search: the query is empty"* ]]
}

@test "no query and a terminal on stdin: a usage error, never a wait" {
	run script -qec "GOOGLE_API_KEY=k GOOGLE_CSE_CX=c ai-search" /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"ai-search: no query: give QUERY, or queries on standard input, one per line"* ]]
}

# ---------------------------------------------------------------- options and configuration

@test "bad options and settings: 64 from the command line, 78 from the environment or file" {
	run -64 --separate-stderr ai-search -n 0 q
	[[ "$stderr" == *"option '-n': '0' is out of range 1..100"* ]]
	run -64 --separate-stderr ai-search --lang 'en us' q
	[[ "$stderr" == *"option '--lang': 'en us' is not a language tag such as en, ja or pt-BR"* ]]
	run -64 --separate-stderr ai-search --freshness fortnight q
	[[ "$stderr" == *"option '--freshness': 'fortnight' is not day, week, month or year"* ]]
	run -64 --separate-stderr ai-search --json --text q
	[[ "$stderr" == *"--json and --text cannot be used together"* ]]
	run -64 --separate-stderr ai-search --provider bing q
	[[ "$stderr" == *"option '--provider': 'bing' is not a provider: google_cse (or google), brave, tavily, exa or searxng"* ]]
	[[ "$stderr" == *"try 'ai-search --help' for more information"* ]]
	run -64 --separate-stderr ai-search --timeout 0 q
	[[ "$stderr" == *"option '--timeout': '0' is not a number of seconds from 0.1 to 3600"* ]]
	run -64 --separate-stderr ai-search --retries 11 q
	[[ "$stderr" == *"option '--retries': '11' is not a whole number from 0 to 10"* ]]
	run -64 --separate-stderr google --base-url "ftp://127.0.0.1/" q
	[[ "$stderr" == *"option '--base-url': 'ftp://127.0.0.1/' is not a usable URL (only http and https URLs are supported)"* ]]
	run -78 --separate-stderr env AICLI_SEARCH_PROVIDER=bing ai-search --text q
	[ "$stderr" = "ai-search: \$AICLI_SEARCH_PROVIDER: 'bing' is not a provider: google_cse (or google), brave, tavily, exa or searxng" ]
	run -78 --separate-stderr env AICLI_TIMEOUT=soon GOOGLE_API_KEY=k GOOGLE_CSE_CX=c ai-search --text q
	[ "$stderr" = "ai-search: \$AICLI_TIMEOUT: 'soon' is not a number of seconds from 0.1 to 3600" ]
	run -78 --separate-stderr env AICLI_SEARCH_BASE_URL="$MOCK_URL/?x=1" GOOGLE_API_KEY=k GOOGLE_CSE_CX=c ai-search --text q
	[ "$stderr" = "ai-search: \$AICLI_SEARCH_BASE_URL: '$MOCK_URL/?x=1' must not hold a query, a fragment or user:password" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "the config file: provider, keys, base URL, timeout; the flag beats the environment beats the file" {
	cfg="$BATS_TEST_TMPDIR/config.json"
	printf '{"search_provider":"brave","brave_api_key":"%s","search_base_url":"%s","timeout":5,"retries":"0"}\n' \
		"$BKEY" "$MOCK_URL" > "$cfg"
	chmod 600 "$cfg"
	run --separate-stderr env AICLI_CONFIG="$cfg" ai-search -n 2 q
	[ "$status" -eq 0 ]
	echo "${lines[0]}" | jq -e '.provider == "brave"'
	mock_request 1 | jq -e --arg k "$BKEY" '.headers["x-subscription-token"] == $k'
	mock_reset
	run env AICLI_CONFIG="$cfg" AICLI_SEARCH_PROVIDER=tavily TAVILY_API_KEY="$TKEY" ai-search -n 2 q
	echo "${lines[0]}" | jq -e '.provider == "tavily"'
	run env AICLI_CONFIG="$cfg" AICLI_SEARCH_PROVIDER=tavily ai-search --provider brave -n 2 q
	echo "${lines[0]}" | jq -e '.provider == "brave"'
	# a key in a file others can read is refused, naming the fix
	chmod 644 "$cfg"
	run -78 --separate-stderr env AICLI_CONFIG="$cfg" ai-search --text q
	[[ "$stderr" == *"holds an API key and can be read by other users; run: chmod 600"* ]]
	[[ "$stderr" != *"$BKEY"* ]]
}

@test "--base-url keeps the endpoint's path, after the base's own path" {
	mock_script '{"routes":{"GET /proxy/customsearch/v1":[{"file":"search/google_customsearch_v1_response.json"}]}}'
	run env GOOGLE_API_KEY="$GKEY" GOOGLE_CSE_CX="$CX" AICLI_SEARCH_BASE_URL="$MOCK_URL/proxy/" ai-search -n 1 q
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.path == "/proxy/customsearch/v1"'
	mock_reset
	run env GOOGLE_API_KEY="$GKEY" GOOGLE_CSE_CX="$CX" AICLI_SEARCH_BASE_URL="$MOCK_URL/nowhere" ai-search --base-url "$MOCK_URL" -n 1 q
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.path == "/customsearch/v1"'
}

# ---------------------------------------------------------------- failures of the service

@test "a service that does not answer in time: exit 75 within the timeout, no partial output" {
	mock_script '{"repeat_last":true,"routes":{"GET /customsearch/v1":[{"delay_ms":5000}]}}'
	start=$(date +%s%N)
	run --separate-stderr google --timeout 0.8 --text q
	end=$(date +%s%N)
	[ "$status" -eq 75 ]
	[ $(((end - start) / 1000000)) -lt 3000 ]
	[ -z "$output" ]
	[ "$stderr" = "ai-search: google_cse: '127.0.0.1:$MOCK_PORT' did not answer within 800 ms" ]
}

@test "5xx after the retries is unavailable (69); a refused connection too" {
	mock_script '{"repeat_last":true,"routes":{"GET /customsearch/v1":[{"status":503,"headers":{"Retry-After":"0"},"json":{"error":{"code":503,"message":"Backend Error","status":"UNAVAILABLE"}}}]}}'
	run --separate-stderr google --retries 2 --text q
	[ "$status" -eq 69 ]
	[ "$(mock_count)" -eq 3 ]
	[ "$stderr" = "ai-search: google_cse: '127.0.0.1:$MOCK_PORT' answered HTTP 503 after 3 attempts: UNAVAILABLE: Backend Error" ]
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	run --separate-stderr env GOOGLE_API_KEY="$GKEY" GOOGLE_CSE_CX="$CX" ai-search --base-url "http://127.0.0.1:$port" --retries 0 --text q
	[ "$status" -eq 69 ]
	[[ "$stderr" == "ai-search: google_cse: cannot reach '127.0.0.1:$port': "* ]]
}

@test "an answer that is not JSON, or not the expected shape, is a protocol error (76)" {
	mock_script '{"routes":{"GET /customsearch/v1":[{"content_type":"text/html","body":"<html>captive portal</html>"}]}}'
	run --separate-stderr google --text q
	[ "$status" -eq 76 ]
	[[ "$stderr" == "ai-search: google_cse: cannot parse the response from '127.0.0.1:$MOCK_PORT': "*"(it begins '<html>captive portal</html>')" ]]
	mock_script '{"routes":{"GET /customsearch/v1":[{"json":{"items":{"not":"an array"}}}]}}'
	run --separate-stderr google --text q
	[ "$status" -eq 76 ]
	[ "$stderr" = "ai-search: google_cse: unexpected response from '127.0.0.1:$MOCK_PORT': \"items\" is not an array" ]
	mock_script '{"routes":{"POST /search":[{"json":{"answer":null}}]}}'
	run --separate-stderr tavily --text q
	[ "$status" -eq 76 ]
	[ "$stderr" = "ai-search: tavily: unexpected response from '127.0.0.1:$MOCK_PORT': no \"results\" array" ]
}

@test "a cut answer is retried, then a protocol error (76), as an oversized one or a redirect is" {
	mock_script '{"repeat_last":true,"routes":{"GET /customsearch/v1":[{"cut_after_bytes":500}]}}'
	run --separate-stderr google --retries 1 --text q
	[ "$status" -eq 76 ]
	[ -z "$output" ]
	[ "$(mock_count)" -eq 2 ]
	[[ "$stderr" == "ai-search: google_cse: the answer from '127.0.0.1:$MOCK_PORT' was cut short: transfer closed with "*" (after several attempts)" ]]
	mock_script '{"routes":{"GET /customsearch/v1":[{"oversize_bytes":9000000}]}}'
	run --separate-stderr google --text q
	[ "$status" -eq 76 ]
	[ "$stderr" = "ai-search: google_cse: the response from '127.0.0.1:$MOCK_PORT' is larger than the limit of 8388608 bytes" ]
	mock_script '{"routes":{"GET /customsearch/v1":[{"status":302,"headers":{"Location":"http://169.254.169.254/"}}]}}'
	run --separate-stderr google --text q
	[ "$status" -eq 76 ]
	[ "$stderr" = "ai-search: google_cse: '127.0.0.1:$MOCK_PORT' answered with a redirect (HTTP 302), which is not followed" ]
	[ "$(mock_count)" -eq 1 ]
}

@test "output that cannot be written is exit 74" {
	run --separate-stderr bash -c "GOOGLE_API_KEY=$GKEY GOOGLE_CSE_CX=$CX ai-search --base-url $MOCK_URL q > /dev/full"
	[ "$status" -eq 74 ]
	[ "$stderr" = "ai-search: write error: No space left on device" ]
}

@test "a failure on page 2 keeps page 1's results and ends with the error" {
	mock_script '{"routes":{"GET /customsearch/v1":[{},{"status":500,"json":{"error":{"code":500,"message":"boom"}}}]}}'
	run --separate-stderr google --retries 0 -n 20 q
	[ "$status" -eq 69 ]
	[ "${#lines[@]}" -eq 11 ]
	echo "${lines[9]}" | jq -e '.rank == 10'
	echo "${lines[10]}" | jq -e '.type == "error" and .code == "unavailable" and .exit == 69 and .status == 500 and .retryable == true'
}

# ---------------------------------------------------------------- the pipeline

@test "ai-search q | ai-ask summarize: the request ai-ask sends carries each result's title and URL" {
	[ -x "$BATS_TEST_DIRNAME/../bin/ai-ask" ] || skip "bin/ai-ask is not built (it lands on branch ai-ask); this test runs once both tools are merged"
	run --separate-stderr bash -c "set -o pipefail; GOOGLE_API_KEY=$GKEY GOOGLE_CSE_CX=$CX ai-search --base-url $MOCK_URL -n 5 'openbsd pledge' |
		OPENAI_API_KEY=sk-test-0123456789abcdefghij OPENAI_BASE_URL=$MOCK_URL/v1 ai-ask summarize"
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	req=$(mock_requests | jq -c 'select(.method == "POST")' | tail -n 1)
	[ -n "$req" ]
	text=$(echo "$req" | jq -r '[.json | .. | strings] | join("\n")')
	[[ "$text" == *summarize* ]]
	while IFS=$'\t' read -r title url; do
		[[ "$text" == *"$title"* ]] || { echo "title missing: $title"; false; }
		[[ "$text" == *"$url"* ]] || { echo "URL missing: $url"; false; }
	done < <(GOOGLE_API_KEY="$GKEY" GOOGLE_CSE_CX="$CX" ai-search --base-url "$MOCK_URL" -n 5 'openbsd pledge' | jq -r '[.title, .url] | @tsv')
}

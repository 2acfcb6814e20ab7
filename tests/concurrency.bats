#!/usr/bin/env bats
# A step's read-only calls run at the same time: execute and run calls are
# spread over several ai-exec servers, web_search calls each have their own
# ai-search, and the results come back in the calls' order.  That they
# overlap is proven without timing: the mock answers each of two requests
# only once the other has arrived (wait_for), so calls made one after the
# other would fail after 10 s.  The wall time is measured in bench/.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	export GOOGLE_API_KEY="AIza-conc-test" GOOGLE_CSE_CX="conc-cx" AICLI_SEARCH_BASE_URL="$MOCK_URL"
	printf '%s\n' "# notes" "- [ ] TODO one" "- [x] done" "- [ ] TODO two" > notes.md
}

curl_call() { jq -nc --arg u "$MOCK_URL$1" '{command: ("curl " + $u)}'; }

@test "two execute calls of one step overlap; their results come in the calls' order" {
	# /slow-a waits for /slow-b and answers half a second later: c2 is done first
	mock_script "{\"routes\":{
		\"POST /v1/responses\":[{\"json\":$(mock_calls c1 execute "$(curl_call /slow-a)" c2 execute "$(curl_call /slow-b)")},{}],
		\"GET /slow-a\":[{\"body\":\"A\\n\",\"wait_for\":\"GET /slow-b\",\"delay_ms\":500}],
		\"GET /slow-b\":[{\"body\":\"B\\n\",\"wait_for\":\"GET /slow-a\"}]}}"
	run --separate-stderr ai-loop -n --json --allow-url "$MOCK_URL/" "fetch both"
	[ "$status" -eq 0 ]
	jq -e -s '[.[] | select(.type == "tool_result")] | length == 2' <<<"$output"
	jq -e -s '[.[] | select(.type == "tool_result")] | .[0].id == "c1" and .[0].ok and .[0].stdout_text == "A\n"
		and .[1].id == "c2" and .[1].ok and .[1].stdout_text == "B\n"' <<<"$output"
	# the next request gives the model the results in the same order
	mock_request 4 | jq -e '[.json.input[] | select(.type == "function_call_output") | .call_id] == ["c1","c2"]'
}

@test "a repeated call goes to the server that ran it: its cache answers, also when the order changes" {
	mock_script "{\"routes\":{\"POST /v1/responses\":[
		{\"json\":$(mock_calls c1 execute '{"command":"wc -l notes.md","idempotency":"k1"}' c2 execute '{"command":"grep -c TODO notes.md","idempotency":"k2"}')},
		{\"json\":$(mock_calls c3 execute '{"command":"grep -c TODO notes.md","idempotency":"k2"}' c4 execute '{"command":"wc -l notes.md","idempotency":"k1"}')},
		{}]}}"
	run --separate-stderr ai-loop -n --json --file notes.md "count"
	[ "$status" -eq 0 ]
	jq -e -s 'map(select(.type == "tool_result")) | map({id, cache_hit, out: .stdout_text}) ==
		[{"id":"c1","cache_hit":false,"out":"4 notes.md\n"},{"id":"c2","cache_hit":false,"out":"2\n"},
		 {"id":"c3","cache_hit":true,"out":"2\n"},{"id":"c4","cache_hit":true,"out":"4 notes.md\n"}]' <<<"$output"
}

@test "searches and an execute call of one step overlap" {
	mock_script "{\"routes\":{
		\"POST /v1/responses\":[{\"json\":$(mock_calls s1 web_search '{"query":"one"}' c1 execute "$(curl_call /slow-a)")},{}],
		\"GET /customsearch/v1\":[{\"wait_for\":\"GET /slow-a\"}],
		\"GET /slow-a\":[{\"body\":\"A\\n\",\"wait_for\":\"GET /customsearch/v1\"}]}}"
	run --separate-stderr ai-loop -n --json --search --allow-url "$MOCK_URL/" "both"
	[ "$status" -eq 0 ]
	jq -e -s 'map(select(.type == "tool_result")) | .[0].id == "s1" and .[0].ok and (.[0].results | length) > 0
		and .[1].id == "c1" and .[1].ok' <<<"$output"
}

@test "run calls at L0 overlap; with --approve L1 every run of a step goes to one server, in order" {
	mkdir -p lx
	for t in ai-ask ai-exec; do
		printf '#!/bin/sh\necho x >> "%s/starts.%s"\nexec "%s" "$@"\n' "$W" "$t" "$(command -v "$t")" > "lx/$t"
		chmod +x "lx/$t"
	done
	printf '{"aicli_policy":1,"programs":{"ls":{"level":"L0","options":["-1"]}}}\n' > policy.json
	calls=$(mock_calls r1 run '{"program":"ls","args":["-1"]}' r2 run '{"program":"ls","args":[]}')
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$calls},{}]}}"
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --json --policy policy.json "list"
	[ "$status" -eq 0 ]
	jq -e -s '[.[] | select(.type == "tool_result") | .id] == ["r1","r2"]' <<<"$output"
	# the server started at the beginning, and one more for the second call
	[ "$(wc -l < starts.ai-exec)" -eq 2 ]
	rm starts.ai-exec
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$calls},{}]}}"
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --json --policy policy.json --approve L1 "list"
	[ "$status" -eq 0 ]
	jq -e -s '[.[] | select(.type == "tool_result") | .id] == ["r1","r2"]' <<<"$output"
	[ "$(wc -l < starts.ai-exec)" -eq 1 ]
}

@test "a server that dies mid-step fails only its own calls; the other server's result stands" {
	mock_script "{\"routes\":{
		\"POST /v1/responses\":[{\"json\":$(mock_calls c1 execute "$(curl_call /slow-a)" c2 execute '{"command":"wc -l notes.md"}')},{}],
		\"GET /slow-a\":[{\"body\":\"A\\n\",\"delay_ms\":20000}]}}"
	ai-loop -n --json --tool-timeout 1 --allow-url "$MOCK_URL/" --file notes.md "both" > out 2> err
	jq -e -s 'map(select(.type == "tool_result")) | .[0].id == "c1" and .[0].ok == false and
		.[1].id == "c2" and .[1].ok and .[1].stdout_text == "4 notes.md\n"' out
}

#!/usr/bin/env bats
# ai-loop --plan-model: one model writes a plan, once and without tools;
# -m's model carries it out with the tools; usage is reported per model.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	printf '%s\n' "# notes" "- [ ] TODO write the man page" > notes.md
}

body() { mock_request "$1" | jq -c .json; }

@test "the plan model is asked once, without tools; then -m's model, with the tools and the plan" {
	run --separate-stderr ai-loop -n --file notes.md --plan-model gpt-4.1 -m gpt-4.1-mini --json \
		"what is left to do in notes.md?"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	[ "$(body 1 | jq -r .model)" = gpt-4.1 ]
	body 1 | jq -e 'has("tools") | not'
	[[ "$(body 1 | jq -r '.input[-1].content')" == "Before doing anything, write a short numbered plan"* ]]
	[ "$(body 2 | jq -r .model)" = gpt-4.1-mini ]
	body 2 | jq -e '.tools | map(.name) | index("execute") != null'
	# the second request carries the task, the plan request, the plan, and the request to carry it out
	[ "$(body 2 | jq -c '[.input[] | .role]')" = '["user","user","assistant","user"]' ]
	[ "$(body 2 | jq -r '.input[2].content')" = pong ]
	[[ "$(body 2 | jq -r '.input[3].content')" == "Now carry out the plan"* ]]
	result=$(tail -n 1 <<<"$output")
	[ "$(jq -r '[.type, .calls] | @tsv' <<<"$result")" = "$(printf 'result\t2')" ]
	[ "$(jq -c '.models | to_entries | map([.key, .value.calls, .value.input_tokens])' <<<"$result")" = \
		'[["gpt-4.1",1,11],["gpt-4.1-mini",1,11]]' ]
}

@test "--usage prints each model's totals under the run's" {
	run --separate-stderr ai-loop -n --plan-model gpt-4.1 --usage "plan, then answer"
	[ "$status" -eq 0 ]
	[ "$output" = pong ]
	[ "$(grep -c '^ai-loop:   gpt-4.1' <<<"$stderr")" -eq 2 ]
	[[ "$stderr" == *"ai-loop: answer after 1 step; 2 model calls;"* ]]
}

@test "the plan counts against the quotas: with --max-calls 1 no step follows it" {
	run --separate-stderr ai-loop -n --plan-model gpt-4.1 --max-calls 1 "plan, then answer"
	[ "$status" -eq 3 ]
	[ "$(mock_count)" -eq 1 ]
	[[ "$stderr" == *"the limit of 1 model calls is reached (--max-calls)"* ]]
}

@test "a plan model that fails stops the run with its status before any step" {
	mock_script '{"routes":{"POST /v1/responses":[{"status":400,"json":{"error":{"message":"no such model"}}}]}}'
	run --separate-stderr ai-loop -n --plan-model nonesuch "plan, then answer"
	[ "$status" -eq 65 ]
	[ "$(mock_count)" -eq 1 ]
	[[ "$stderr" == *"no such model"* ]]
}

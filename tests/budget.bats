#!/usr/bin/env bats
# The budget file a whole job shares: its format, its lock under concurrent
# processes, failing first once spent, --each, and ai-loop's own budget
# passed to its children.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	B="$W/job.budget"
}

used() { jq -r ".$1.used // 0" "$B"; }

@test "each request counts a call and its tokens and cost; once spent, ai-ask fails first with 3 and asks nothing" {
	echo '{"calls": {"limit": 2}, "cost_usd": {"limit": 10}}' > "$B"
	run --separate-stderr ai-ask -n --budget-file "$B" hello
	[ "$status" -eq 0 ]
	[ "$(used calls)" = 1 ]
	[ "$(used weighted_tokens)" = 31 ]
	[ "$(jq '.cost_usd.used * 1e9 | round' "$B")" = 12400 ]
	AICLI_BUDGET_FILE="$B" run --separate-stderr ai-ask -n hello
	[ "$status" -eq 0 ]
	AICLI_BUDGET_FILE="$B" run --separate-stderr ai-ask -n -j hello
	[ "$status" -eq 3 ]
	[[ "$stderr" == "ai-ask: the budget in '$B' is spent: 2 of 2 calls used" ]]
	[ "$(jq -r '[.type, .code, .exit] | @tsv' <<<"$output")" = "$(printf 'error\tlimit\t3')" ]
	[ "$(mock_count)" -eq 2 ]
	[ "$(jq -c . "$B")" = "$(jq -c '.calls.used = 2' "$B")" ]
}

@test "a broken or missing budget file fails first: its fault named, no request" {
	for bad in 'not json' '[1]' '{"calls": 3}' '{"calls": {"limit": -1}}' '{"tokens": {"limit": 1}}' \
		'{"calls": {"limt": 1}}'; do
		printf '%s\n' "$bad" > "$B"
		run --separate-stderr ai-ask -n --budget-file "$B" hello
		[ "$status" -eq 65 ]
		[[ "$stderr" == "ai-ask: budget file '$B': "* ]]
	done
	run --separate-stderr ai-ask -n --budget-file "$W/missing" hello
	[ "$status" -eq 66 ]
	[[ "$stderr" == *"cannot open budget file '$W/missing'"* ]]
	[ "$(mock_count)" -eq 0 ]
}

@test "an answer from the cache spends nothing; an answer that never came spends no tokens" {
	export AICLI_CACHE_DIR="$W/cache"
	echo '{"calls": {"limit": 10}}' > "$B"
	ai-ask -n --cache --budget-file "$B" hello >/dev/null
	ai-ask -n --cache --budget-file "$B" hello >/dev/null
	[ "$(used calls)" = 1 ]
	[ "$(used weighted_tokens)" = 31 ]
	mock_script '{"routes":{"POST /v1/responses":[{"status":500,"json":{"error":{"message":"down"}}}]}}'
	run ai-ask -n --retries 0 --budget-file "$B" other
	[ "$status" -eq 69 ]
	[ "$(used calls)" = 2 ]
	[ "$(used weighted_tokens)" = 31 ]
}

@test "eight processes at once on one file: the lock loses nothing, and none overspends by more than its one request" {
	echo '{"weighted_tokens": {"limit": 200}}' > "$B"
	seq 24 | xargs -P 8 -I{} sh -c 'ai-ask -n -j --budget-file "$1" "q{}" > "$2/out.{}" 2>/dev/null; echo $? > "$2/rc.{}"' _ "$B" "$W"
	ok=$(grep -lx 0 "$W"/rc.* | wc -l)
	spent=$(grep -lx 3 "$W"/rc.* | wc -l)
	[ $((ok + spent)) -eq 24 ]
	[ "$spent" -gt 0 ]
	# the file counts every request that was made, and each one's tokens
	[ "$(used calls)" -eq "$(mock_count)" ]
	[ "$(used calls)" -eq "$ok" ]
	[ "$(used weighted_tokens)" -eq $((ok * 31)) ]
	# at most the requests in flight when the limit was reached went past it: one a process
	[ "$(used weighted_tokens)" -lt $((200 + 8 * 31)) ]
}

@test "--each draws on the budget per prompt and stops once it is spent" {
	echo '{"calls": {"limit": 3}}' > "$B"
	run --separate-stderr ai-ask --each -P 1 --budget-file "$B" <<<$'a\nb\nc\nd\ne'
	[ "$status" -eq 3 ]
	[ "$(jq -c 'select(.type == "message") | .id' <<<"$output" | tr '\n' ' ')" = "1 2 3 " ]
	[ "$(jq -c 'select(.type == "error") | [.id, .exit]' <<<"$output")" = "[4,3]" ]
	[[ "$stderr" == *"stopped after 4 prompts: the budget is spent"* ]]
	[ "$(mock_count)" -eq 3 ]
}

@test "ai-loop names a file of its own limits to its children; a spent shared budget stops it first" {
	mkdir -p "$W/bin"
	# a stand-in for ai-ask that shows what budget it was given, then answers
	cat > "$W/bin/ai-ask" <<'EOF2'
#!/bin/sh
cat "$AICLI_BUDGET_FILE" > "$SEEN"
printf '%s\n' '{"type":"message","role":"assistant","content":"done"}'
printf '%s\n' '{"type":"usage","model":"m","input_tokens":1,"cached_tokens":0,"output_tokens":1,"calls":1,"weighted_tokens":5}'
EOF2
	chmod +x "$W/bin/ai-ask"
	export SEEN="$W/seen"
	AICLI_LIBEXEC="$W/bin" run --separate-stderr ai-loop -n --max-calls 7 --budget 900 "task"
	[ "$status" -eq 0 ]
	[ "$(jq -c . "$SEEN")" = '{"calls":{"limit":7,"used":0},"weighted_tokens":{"limit":900,"used":0}}' ]
	[ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'aicli-budget.*' -newer "$W/bin/ai-ask" 2>/dev/null)" ]
	echo '{"calls": {"limit": 5, "used": 5}}' > "$B"
	AICLI_LIBEXEC="$W/bin" run --separate-stderr ai-loop -n --budget-file "$B" "task"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"the budget in '$B' is spent: 5 of 5 calls used"* ]]
	echo '{"calls": {"limit": 5, "used": 1}}' > "$B"
	rm -f "$SEEN"
	AICLI_BUDGET_FILE="$B" AICLI_LIBEXEC="$W/bin" run --separate-stderr ai-loop -n "task"
	[ "$status" -eq 0 ]
	[ "$(jq -c . "$SEEN")" = '{"calls":{"limit":5,"used":1}}' ]
}

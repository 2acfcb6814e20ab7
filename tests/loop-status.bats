#!/usr/bin/env bats
# ai-loop's live status line: on a terminal (a pseudo-terminal here) it
# shows the step, the tool calls as they start, tokens and cost, redrawn in
# place, messages and records above it, and it is erased before the answer;
# in a pipe, with -vv, or on a dumb terminal there is none.  The model
# answers after a delay so that the line has time to appear (it waits a
# quarter second); nothing here measures time.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	clean_env
	W="$BATS_TEST_TMPDIR"
	export AICLI_CONFIG="$W/config.json"
	echo '{}' > "$AICLI_CONFIG"
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY="sk-status-test-0123456789"
	export TERM=xterm
	cd "$W"
	printf '%s\n' "# notes" "- [ ] TODO write the man page" "- [ ] TODO bench" > notes.md
	two_steps
}

# step 1 calls execute, step 2 answers; each after a second and a half
two_steps() {
	local call
	call=$(mock_calls c1 execute '{"command":"grep -c TODO notes.md"}')
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$call,\"delay_ms\":1500},{\"delay_ms\":1500}]}}"
}

TTY="$BATS_TEST_DIRNAME/helpers/on-tty.py"

# plain FILE: the terminal's text with every status line and erasure taken out
plain() {
	python3 -c '
import re, sys
t = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
t = re.sub(r"\r(\x1b\[2m)?ai-loop: step [^\r\n\x1b]*(\x1b\[0m)?\x1b\[K", "", t)
sys.stdout.write(t.replace("\r\x1b[K", ""))' "$1"
}

@test "on a terminal: the step, the tool call, tokens and cost, redrawn in place, erased before the answer" {
	run python3 "$TTY" --transcript "$W/tty" -- ai-loop -n --file notes.md "how many TODOs?"
	[ "$status" -eq 0 ]
	t=$(cat -v "$W/tty")
	echo "$t"
	[[ "$t" == *"^M^[[2mai-loop: step 1 of 10 | asking the model "* ]]
	[[ "$t" == *"ai-loop: step 1 of 10 | execute: grep -c TODO notes.md "* ]]
	[[ "$t" == *"ai-loop: step 2 of 10 | asking the model "* ]]
	# the tokens and cost of the first call, before the second ends
	[[ "$t" == *"| 58+23 tokens | \$0."* ]]
	# erased, and then the answer alone on its line
	[[ "$t" == *"^[[0m^[[K^M^[[Kpong" ]]
	[ "$(plain "$W/tty")" = "pong" ]
}

@test "NO_COLOR: the same line, without the faint style" {
	run python3 "$TTY" --transcript "$W/tty" -- env NO_COLOR=1 ai-loop -n --file notes.md "how many?"
	[ "$status" -eq 0 ]
	t=$(cat -v "$W/tty")
	[[ "$t" == *"^Mai-loop: step 1 of 10 | asking the model "* ]]
	[[ "$t" != *"^[[2m"* && "$t" != *"^[[0m"* ]]
	[ "$(plain "$W/tty")" = "pong" ]
}

@test "in a pipe there is no status: stderr stays empty on success, stdout is the answer" {
	run --separate-stderr ai-loop -n --file notes.md "how many TODOs?"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	[ -z "$stderr" ]
	# stdout on the terminal but stderr in a file: none either
	two_steps
	run python3 "$TTY" --stderr "$W/err" --transcript "$W/tty" -- ai-loop -n --file notes.md "how many?"
	[ "$status" -eq 0 ]
	[ ! -s "$W/err" ]
	[ "$(cat "$W/tty")" = "pong" ]
}

@test "no status on a dumb terminal, nor with -vv (the children write to the terminal themselves)" {
	run python3 "$TTY" --transcript "$W/tty" -- env TERM=dumb ai-loop -n --file notes.md "how many?"
	[ "$status" -eq 0 ]
	[ "$(cat "$W/tty")" = "pong" ]
	mock_reset
	run python3 "$TTY" --transcript "$W/tty" -- ai-loop -n -vv "hi"
	[ "$status" -eq 0 ]
	! grep -q 'ai-loop: step [0-9]* of' "$W/tty"
}

@test "messages go above the line, whole; with -v each step's line too" {
	run python3 "$TTY" --transcript "$W/tty" -- ai-loop -n -v --file notes.md "how many TODOs?"
	[ "$status" -eq 0 ]
	p=$(plain "$W/tty")
	echo "$p"
	# every message is a line of its own, and the status came and went around them
	grep -qx 'ai-loop: step 1: 1 tool call ([0-9.]* m*s)' <<<"$p"
	grep -q '^ai-loop: step 1: execute {"command":"grep -c TODO notes.md"}: ok' <<<"$p"
	# the answer, then the totals
	[ "$(tail -n 2 <<<"$p" | head -n 1)" = "pong" ]
	grep -q '^ai-loop: answer after 2 steps' <<<"$(tail -n 1 <<<"$p")"
	grep -q 'ai-loop: step 2 of 10' "$W/tty"
}

@test "records written to the same terminal (--json) are whole lines, the status between them" {
	run python3 "$TTY" --transcript "$W/tty" -- ai-loop -n --json --file notes.md "how many TODOs?"
	[ "$status" -eq 0 ]
	plain "$W/tty" > "$W/records"
	jq -e -s 'map(.type) | .[0] == "message" and .[-1] == "result" and (index("tool_call") != null)' \
		"$W/records"
	grep -q 'ai-loop: step 1 of 10' "$W/tty"
}

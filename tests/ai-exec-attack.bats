#!/usr/bin/env bats
# ai-exec is the security boundary of aicli: the attacks, by category, each
# asserting refusal or containment, the message, the exit status, and that
# nothing else was read, fetched or written.  The static ones are the table
# tests/ai-exec/attacks.txt, run here under strace; the ones that need a
# server, a swap, time or a terminal are below.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/exec

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	exec_fixtures "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY
}

# A listing of the scratch folder with sizes and checksums: "nothing written".
tree_state() {
	find . -printf '%p %y %s %m\n' | sort
	find . -type f -exec md5sum {} + | sort
}

@test "the attack table: each case refused with its message and status; no child, no connection, no other path" {
	command -v strace >/dev/null || { echo "strace is needed (make deps)"; false; }
	before=$(tree_state)
	EXEC_TRACE=1 run exec_table "$BATS_TEST_DIRNAME/ai-exec/attacks.txt"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" cases, 0 failed" ]]
	[ "$(tree_state)" = "$before" ]
	[ "$(mock_count)" -eq 0 ]
}

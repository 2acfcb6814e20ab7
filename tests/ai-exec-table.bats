#!/usr/bin/env bats
# ai-exec's built-ins, table-driven: tests/ai-exec/cases.txt holds (command,
# exit status, standard output, standard error) cases; the format is in
# tests/helpers/exec.bash (exec_table).

load helpers/env
load helpers/exec

setup() {
	clean_env
	exec_fixtures "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
}

@test "every case of tests/ai-exec/cases.txt gives its output, its messages and its exit status" {
	run exec_table "$BATS_TEST_DIRNAME/ai-exec/cases.txt"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" cases, 0 failed" ]]
}

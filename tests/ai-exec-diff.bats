#!/usr/bin/env bats
# ai-exec's built-ins side by side with GNU coreutils, GNU grep and jq 1.6:
# tests/diff/difftest.py generates the inputs and several thousand pipelines
# from a fixed seed, runs each through ai-exec --serve and through bash with
# LC_ALL=C, and compares standard output byte for byte and the exit status.
# A pipeline showing a row of the table of differences in ai-exec(1) must give
# what that row says, and GNU must give something else.

load helpers/env

setup() {
	clean_env
}

@test "differential: thousands of generated pipelines give GNU's output and status, or a documented difference" {
	run python3 "$BATS_TEST_DIRNAME/diff/difftest.py" "$BATS_TEST_TMPDIR/w" --seed 15 --cases 4000
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^([0-9]+)\ pipelines:\ ([0-9]+)\ identical,\ ([0-9]+)\ documented\ differences,\ 0\ mismatches$ ]]
	[ "${BASH_REMATCH[1]}" -ge 4000 ]
	[ "${BASH_REMATCH[3]}" -ge 50 ]
}

@test "differential: a pipeline that differs from GNU is reported with both outputs" {
	# a table of differences without the row for tail: its pipelines must be reported
	sed 's/^\.It Cm tail$/.It Cm tailx/' "$BATS_TEST_DIRNAME/../man/ai-exec.1" >"$BATS_TEST_TMPDIR/ai-exec.1"
	run python3 "$BATS_TEST_DIRNAME/diff/difftest.py" "$BATS_TEST_TMPDIR/w" --cases 0 \
		--only tail --man "$BATS_TEST_TMPDIR/ai-exec.1"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"MISMATCH: tail -s 1 log.txt"*"tagged 'tail', which is no row of ai-exec(1)"* ]]
	[[ "${lines[-1]}" == *" mismatches" ]]
	[[ "${lines[-1]}" != *" 0 mismatches" ]]
}

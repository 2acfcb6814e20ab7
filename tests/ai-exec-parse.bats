#!/usr/bin/env bats
# ai-exec's parsers of program output (git status, grep/rg matches, file
# lists), the choice of parser from a run's arguments, and the scanner of
# git configuration files: the table tests/ai-exec/outputs.txt, run through
# tests/helpers/exec-parsers, and the cases a text table cannot hold.

bats_require_minimum_version 1.5.0

P="$BATS_TEST_DIRNAME/helpers/exec-parsers"

# run_table FILE: every case; print the failures; fail if any.
run_table() {
	local args="" input="" want="" line n=0 fails=0 got
	run_case() {
		[ -n "$args" ] || return 0
		n=$((n + 1))
		# shellcheck disable=SC2086
		got=$(printf '%s' "$input" | "$P" $args 2>&1)
		if [ "$got" != "$want" ]; then
			fails=$((fails + 1))
			printf 'FAIL: %s\n  input:\n%s\n  want: %s\n  got:  %s\n' "$args" "$input" "$want" "$got"
		fi
		args="" input="" want=""
	}
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		'#'*) continue ;;
		'') run_case; continue ;;
		'== '*) args=${line#== } ;;
		'<') input+=$'\n' ;;
		'<~ '*) input+="${line#<~ }" ;;
		'< '*) input+="${line#< }"$'\n' ;;
		'> '*) want=${line#> } ;;
		*) echo "bad line: $line"; return 1 ;;
		esac
	done <"$1"
	run_case
	echo "$n cases, $fails failed"
	[ "$fails" -eq 0 ] && [ "$n" -gt 0 ]
}

@test "the table: each output gives its items, each run its parser, each config its drivers" {
	run run_table "$BATS_TEST_DIRNAME/ai-exec/outputs.txt"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" cases, 0 failed" ]]
}

@test "bytes that are not UTF-8, NUL and CR: valid JSON text, U+FFFD in their place" {
	run "$P" parse matches --with-file < <(printf 'a\377.c:1:x\000y\r\nb.c:2:\303\n')
	[ "$status" -eq 0 ]
	[ "$output" = '{"kind":"matches","total":2,"items":[{"file":"a�.c","line":1,"text":"x�y"},{"file":"b.c","line":2,"text":"�"}]}' ]
	run "$P" parse git_status < <(printf '?? "\\377\\000"\n')
	jq -e '.items[0].path == "�\ufffd"' <<<"$output"
}

@test "a long line is cut at 512 bytes, on a character boundary" {
	long=$(printf 'é%.0s' $(seq 400))
	run "$P" parse matches < <(printf '1:%s\n' "$long")
	[ "$status" -eq 0 ]
	[ "$(jq -r '.items[0].text | utf8bytelength' <<<"$output")" -eq 512 ]
	long=$(printf 'x%.0s' $(seq 1001))é
	run "$P" parse files < <(printf 'a%s\n' "$long")
	[ "$(jq -r '.items[0].name | utf8bytelength' <<<"$output")" -eq 512 ]
}

@test "items are capped, the total counts them all, on a large output" {
	run "$P" parse files < <(seq 100000)
	[ "$status" -eq 0 ]
	jq -e '.total == 100000 and (.items | length) == 50 and .items[49].name == "50"' <<<"$output"
}

@test "a quoted path cut short, a lone quote, a rename arrow without a target" {
	run "$P" parse git_status < <(printf '?? "unterminated\\\n?? "\nR  a -> \nR  "x" -> "y\n')
	[ "$status" -eq 0 ]
	jq -e '.total == 4 and .items[0].path == "unterminated\\" and .items[1].path == "" and
		.items[2].path == "" and .items[2].from == "a" and .items[3].path == "y"' <<<"$output"
}

@test "git configuration as git reads it: a byte-order mark, CRLF line ends, the sections and keys that name programs and files" {
	run "$P" gitcfg < <(printf '\357\273\277[core] worktree = /elsewhere\r\n[include]\r\n\tpath = extra.cfg\r\n')
	[ "$output" = '{"drivers":[],"includes":["extra.cfg"],"worktree":true}' ]
	# a BOM anywhere else is a character git does not skip: that line is not a section
	run "$P" gitcfg < <(printf '[core]\n\357\273\277[filter "x"]\n')
	[ "$output" = '{"drivers":[],"includes":[],"worktree":false}' ]
	run "$P" gitcfg < <(printf '[http "https://e.com/"]\r\n\tcookieFile = /x\r\n[credential "https://e.com"]\r\n\thelper = !evil\r\n[submodule "m"]\r\n\tupdate = !evil\r\n[remote "origin"]\r\n\turl = x\r\n\treceivepack = evil\r\n[blame]\r\n\tignoreRevsFile = ~/.aicli.json\r\n')
	[ "$output" = '{"drivers":["http.https://e.com/","credential.https://e.com","submodule.m"],"includes":[],"worktree":false,"files":["~/.aicli.json"],"unsafe":"remote.origin.receivepack"}' ]
	# a lone CR is part of the value, as git keeps it
	run "$P" gitcfg < <(printf '[include]\n\tpath = a\rb\n')
	[ "$output" = $'{"drivers":[],"includes":["a\\rb"],"worktree":false}' ]
}

#!/usr/bin/env bats
# ai-exec: the command line, paging, records, --serve, the cache, the audit
# log, the limits and curl against the mock.  The built-ins' outputs are in
# the table (ai-exec-table.bats), the attacks in ai-exec-attack.bats.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env
load helpers/exec

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	exec_fixtures "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
	clean_env
}


# A file of N lines "line NNNNNN" (12 bytes each).
numbered() {
	awk -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) printf "line %06d\n", i }' >"$1"
}


# ---- the command line ----

@test "one command: its output on stdout, nothing on stderr, exit 0" {
	run --separate-stderr ai-exec --file notes.md 'cat notes.md | grep -i todo | wc -l'
	[ "$status" -eq 0 ]
	[ "$output" = "2" ]
	[ -z "$stderr" ]
}

@test "usage errors exit 64 with the hint, and run nothing" {
	run ai-exec --file notes.md
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "ai-exec: a COMMAND is needed (or --serve)" ]
	[ "${lines[1]}" = "ai-exec: try 'ai-exec --help' for more information" ]
	run ai-exec --file notes.md cat notes.md
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "ai-exec: the COMMAND is one argument: quote it (ai-exec --file F 'cat F | head')" ]
	run ai-exec --serve 'cat notes.md'
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "ai-exec: --serve reads tool calls from standard input: no COMMAND" ]
	run ai-exec --serve --start 5 </dev/null
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "ai-exec: --json, --start, --size and --reason go with one COMMAND, not --serve" ]
	run ai-exec --size 5000 'cat notes.md'
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "ai-exec: --size 5000 is larger than --max-size 4096" ]
	run ai-exec --max-memory 1 'cat notes.md'
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "ai-exec: option '--max-memory': '1' is out of range 64..1048576" ]
	run ai-exec --timeout 0 'cat notes.md'
	[ "$status" -eq 64 ]
}

@test "--file: a missing file is 66, a directory, device or FIFO 77, a binary file 77, a big one 3" {
	run ai-exec --file nope.md 'cat nope.md'
	[ "$status" -eq 66 ]
	[ "$output" = "ai-exec: cannot open 'nope.md': No such file or directory" ]
	mkdir dir
	run ai-exec --file dir 'cat dir'
	[ "$status" -eq 77 ]
	[ "$output" = "ai-exec: 'dir' is not a regular file: only regular files can be listed" ]
	run ai-exec --file /dev/null 'cat /dev/null'
	[ "$status" -eq 77 ]
	[ "$output" = "ai-exec: '/dev/null' is not a regular file: only regular files can be listed" ]
	printf 'GIF89a\0\0\1\0' >img.gif
	run ai-exec --file img.gif 'cat img.gif'
	[ "$status" -eq 77 ]
	[ "$output" = "ai-exec: 'img.gif' looks like a binary file: only text files can be listed" ]
	run ai-exec --max-file 10 --file notes.md 'cat notes.md'
	[ "$status" -eq 3 ]
	[ "$output" = "ai-exec: 'notes.md' is 78 bytes, larger than the limit of 10 bytes (--max-file)" ]
}

@test "a file with control characters under 30% of its first 512 bytes is text; above, binary" {
	{ printf 'a%.0s' $(seq 1 80); printf '\001%.0s' $(seq 1 20); echo; } >some.txt
	run ai-exec --file some.txt 'wc -c some.txt'
	[ "$status" -eq 0 ]
	[ "$output" = "101 some.txt" ]
	{ printf 'a%.0s' $(seq 1 60); printf '\001%.0s' $(seq 1 40); } >many.txt
	run ai-exec --file many.txt 'wc -c many.txt'
	[ "$status" -eq 77 ]
	# Japanese text is text: multibyte UTF-8 is not "non-printable"
	run ai-exec --file utf8.txt 'wc -l utf8.txt'
	[ "$status" -eq 0 ]
	[ "$output" = "2 utf8.txt" ]
}

@test "--allow-url: malformed, with user information, a query or a fragment is 64" {
	run ai-exec --allow-url 'ftp://x.example/' 'cat notes.md'
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "ai-exec: --allow-url 'ftp://x.example/': only http and https URLs are supported" ]
	[ "${lines[1]}" = "ai-exec: try 'ai-exec --help' for more information" ]
	run ai-exec --allow-url 'https://u:p@x.example/' 'cat notes.md'
	[ "$status" -eq 64 ]
	[[ "${lines[0]}" == *"a prefix is scheme://host[:port][/path], without user information, query or fragment" ]]
	run ai-exec --allow-url 'https://x.example/a?b=c' 'cat notes.md'
	[ "$status" -eq 64 ]
}

@test "--audit that cannot be opened is 74, before anything runs" {
	mkdir logdir
	run ai-exec --audit logdir --file notes.md 'cat notes.md'
	[ "$status" -eq 74 ]
	[ "$output" = "ai-exec: cannot open the audit log 'logdir': Is a directory" ]
	run ai-exec --audit /nonexistent/dir/log --file notes.md 'cat notes.md'
	[ "$status" -eq 74 ]
}

# ---- paging ----

@test "paging: --size and --start cut the output; a note on stderr gives the next start" {
	run --separate-stderr ai-exec --file notes.md --size 10 'cat notes.md | nl'
	[ "$status" -eq 0 ]
	[ "$output" = "     1	# N" ]
	[ "$stderr" = "ai-exec: the output is 134 bytes; this is bytes 0 to 10: --start 10 shows more" ]
	run --separate-stderr ai-exec --file notes.md --start 117 'cat notes.md | nl'
	[ "$status" -eq 0 ]
	[ "$output" = "     6	last line" ]
	[ -z "$stderr" ]
	run --separate-stderr ai-exec --file notes.md --start 500 'cat notes.md | nl'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "paging with next_start returns every byte exactly once, for a pipeline and for a lone cat" {
	numbered big.txt 3000
	for cmd in 'cat big.txt | nl -b a | grep -v 7' 'cat big.txt'; do
		want=$(LC_ALL=C sh -c "${cmd//-b a/-ba}" | od -c | md5sum)
		start=0
		: >pages
		total=
		for ((i = 0; i < 100; i++)); do
			rec=$(ai-exec --json --file big.txt --size 1000 --start "$start" "$cmd")
			jq -j .stdout_text <<<"$rec" >>pages
			total=$(jq .total_bytes <<<"$rec")
			next=$(jq .next_start <<<"$rec")
			[ "$(jq '.stdout_text | utf8bytelength' <<<"$rec")" -le 1000 ]
			[ "$next" = null ] && break
			[ "$(jq .truncated <<<"$rec")" = true ]
			start=$next
		done
		[ "$(od -c pages | md5sum)" = "$want" ]
		[ "$(wc -c <pages)" -eq "$total" ]
	done
}

@test "a page is cut on a UTF-8 character boundary; a page smaller than a character cuts bytes" {
	printf '\346\227\245\346\234\254\350\252\236\n' >ja.txt
	run ai-exec --json --file ja.txt --size 4 'cat ja.txt | head -n 1'
	[ "$status" -eq 0 ]
	[ "$(jq -r .stdout_text <<<"$output")" = "日" ]
	[ "$(jq .next_start <<<"$output")" = 3 ]
	[ "$(jq .total_bytes <<<"$output")" = 10 ]
	# the lone-cat path (seeking) cuts the same way
	run ai-exec --json --file ja.txt --size 4 --start 3 'cat ja.txt'
	[ "$(jq -r .stdout_text <<<"$output")" = "本" ]
	[ "$(jq .next_start <<<"$output")" = 6 ]
	run ai-exec --json --file ja.txt --size 1 'cat ja.txt'
	[ "$(jq .next_start <<<"$output")" = 1 ]
	[ "$(jq -r .stdout_text <<<"$output")" = $'\xef\xbf\xbd' ]
}

@test "a lone cat reads only the page: a page deep in a 10 MB file within a 20 kB read limit" {
	numbered big.txt 800000
	run ai-exec --json --file big.txt --max-read 20000 --size 24 --start 5000004 'cat big.txt'
	[ "$status" -eq 0 ]
	[ "$(jq -r .stdout_text <<<"$output")" = $'line 416668\nline 416669' ]
	[ "$(jq .next_start <<<"$output")" = 5000028 ]
	[ "$(jq .total_bytes <<<"$output")" = 9600000 ]
	# through a pipeline, cat reads as far as the stage after it needs: head's line, tail's end
	run ai-exec --json --file big.txt --max-read 20000 'cat big.txt | head -n 1'
	[ "$status" -eq 0 ]
	[ "$(jq -r .stdout_text <<<"$output")" = $'line 000001' ]
	run ai-exec --json --file big.txt --max-read 20000 'cat big.txt | tail -n 2'
	[ "$status" -eq 0 ]
	[ "$(jq -r .stdout_text <<<"$output")" = $'line 799999\nline 800000' ]
	# a stage that needs it all: the read limit applies, and names the stage that read
	run ai-exec --json --file big.txt --max-read 20000 'cat big.txt | wc -l'
	[ "$status" -eq 3 ]
	[ "$(jq -r .error <<<"${lines[0]}")" = "stage 1 (cat): the command read more than the limit of 20000 bytes (--max-read)" ]
	[ "$(jq -r .error_kind <<<"${lines[0]}")" = limit ]
	# the failure ends the records, so that a next tool in a pipe stops too
	jq -e '.type == "error" and .tool == "ai-exec" and .exit == 3 and .code == "limit"' <<<"${lines[1]}"
}

# ---- records and text ----

@test "--json: one tool_result record with the seed's fields, exit status = exit_code" {
	run --separate-stderr ai-exec --json --file notes.md 'grep -c TODO notes.md'
	[ "$status" -eq 0 ]
	[ "$output" = '{"type":"tool_result","name":"execute","ok":true,"stdout_text":"1\n","stderr_text":"","exit_code":0,"total_bytes":2,"next_start":null,"truncated":false,"cache_hit":false}' ]
	[ -z "$stderr" ]
	run --separate-stderr ai-exec --json --file notes.md 'cat secret.txt'
	[ "$status" -eq 77 ]
	jq -e '.ok == false and .error_kind == "policy" and .exit_code == 77 and .stdout_text == "" and
		(.error | startswith("cat: cannot read '"'secret.txt'"': not allowed")) and
		.stderr_text == .error + "\n"' <<<"${lines[0]}"
	jq -e --argjson r "${lines[0]}" '.type == "error" and .exit == 77 and .message == $r.error' <<<"${lines[1]}"
	[ "${#lines[@]}" -eq 2 ]
	[[ "$stderr" == "ai-exec: cat: cannot read 'secret.txt': not allowed"* ]]
}

@test "--json carries the bytes as JSON: UTF-8 as is, invalid bytes and NUL as U+FFFD" {
	{ head -c 600 /dev/zero | tr '\0' a; printf '\nok\0nul \377 bad caf\303\251\n'; } >mixed.txt
	run ai-exec --json --file mixed.txt 'tail -n 1 mixed.txt'
	[ "$status" -eq 0 ]
	[ "$(jq -r .stdout_text <<<"$output")" = $'ok\xef\xbf\xbdnul \xef\xbf\xbd bad café' ]
	# the sizes count the original bytes
	[ "$(jq .total_bytes <<<"$output")" = 19 ]
	# and the record is strict JSON for the suite's readers
	jq -e . <<<"$output" >/dev/null
}

@test "escape sequences in a file: raw into a pipe, escaped in JSON, made visible on a terminal" {
	run ai-exec --file escape.txt 'cat escape.txt'
	[ "$output" = $'plain \e[31mred\e[0m \e]0;title\a end' ]
	run ai-exec --json --file escape.txt 'cat escape.txt'
	[[ "$output" == *'"stdout_text":"plain \u001b[31mred\u001b[0m \u001b]0;title\u0007 end\n"'* ]]
	command -v script >/dev/null || { echo "script(1) is needed"; false; }
	out=$(script -qec "ai-exec --file escape.txt 'cat escape.txt'" /dev/null </dev/null | tr -d '\r')
	[ "$out" = 'plain ^[[31mred^[[0m ^[]0;title^G end' ]
	[[ "$out" != *$'\e'* ]]
}

# ---- how a pipeline fails ----

@test "a failing stage: the stages after it run, ok:false, exit 1, stderr names the stage" {
	run --separate-stderr ai-exec --file stream.ndjson 'jq .a stream.ndjson | jq ". + 1" | head -n 5'
	[ "$status" -eq 1 ]
	[ "$output" = $'2\n3' ]
	[ "$stderr" = 'ai-exec: stage 2 (jq): error (at <stdin>:3): string ("x") and number (1) cannot be added' ]
	run --separate-stderr ai-exec --json --file stream.ndjson 'jq .a stream.ndjson | jq ". + 1" | head -n 5'
	jq -e '.ok == false and .error_kind == "execution" and .exit_code == 1 and .stdout_text == "2\n3\n"' <<<"${lines[0]}"
	jq -e '.type == "error" and .exit == 1 and .code == "failed"' <<<"${lines[1]}"
}

@test "a success's messages reach stderr too: grep's binary file, jq's debug and halt_error(0)" {
	{ printf '%0599d\n' 0; printf 'alpha\0beta\nalpha\n'; } >nul.txt
	run --separate-stderr ai-exec --file nul.txt 'grep alpha nul.txt'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$stderr" = 'ai-exec: grep: nul.txt: binary file matches' ]
	run --separate-stderr ai-exec --file nul.txt 'grep -c alpha nul.txt'
	[ "$status" -eq 0 ]
	[ "$output" = 2 ]
	[ -z "$stderr" ]
	run --separate-stderr ai-exec --file stream.ndjson 'jq -c "debug | .a" stream.ndjson | head -n 1'
	[ "$status" -eq 0 ]
	[ "$output" = 1 ]
	[[ "$stderr" == 'ai-exec: stage 1 (jq): ["DEBUG:",{"a":1}]'* ]]
	run --separate-stderr ai-exec --file stream.ndjson "jq -n '\"bye\" | halt_error(0)'"
	[ "$status" -eq 0 ]
	[ "$stderr" = 'ai-exec: jq: bye' ]
	# with --json the messages are in the record
	run --separate-stderr ai-exec --json --file nul.txt 'grep alpha nul.txt'
	[ -z "$stderr" ]
	jq -e '.ok and .stderr_text == "grep: nul.txt: binary file matches\n"' <<<"$output"
}

@test "grep selecting nothing: exit 1 (ok) as the last stage, no effect in the middle" {
	run --separate-stderr ai-exec --file notes.md 'grep zzz notes.md'
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	run ai-exec --json --file notes.md 'grep zzz notes.md'
	jq -e '.ok == true and .exit_code == 1' <<<"$output"
	# no error record: selecting nothing is not a failure
	[ "${#lines[@]}" -eq 1 ]
	run ai-exec --file notes.md 'grep zzz notes.md | wc -l'
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
}

@test "a jq syntax error or a bad regular expression refuses the command (65): nothing runs" {
	run ai-exec --file data.json 'jq ".name |" data.json'
	[ "$status" -eq 65 ]
	[ "$output" = "ai-exec: jq: syntax error, unexpected end of the filter (Unix shell quoting issues?) at <top-level>" ]
	run ai-exec --file notes.md 'grep -E "a(" notes.md'
	[ "$status" -eq 65 ]
	[ "$output" = "ai-exec: grep: Unmatched ( or \\(" ]
	# a basic regular expression's "(" is a character, as in GNU grep
	run ai-exec --file notes.md 'grep -c "a(" notes.md'
	[ "$status" -eq 1 ]
	[ "$output" = 0 ]
	run ai-exec --file notes.md "grep '\(a\)\1' notes.md"
	[ "$status" -eq 77 ]
	[ "$output" = "ai-exec: grep: back-references are not supported: no matcher runs them in time linear in the input" ]
}

# ---- the file hint ----

@test "the file argument: the input of a bare cat, or a file the command reads; else an error" {
	call 1 'cat | head -n 1' '{"file":"notes.md"}' >in
	call 2 'grep -c a notes.md' '{"file":"notes.md"}' >>in
	call 3 'grep -c a words.txt' '{"file":"notes.md"}' >>in
	call 4 'cat' '{"file":"secret.txt"}' >>in
	call 5 'nl' '{"file":"notes.md"}' >>in
	run ai-exec --serve --file notes.md --file words.txt <in
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	jq -e '.id == "1" and .ok and .stdout_text == "# Notes\n"' <<<"${lines[0]}"
	jq -e '.id == "2" and .ok and .stdout_text == "4\n"' <<<"${lines[1]}"
	jq -e '.id == "3" and .ok == false and .error_kind == "usage" and .error == "argument '"'file'"' names '"'notes.md'"', which the command does not read: give it as an operand, or start with '"'cat'"' and no operand"' <<<"${lines[2]}"
	jq -e '.id == "4" and .ok == false and .error_kind == "policy" and (.error | startswith("argument '"'file'"': cannot read '"'secret.txt'"': not allowed"))' <<<"${lines[3]}"
	jq -e '.id == "5" and .ok == false and .error_kind == "usage"' <<<"${lines[4]}"
}

# ---- --serve ----

@test "--serve: one result per call, in order, with the call's id and name" {
	for i in 1 2 3; do call "c$i" "head -n $i notes.md | tail -n 1"; done >in
	run --separate-stderr ai-exec --serve --file notes.md <in
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 3 ]
	jq -e '.type == "tool_result" and .id == "c1" and .name == "execute" and .stdout_text == "# Notes\n"' <<<"${lines[0]}"
	jq -e '.id == "c2" and .stdout_text == "\n"' <<<"${lines[1]}"
	jq -e '.id == "c3" and .stdout_text == "alpha beta\n"' <<<"${lines[2]}"
}

@test "--serve: a bad line gets an ok:false result naming its line, and the server goes on" {
	{
		call a 'wc -l notes.md'
		echo '{"type":"tool_call","id":"b",'
		echo ''
		echo '{"type":"message","role":"user","content":"hi","id":"c"}'
		echo '{"type":"tool_call","id":"d","name":"web_search","arguments":{"query":"x"}}'
		echo '{"type":"tool_call","id":"e","name":"execute","arguments":"{\"command\":\"wc -l notes.md\"}"}'
		echo '{"type":"tool_call","id":"f","name":"execute","arguments":{"command":"wc -l notes.md","star":5}}'
		echo '{"type":"tool_call","name":"execute","arguments":{"command":"wc -l notes.md"}}'
		echo '{"type":"tool_call","id":"h","name":"execute","arguments":{}}'
		echo '[1,2]'
		echo '{"type":"tool_call","id":"j","name":"execute","arguments":{"command":"wc -l notes.md","start":-1}}'
		echo '{"type":"tool_call","id":"k","name":"execute","arguments":{"command":"wc -l notes.md","command":"x"}}'
		echo '{"type":"tool_call","id":"l","name":7}'
		call z 'wc -l notes.md'
	} >in
	run --separate-stderr ai-exec --serve --file notes.md <in
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 13 ]
	jq -e '.id == "a" and .ok' <<<"${lines[0]}"
	jq -e '.id == null and .name == null and .ok == false and .error_kind == "usage" and (.error | startswith("line 2: "))' <<<"${lines[1]}"
	jq -e '.id == "c" and .ok == false and .error == "line 4: a '"'message'"' record is not a tool call"' <<<"${lines[2]}"
	jq -e '.id == "d" and .name == "web_search" and .ok == false and .error_kind == "unavailable" and .error == "line 5: tool '"'web_search'"' is not served by ai-exec (it serves: execute, run)"' <<<"${lines[3]}"
	jq -e '.id == "e" and .ok == false and .error == "the arguments must be a JSON object"' <<<"${lines[4]}"
	jq -e '.id == "f" and .ok == false and .error == "unknown argument '"'star'"' (execute takes command, file, idempotency, start, size and reason)"' <<<"${lines[5]}"
	jq -e '.id == null and .ok == true and .stdout_text == "8 notes.md\n"' <<<"${lines[6]}"
	jq -e '.id == "h" and .ok == false and .error == "argument '"'command'"' is missing"' <<<"${lines[7]}"
	jq -e '.id == null and .error == "line 10: a record must be a JSON object"' <<<"${lines[8]}"
	jq -e '.id == "j" and .ok == false and .error_kind == "usage"' <<<"${lines[9]}"
	jq -e '.ok == false and (.error | contains("duplicate"))' <<<"${lines[10]}"
	jq -e '.id == "l" and .ok == false' <<<"${lines[11]}"
	jq -e '.id == "z" and .ok' <<<"${lines[12]}"
}

@test "--serve: a line over 1 MiB is answered and skipped; CR LF lines are read" {
	{
		printf '{"type":"tool_call","id":"big","name":"execute","arguments":{"command":"%s"}}\n' \
			"$(head -c 1100000 /dev/zero | tr '\0' x)"
		call after 'wc -l notes.md' | tr -d '\n'
		printf '\r\n'
	} >in
	run --separate-stderr ai-exec --serve --file notes.md <in
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	jq -e '.ok == false and .error == "standard input: line 1 is longer than the limit of 1048576 bytes"' <<<"${lines[0]}"
	jq -e '.id == "after" and .ok' <<<"${lines[1]}"
}

@test "--serve answers each call as it comes, flushed, before the next one is sent" {
	coproc SRV { ai-exec --serve --file notes.md 3>&-; }
	pid=$SRV_PID
	call one 'head -n 1 notes.md' >&"${SRV[1]}"
	read -r -t 5 first <&"${SRV[0]}"
	jq -e '.id == "one"' <<<"$first"
	call two 'tail -n 1 notes.md' >&"${SRV[1]}"
	read -r -t 5 second <&"${SRV[0]}"
	jq -e '.id == "two" and .stdout_text == "last line\n"' <<<"$second"
	exec {SRV[1]}>&-
	wait "$pid"
}

@test "--serve: a reader that goes away ends the server quietly" {
	# more output than a pipe holds, so that the EPIPE must come
	for i in $(seq 1 2000); do call "$i" 'cat notes.md'; done >in
	run bash -c "set -o pipefail; ai-exec --serve --file notes.md <in | head -n 1"
	[ "$status" -eq 141 ]
	[ "${#lines[@]}" -eq 1 ]
}

# ---- the idempotency cache ----

@test "the cache: the same call with the same key is a hit with the same answer" {
	call 1 'sort words.txt | uniq -c' '{"idempotency":"k1"}' >in
	call 2 'sort words.txt | uniq -c' '{"idempotency":"k1"}' >>in
	call 3 'sort words.txt | uniq -c' '{"idempotency":"k2"}' >>in
	call 4 'sort words.txt | uniq -c' >>in
	call 5 'sort words.txt | uniq -c' >>in
	call 6 'sort words.txt | uniq -c' '{"idempotency":"k1","size":10}' >>in
	run ai-exec --serve --file words.txt <in
	[ "$status" -eq 0 ]
	[ "$(jq -c 'del(.id, .cache_hit)' <<<"${lines[0]}")" = "$(jq -c 'del(.id, .cache_hit)' <<<"${lines[1]}")" ]
	[ "$(jq -c '[.cache_hit] | .[]' <<<"${lines[*]}" | tr '\n' ' ')" = "false true false false false false " ]
}

@test "the cache is an LRU of --cache entries; --cache 0 turns it off" {
	call 1 'wc -l words.txt' '{"idempotency":"a"}' >in
	call 2 'wc -l notes.md' '{"idempotency":"b"}' >>in
	call 3 'wc -l notes.md' '{"idempotency":"b"}' >>in
	call 4 'wc -l words.txt' '{"idempotency":"a"}' >>in
	run ai-exec --serve --cache 1 --file words.txt --file notes.md <in
	[ "$(jq -c '[.cache_hit] | .[]' <<<"${lines[*]}" | tr '\n' ' ')" = "false false true false " ]
	run ai-exec --serve --cache 0 --file words.txt --file notes.md <in
	[ "$(jq -c '[.cache_hit] | .[]' <<<"${lines[*]}" | tr '\n' ' ')" = "false false false false " ]
}

@test "the cache keeps no refusal and no limit" {
	call 1 'cat secret.txt' '{"idempotency":"a"}' >in
	call 2 'cat secret.txt' '{"idempotency":"a"}' >>in
	call 3 'jq -n "[range(1e8)] | length"' '{"idempotency":"b"}' >>in
	call 4 'jq -n "[range(1e8)] | length"' '{"idempotency":"b"}' >>in
	run ai-exec --serve --max-cpu 1 --file notes.md <in
	[ "$(jq -c '[.cache_hit, .ok] | .[]' <<<"${lines[*]}" | tr '\n' ' ')" = "false false false false false false false false " ]
}

# ---- the audit log ----

@test "--audit: one line per call, mode 0600, appended, never the contents" {
	echo '{"old":"line"}' >audit.log
	chmod 600 audit.log
	call 1 'grep -n TODO notes.md' '{"reason":"find the tasks"}' >in
	call 2 'cat secret.txt' >>in
	call 3 'grep -n TODO notes.md' '{"idempotency":"k"}' >>in
	call 4 'grep -n TODO notes.md' '{"idempotency":"k"}' >>in
	call 5 'jq . notes.md' >>in
	run ai-exec --serve --audit audit.log --file notes.md <in
	[ "$status" -eq 0 ]
	[ "$(wc -l <audit.log)" -eq 6 ]
	[ "$(head -n 1 audit.log)" = '{"old":"line"}' ]
	sed -n 2p audit.log | jq -e '.tool == "execute" and .id == "1" and .command == "grep -n TODO notes.md" and
		.reason == "find the tasks" and .refused == false and .ok and .exit_code == 0 and
		.files == ["notes.md"] and .urls == [] and .bytes_read == 78 and .total_bytes == 20 and
		(.duration_ms | type) == "number" and .cache_hit == false and
		(.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"))'
	sed -n 3p audit.log | jq -e '.refused and (.why | startswith("cat: cannot read '"'secret.txt'"'")) and .exit_code == 77 and .files == []'
	sed -n 5p audit.log | jq -e '.cache_hit and .files == [] and .bytes_read == 0'
	sed -n 6p audit.log | jq -e '.ok == false and .error_kind == "execution" and .refused == false and (has("why") | not)'
	# what was read is never in the log: not the TODO line, not jq's message quoting the file
	! grep -q 'write tests' audit.log
	! grep -q 'Notes' audit.log
	rm audit.log
	ai-exec --audit audit.log --file notes.md 'wc -l notes.md' >/dev/null
	[ "$(stat -c %a audit.log)" = 600 ]
}

@test "--audit: secrets in a command are redacted" {
	ai-exec --audit audit.log --allow-url "$MOCK_URL/" --reason 'token=abcdef0123456789' \
		"curl '$MOCK_URL/customsearch/v1?key=AIzaSecretValue1234567' | head -c 10" >/dev/null
	! grep -q AIzaSecretValue audit.log
	! grep -q abcdef0123456789 audit.log
	jq -e '.command | contains("key=[REDACTED]")' audit.log
}

# ---- limits ----

@test "a stage producing more than --max-output stops with the limit named" {
	run --separate-stderr ai-exec --json --max-output 100 --file notes.md 'cat notes.md | nl'
	[ "$status" -eq 3 ]
	jq -e '.error == "stage 2 (nl): the output is larger than the limit of 100 bytes (--max-output)" and .error_kind == "limit" and .stdout_text == ""' <<<"${lines[0]}"
}

@test "a command over 4096 bytes or 16 stages is a limit (3)" {
	run ai-exec --file notes.md "cat notes.md $(printf '%5000s' '' | tr ' ' 'x')"
	[ "$status" -eq 3 ]
	[ "$output" = "ai-exec: the command is 5013 bytes long; the limit is 4096" ]
	cmd='cat notes.md'
	for i in $(seq 1 16); do cmd+=' | cat'; done
	run ai-exec --file notes.md "$cmd"
	[ "$status" -eq 3 ]
	[ "$output" = "ai-exec: the command has 17 stages; the limit is 16" ]
	run ai-exec --file notes.md "${cmd% | cat}"
	[ "$status" -eq 0 ]
}

@test "CPU, memory and wall-clock limits stop a runaway jq filter in time, naming the limit" {
	t0=$(now_ms)
	run ai-exec --max-cpu 1 --file notes.md 'jq -n "def f: f; f"'
	[ "$status" -eq 3 ]
	[ "$output" = "ai-exec: the command used more than 1 s of CPU time (--max-cpu)" ]
	run ai-exec --max-memory 128 --file notes.md 'jq -n ".[1e9] = 1"'
	[ "$status" -eq 3 ]
	[ "$output" = "ai-exec: the command needed more than the limit of 128 MiB of memory (--max-memory)" ]
	run ai-exec --max-cpu 10 --timeout 0.5 --file notes.md 'jq -n "[range(1e10)] | length"'
	[ "$status" -eq 75 ]
	[ "$output" = "ai-exec: the command did not finish within 500 ms (--timeout)" ]
	[ $(($(now_ms) - t0)) -lt 6000 ]
}

@test "--max-memory: sort running out of it says so in one message; grep and tail stream within it" {
	yes 1 | head -c 24000000 >ones.txt
	sorts=('sort ones.txt' 'cat ones.txt | sort -n | uniq -c')
	# an ASan build has no memory limit but for single huge allocations
	if ldd "$(command -v ai-exec)" | grep -q libasan; then
		sorts=()
	fi
	for cmd in "${sorts[@]}"; do
		run ai-exec --max-memory 64 --max-file 30000000 --file ones.txt "$cmd"
		echo "$cmd: $output"
		[ "$status" -eq 3 ]
		[ "$output" = "ai-exec: the command needed more than the limit of 64 MiB of memory (--max-memory)" ]
	done
	for cmd in 'grep -c 1 ones.txt' 'tail -n 20000000 ones.txt | wc -l' 'cat ones.txt | grep -v 2 | wc -l'; do
		run ai-exec --max-memory 64 --max-file 30000000 --file ones.txt "$cmd"
		echo "$cmd: $output"
		[ "$status" -eq 0 ]
		[ "$output" = "12000000" ]
	done
}

@test "a listed file that grows past --max-file or turns binary after start-up is refused when read" {
	coproc SRV { ai-exec --serve --max-file 200 --file notes.md 3>&-; }
	pid=$SRV_PID
	call 1 'wc -c notes.md' >&"${SRV[1]}"
	read -r -t 10 r1 <&"${SRV[0]}"
	head -c 300 /dev/zero | tr '\0' a >>notes.md
	call 2 'wc -c notes.md' >&"${SRV[1]}"
	read -r -t 10 r2 <&"${SRV[0]}"
	printf '\0\0\0' | dd of=notes.md conv=notrunc status=none
	truncate -s 100 notes.md
	call 3 'wc -c notes.md' >&"${SRV[1]}"
	read -r -t 10 r3 <&"${SRV[0]}"
	exec {SRV[1]}>&-
	wait "$pid"
	jq -e '.ok and .stdout_text == "78 notes.md\n"' <<<"$r1"
	jq -e '.error_kind == "limit" and .error == "wc: '"'notes.md'"' is now 378 bytes, larger than the limit of 200 bytes (--max-file)"' <<<"$r2"
	jq -e '.error_kind == "policy" and .error == "wc: '"'notes.md'"' now looks like a binary file: only text is read"' <<<"$r3"
}

# ---- curl against the mock ----

@test "curl fetches an allowed URL (the canonical form) and pipes it on" {
	mock_script '{"routes":{"GET /docs/page":[{"body":"alpha\nbeta\ngamma\n"}]}}'
	run --separate-stderr ai-exec --allow-url "$MOCK_URL/docs" "curl -sL $MOCK_URL/docs/./x/../page | grep -n a"
	[ "$status" -eq 0 ]
	[ "$output" = $'1:alpha\n2:beta\n3:gamma' ]
	[ "$(mock_count)" -eq 1 ]
	mock_request 1 | jq -e '.method == "GET" and .path == "/docs/page" and .body == "" and (.headers | has("cookie") | not)'
}

@test "curl follows redirects that stay allowed, at most 3, without sending cookies back" {
	mock_script '{"routes":{"GET /docs/a":[{"status":302,"headers":{"Location":"/docs/b","Set-Cookie":"s=1; Path=/"}}],
		"GET /docs/b":[{"status":301,"headers":{"Location":"'"$MOCK_URL"'/docs/c"}}],
		"GET /docs/c":[{"body":"arrived\n"}]}}'
	run ai-exec --json --audit audit.log --allow-url "$MOCK_URL/docs/" "curl $MOCK_URL/docs/a"
	[ "$status" -eq 0 ]
	jq -e '.stdout_text == "arrived\n"' <<<"$output"
	[ "$(mock_count)" -eq 3 ]
	mock_request 2 | jq -e '.headers | has("cookie") | not'
	jq -e '.urls == [{"url":"'"$MOCK_URL"'/docs/a","status":"redirect"},{"url":"'"$MOCK_URL"'/docs/b","status":"redirect"},{"url":"'"$MOCK_URL"'/docs/c","status":200}]' audit.log

	mock_script '{"repeat_last":true,"routes":{"GET /docs/loop":[{"status":302,"headers":{"Location":"/docs/loop"}}]}}'
	run --separate-stderr ai-exec --json --allow-url "$MOCK_URL/docs/" "curl $MOCK_URL/docs/loop"
	[ "$status" -eq 3 ]
	jq -e '.error_kind == "limit" and (.error | endswith("more than 3 redirects"))' <<<"${lines[0]}"
	[ "$(mock_count)" -eq 4 ]
}

@test "curl: an HTTP error fails the command (1), an unreachable server is 69, a slow one 75" {
	run --separate-stderr ai-exec --allow-url "$MOCK_URL/" "curl $MOCK_URL/nothing/here"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "ai-exec: curl: '127.0.0.1:$MOCK_PORT' answered HTTP 404: mock: no route for GET /nothing/here" ]]
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	run --separate-stderr ai-exec --json --allow-url "http://127.0.0.1:$port/" "curl http://127.0.0.1:$port/x"
	[ "$status" -eq 69 ]
	jq -e '.error_kind == "unavailable"' <<<"${lines[0]}"
	mock_script '{"routes":{"GET /slow":[{"delay_ms":5000,"body":"late"}]}}'
	t0=$(now_ms)
	run --separate-stderr ai-exec --json --timeout 1.5 --allow-url "$MOCK_URL/" "curl $MOCK_URL/slow"
	[ "$status" -eq 75 ]
	jq -e '.error_kind == "timeout"' <<<"${lines[0]}"
	[ $(($(now_ms) - t0)) -lt 3000 ]
}

@test "curl: a body over --max-file is a limit; a binary body is refused" {
	mock_script '{"routes":{"GET /big":[{"oversize_bytes":50000,"chunked":true}]}}'
	run --separate-stderr ai-exec --json --max-file 10000 --allow-url "$MOCK_URL/" "curl $MOCK_URL/big"
	[ "$status" -eq 3 ]
	jq -e '.error == "curl: the response is larger than the limit of 10000 bytes (--max-file)"' <<<"${lines[0]}"
	printf '\211PNG\r\n\032\n\0\0\0\rIHDR' >img.bin
	mock_script '{"routes":{"GET /img":[{"file":"'"$PWD"'/img.bin"}]}}'
	run --separate-stderr ai-exec --json --allow-url "$MOCK_URL/" "curl $MOCK_URL/img"
	[ "$status" -eq 77 ]
	jq -e '.error == "curl: the response from '"'$MOCK_URL/img'"' looks binary: only text is read"' <<<"${lines[0]}"
}

@test "valgrind: no error and no leak, in the server and in each child, also for jq, regexes, fetches and refusals" {
	command -v valgrind >/dev/null || { echo "valgrind is needed (make deps)"; false; }
	if ldd "$(command -v ai-exec)" | grep -q libasan; then
		skip "an ASan build: ASan checks it instead"
	fi
	mock_script '{"routes":{"GET /docs/page":[{"body":"alpha\nbeta\n"}]}}'
	{
		call 1 'cat notes.md | grep -E "^(a|t)" | sort -r | uniq -c | nl'
		call 2 'jq -c ".tags | map(ascii_upcase)" data.json' '{"idempotency":"k"}'
		call 3 'jq -c ".tags | map(ascii_upcase)" data.json' '{"idempotency":"k"}'
		call 4 'jq ".a + 1" stream.ndjson | cut -c 1-3 | tail -n 2'
		call 5 'cat notes.md; id'
		call 6 'jq ".name |" data.json'
		call 7 'cat' '{"file":"notes.md","size":5}'
		call 8 "curl $MOCK_URL/docs/page | wc -l"
		echo 'not json'
	} >in
	run --separate-stderr valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 ai-exec --serve --audit audit.log --allow-url "$MOCK_URL/docs" \
		--file notes.md --file data.json --file stream.ndjson <in
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 9 ]
	[[ "$stderr" != *"=="* ]]
	jq -e '.ok' <<<"${lines[0]}"
	jq -e '.ok and .cache_hit' <<<"${lines[2]}"
	jq -e '.ok and .stdout_text == "2\n"' <<<"${lines[7]}"
}

#!/usr/bin/env bats
# ai-exec is the security boundary of aicli: the attacks, by category, each
# asserting refusal or containment, the message, the exit status, and that
# nothing else was read, fetched or written.  The static ones are the table
# tests/ai-exec/attacks.txt, run here under strace; the ones that need a
# server, a swap, time or a terminal are below.

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



# ---- command-language escapes that only argv or JSON can carry ----

@test "language: control characters, invalid UTF-8 and bidirectional overrides are refused (77)" {
	local -a bad=(
		$'cat notes.md\ncat secret.txt' 'column 13: newlines are not allowed: one command per call'
		$'cat notes.md\rcat secret.txt' 'column 13: newlines are not allowed: one command per call'
		$'cat\tsecret.txt' 'column 4: control character U+0009 is not allowed'
		$'cat \'\e[2Jx\'' 'column 6: control character U+001B is not allowed'
		$'cat notes.md\x7f' 'column 13: control character U+007F is not allowed'
		$'cat \'notes\xff.md\'' 'column 11: the command is not valid UTF-8'
		$'cat notes\xc0\xaf.md' 'column 10: the command is not valid UTF-8'
		$'cat \'\u202etxt.md\'' 'column 6: invisible control character U+202E is not allowed'
		$'cat \'\u2066x\'' 'column 6: invisible control character U+2066 is not allowed'
		$'cat notes.md \u2223 sh' 'column 14: non-ASCII character U+2223 is not allowed outside quotes (look-alikes of shell characters are refused; quote data)'
	)
	local k
	for ((k = 0; k < ${#bad[@]}; k += 2)); do
		run --separate-stderr ai-exec --file notes.md "${bad[k]}"
		[ "$status" -eq 77 ] || { echo "exit $status for $(printf %q "${bad[k]}")"; false; }
		[ "$stderr" = "ai-exec: ${bad[k + 1]}" ] || { echo "got: $stderr"; false; }
		[ -z "$output" ]
	done
	# quoted, a look-alike is data: it is searched for, not run
	run ai-exec --file notes.md "grep -c '｜' notes.md"
	[ "$status" -eq 1 ]
	[ "$output" = 0 ]
}

@test "language: a NUL or a newline inside a tool call's command is refused, and the server goes on" {
	{
		echo '{"type":"tool_call","id":"n","name":"execute","arguments":{"command":"cat notes.md\u0000 secret.txt"}}'
		echo '{"type":"tool_call","id":"l","name":"execute","arguments":{"command":"cat notes.md\ncat secret.txt"}}'
		call ok 'head -n 1 notes.md'
	} >in
	run --separate-stderr ai-exec --serve --file notes.md <in
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	jq -e '.ok == false and .error_kind == "usage" and (.error | contains("\\u0000"))' <<<"${lines[0]}"
	jq -e '.id == "l" and .ok == false and .error_kind == "policy" and .error == "column 13: newlines are not allowed: one command per call"' <<<"${lines[1]}"
	jq -e '.id == "ok" and .stdout_text == "# Notes\n"' <<<"${lines[2]}"
	[[ "${lines[*]}" != *"sk-should-never"* ]]
}

# ---- path escapes ----

@test "paths: a listed path swapped for a symlink after start-up still reads the listed file" {
	coproc SRV { ai-exec --serve --audit audit.log --file notes.md 3>&-; }
	pid=$SRV_PID
	call 1 'head -n 1 notes.md' >&"${SRV[1]}"
	read -r -t 5 r1 <&"${SRV[0]}"
	mv notes.md notes.orig
	ln -s secret.txt notes.md
	call 2 'cat notes.md' >&"${SRV[1]}"
	read -r -t 5 r2 <&"${SRV[0]}"
	call 3 'cat secret.txt' >&"${SRV[1]}"
	read -r -t 5 r3 <&"${SRV[0]}"
	exec {SRV[1]}>&-
	wait "$pid"
	jq -e '.stdout_text == "# Notes\n"' <<<"$r1"
	jq -e '.ok and (.stdout_text | startswith("# Notes\n\nalpha beta\n"))' <<<"$r2"
	jq -e '.ok == false and .error_kind == "policy" and .exit_code == 77' <<<"$r3"
	! grep -q 'sk-should-never' <<<"$r1$r2$r3"
	jq -s -e 'map(.files) == [["notes.md"],["notes.md"],[]]' audit.log
}

@test "paths: a listed file replaced by rename, or by a FIFO, keeps being read as it was opened" {
	coproc SRV { ai-exec --serve --file notes.md 3>&-; }
	pid=$SRV_PID
	call 0 'wc -l notes.md' >&"${SRV[1]}"
	read -r -t 5 r0 <&"${SRV[0]}"
	printf 'new content\n' >tmp.md
	mv tmp.md notes.md
	call 1 'head -n 1 notes.md' >&"${SRV[1]}"
	read -r -t 5 r1 <&"${SRV[0]}"
	rm notes.md
	mkfifo notes.md
	call 2 'head -n 1 notes.md' >&"${SRV[1]}"
	read -r -t 5 r2 <&"${SRV[0]}"
	exec {SRV[1]}>&-
	wait "$pid"
	jq -e '.stdout_text == "# Notes\n"' <<<"$r1"
	jq -e '.stdout_text == "# Notes\n"' <<<"$r2"
}

@test "paths: an unlisted path gets the same message whether it exists or not" {
	for p in secret.txt nothing.txt /etc/passwd /etc/no-such-file ../w/secret.txt ../w/nothing.txt; do
		run --separate-stderr ai-exec --file notes.md "cat $p"
		[ "$status" -eq 77 ]
		echo "${stderr//"$p"/PATH}" >>messages
	done
	[ "$(sort -u messages | wc -l)" -eq 1 ]
	[ "$(head -n 1 messages)" = "ai-exec: cat: cannot read 'PATH': not allowed (the files given with --file: 'notes.md')" ]
}

@test "paths: a FIFO, a device or a directory given with --file is refused without blocking or opening it" {
	mkfifo fifo
	t0=$(now_ms)
	exec_traced trace ai-exec --file fifo 'cat fifo' >out 2>err && false
	[ $(($(now_ms) - t0)) -lt 3000 ]
	[ "$(cat err)" = "ai-exec: 'fifo' is not a regular file: only regular files can be listed" ]
	! grep -E 'open(at)?\(.*"fifo"' trace
	exec_traced trace ai-exec --file /dev/zero 'cat /dev/zero' >out 2>err && false
	[ "$(cat err)" = "ai-exec: '/dev/zero' is not a regular file: only regular files can be listed" ]
	! grep -E 'open(at)?\(.*"/dev/zero"' trace
	run ai-exec --file /dev/stdin 'cat /dev/stdin' </dev/null
	[ "$status" -eq 77 ]
}

@test "paths: '..', './' and the real path of a listed symlink reach the listed file and nothing else" {
	ln -s notes.md link.md
	mkdir sub
	run ai-exec --file link.md "cat ./link.md | head -n 1"
	[ "$output" = "# Notes" ]
	run ai-exec --file link.md "cat sub/../notes.md | head -n 1"
	[ "$output" = "# Notes" ]
	run ai-exec --file link.md "cat $PWD/notes.md | head -n 1"
	[ "$output" = "# Notes" ]
	run ai-exec --file link.md "cat ../w/link.md | head -n 1"
	[ "$output" = "# Notes" ]
	run ai-exec --file link.md "cat notes.md/../secret.txt"
	[ "$status" -eq 77 ]
	run ai-exec --file link.md "cat /proc/self/cwd/notes.md"
	[ "$status" -eq 77 ]
}

@test "paths: an execution opens nothing but /dev/null: it reads through the descriptors of start-up" {
	exec_traced trace ai-exec --file notes.md --file data.json 'cat notes.md | grep a | sort | uniq -c' >out
	[ "$(cat out)" = "$(LC_ALL=C sh -c 'cat notes.md | grep a | sort | uniq -c')" ]
	main=$(head -n 1 trace | cut -d' ' -f1)
	# the child (any pid but the first) named no path but /dev/null, and executed nothing
	awk -v m="$main" '$1 != m' trace | grep -o '"[^"]*"' | grep -v '^""$' | sort -u >child_paths
	[ "$(cat child_paths)" = '"/dev/null"' ]
	[ "$(grep -c 'execve(' trace)" -eq 1 ]
	! grep -E 'O_WRONLY|O_RDWR\|O_CREAT|O_CREAT' trace | grep -v '/dev/null'
}

# ---- URL escapes (against the mock) ----

@test "URLs: user information, look-alike hosts, other ports and the path boundary never reach the server" {
	mock_script '{"repeat_last":true,"routes":{"GET /docs/page":[{"body":"ok\n"}]}}'
	run ai-exec --allow-url "$MOCK_URL/docs" "curl $MOCK_URL/docs/page"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 1 ]
	mock_reset
	local -a bad=(
		"http://user:pw@127.0.0.1:$MOCK_PORT/docs/page" 77
		"http://127.0.0.1:$MOCK_PORT@127.0.0.1:$MOCK_PORT/docs/page" 77
		"http://localhost:$MOCK_PORT/docs/page" 77
		"http://127.0.0.1.nip.io:$MOCK_PORT/docs/page" 77
		"http://127.0.0.2:$MOCK_PORT/docs/page" 77
		"http://127.1:$MOCK_PORT/docs/page" 65
		"http://2130706433:$MOCK_PORT/docs/page" 65
		"http://127.0.0.1:$((MOCK_PORT + 1))/docs/page" 77
		"http://127.0.0.1:$MOCK_PORT/docs2/page" 77
		"http://127.0.0.1:$MOCK_PORT/docsx" 77
		"http://127.0.0.1:$MOCK_PORT/docs/../admin" 77
		"http://127.0.0.1:$MOCK_PORT/docs/%2e%2e/admin" 77
		"http://127.0.0.1:$MOCK_PORT/docs/%2E%2e/%2e%2E/admin" 77
		"http://127.0.0.1:$MOCK_PORT/docs%2f..%2fadmin" 65
		"https://127.0.0.1:$MOCK_PORT/docs/page" 77
	)
	local k
	for ((k = 0; k < ${#bad[@]}; k += 2)); do
		run ai-exec --allow-url "$MOCK_URL/docs" "curl '${bad[k]}'"
		[ "$status" -eq "${bad[k + 1]}" ] || { echo "exit $status for ${bad[k]}: $output"; false; }
	done
	[ "$(mock_count)" -eq 0 ]
}

@test "URLs: a scheme downgrade is refused: an https prefix does not allow http" {
	run --separate-stderr ai-exec --allow-url "https://127.0.0.1:$MOCK_PORT/" "curl $MOCK_URL/docs/page"
	[ "$status" -eq 77 ]
	[ "$stderr" = "ai-exec: curl: URL '$MOCK_URL/docs/page' is not allowed (allowed prefixes: 'https://127.0.0.1:$MOCK_PORT/')" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "URLs: a redirect to an unlisted host, another path, another scheme or with credentials stops the fetch" {
	for loc in "http://169.254.169.254/latest/meta-data/" "/admin/secret" \
		"https://127.0.0.1:$MOCK_PORT/docs/next" "http://u:p@127.0.0.1:$MOCK_PORT/docs/next" \
		"http://localhost:$MOCK_PORT/docs/next"; do
		mock_script '{"routes":{"GET /docs/start":[{"status":302,"headers":{"Location":"'"$loc"'"}}]}}'
		run --separate-stderr ai-exec --json --audit audit.log --allow-url "$MOCK_URL/docs/" "curl $MOCK_URL/docs/start"
		[ "$status" -eq 77 ] || { echo "exit $status for $loc: $output $stderr"; false; }
		jq -e '.error_kind == "policy" and .stdout_text == "" and (.error | startswith("curl: redirect refused: URL"))' <<<"${lines[0]}"
		[ "$(mock_count)" -eq 1 ]
		tail -n 1 audit.log | jq -e '.refused and .urls[0].status == "redirect" and .urls[1].refused'
	done
}

@test "URLs: proxy variables have no effect on curl" {
	mock_script '{"routes":{"GET /docs/page":[{"body":"direct\n"}]}}'
	dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	run env http_proxy="http://127.0.0.1:$dead" HTTP_PROXY="http://127.0.0.1:$dead" \
		ALL_PROXY="http://127.0.0.1:$dead" all_proxy="socks5://127.0.0.1:$dead" no_proxy= \
		ai-exec --allow-url "$MOCK_URL/docs" "curl $MOCK_URL/docs/page"
	[ "$status" -eq 0 ]
	[ "$output" = direct ]
	mock_request 1 | jq -e '.path == "/docs/page"'
	# the other way round: the mock as the proxy of an allowed but dead URL gets nothing
	mock_reset
	run env http_proxy="$MOCK_URL" HTTP_PROXY="$MOCK_URL" ALL_PROXY="$MOCK_URL" \
		ai-exec --allow-url "http://127.0.0.1:$dead/" "curl http://127.0.0.1:$dead/x"
	[ "$status" -eq 69 ]
	[ "$(mock_count)" -eq 0 ]
}

# ---- jq: the environment and runaway filters ----

@test "jq: the environment is hidden, modules are off, input reads only the input: no secret comes out" {
	export SECRET_API_KEY=sk-env-secret-0123456789 AWS_SECRET_ACCESS_KEY=aws-secret-0123456789
	local -a filters=(
		'env' '$ENV' 'env.SECRET_API_KEY' '$ENV.AWS_SECRET_ACCESS_KEY' '[env[]]' '$ENV | tostring'
		'env | keys' '@json "\(env)"' '1 as $x | $ENV' '{} | .a = $ENV' 'def f: env; f'
		'get_search_list' 'input_filename' '$__loc__' '[paths]' 'builtins | length > 10'
		'reduce (env | to_entries[]) as $e (""; . + $e.value)'
	)
	for f in "${filters[@]}"; do
		run ai-exec --file data.json "jq -c '$f' data.json"
		[ "$status" -eq 0 ] || { echo "exit $status for $f: $output"; false; }
		[[ "$output" != *secret-0123456789* ]] || { echo "leak with $f: $output"; false; }
	done
	local -a refused=(
		'"x" | modulemeta' 'error (at data.json:1): modulemeta is disabled' 1
		'import "a" as a; .' 'syntax error, unexpected import (Unix shell quoting issues?) at <top-level>, line 1' 65
		'include "a"; .' 'syntax error, unexpected include (Unix shell quoting issues?) at <top-level>, line 1' 65
		'$__prog_args' '$__prog_args is not defined at <top-level>, line 1' 65
	)
	local k
	for ((k = 0; k < ${#refused[@]}; k += 3)); do
		run --separate-stderr ai-exec --file data.json "jq '${refused[k]}' data.json"
		[ "$status" -eq "${refused[k + 2]}" ] || { echo "exit $status for ${refused[k]}: $stderr"; false; }
		[ "$stderr" = "ai-exec: jq: ${refused[k + 1]}" ] || { echo "got: $stderr"; false; }
	done
	# input and inputs read the values of the command's own input, as in jq, and nothing else
	printf '1 2\n3\n' >three.json
	run --separate-stderr ai-exec --file three.json "jq -c '[., input]' three.json"
	[ "$status" -eq 1 ]
	[ "$output" = "[1,2]" ]
	[ "$stderr" = "ai-exec: jq: error (at three.json:2): break" ]
	run ai-exec --file three.json --file data.json "jq -n -c '[inputs]' three.json"
	[ "$status" -eq 0 ]
	[ "$output" = "[1,2,3]" ]
	run ai-exec --file data.json "jq -n -c '[inputs]'"
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
}

@test "jq: runaway filters are stopped within their limits, and the server answers the next call" {
	local -a runaway=(
		'def f: f; f' 3 'CPU time'
		'[range(1e9)] | length' 3 'memory\|CPU time'
		'.[1e9] = 1' 3 'memory'
		'"x" * 1e9 | length' 3 'memory\|CPU time'
		'[limit(1e9; repeat("abcdefghij"))] | length' 3 'memory\|CPU time'
		# an endless output: each value large, so that the output limit comes long before the CPU's
		'repeat("x" * 10000)' 3 'the output is larger'
		'last(range(1e12))' 3 'CPU time'
		'reduce range(1e6) as $i (null; [.]) | tojson | length' 3 'memory\|CPU time\|stopped by'
	)
	for ((i = 0; i < ${#runaway[@]}; i += 3)); do
		call "$i" "jq -n '${runaway[i]}'"
	done >in
	call last 'head -n 1 notes.md' >>in
	t0=$(now_ms)
	run --separate-stderr ai-exec --serve --max-cpu 1 --max-memory 256 --max-output 1000000 --timeout 3 --file notes.md <in
	[ "$status" -eq 0 ]
	[ $(($(now_ms) - t0)) -lt 20000 ]
	[ "${#lines[@]}" -eq 9 ]
	for ((i = 0; i < ${#runaway[@]}; i += 3)); do
		r=${lines[i / 3]}
		[ "$(jq -r .id <<<"$r")" = "$i" ]
		[ "$(jq .exit_code <<<"$r")" -eq "${runaway[i + 1]}" ] || { echo "${runaway[i]}: $r"; false; }
		jq -e '.ok == false and .error_kind == "limit"' <<<"$r"
		jq -r .error <<<"$r" | grep -q "${runaway[i + 2]}" || { echo "${runaway[i]}: $r"; false; }
	done
	jq -e '.id == "last" and .ok and .stdout_text == "# Notes\n"' <<<"${lines[8]}"
}

# ---- huge or malformed numbers ----

@test "numbers: --start, --size and the limits take plain decimals in range only (64)" {
	for arg in '--start=-1' '--start=1e3' '--start=0x10' '--start=99999999999999999999' \
		'--start=9007199254740993' '--size=0' '--size=' '--size= 5' '--size=+5' '--max-size=0' \
		'--max-file=-5' '--max-cpu=0' '--timeout=1e9' '--timeout=nan' '--cache=-1'; do
		run ai-exec --file notes.md "$arg" 'cat notes.md'
		[ "$status" -eq 64 ] || { echo "exit $status for $arg"; false; }
		[[ "${lines[0]}" == "ai-exec: option '--"* ]] || { echo "$arg: ${lines[0]}"; false; }
	done
}

@test "numbers: a tool call's start and size must be whole numbers in range; a size over the maximum is lowered" {
	for v in '-1' '1.5' '"10"' '1e400' '1152921504606846976' 'true' '[]'; do
		call x 'cat notes.md' "{\"start\":$v}"
		call y 'cat notes.md' "{\"size\":$v}"
	done >in
	call z 'cat notes.md' '{"size":0}' >>in
	call big 'cat notes.md | nl' '{"size":100000000}' >>in
	call end 'cat notes.md' '{"start":9007199254740992}' >>in
	run ai-exec --serve --max-size 50 --file notes.md <in
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 17 ]
	for ((i = 0; i < 15; i++)); do
		jq -e '.ok == false and .error_kind == "usage" and .exit_code == 65 and
			(.error | test("^argument .(start|size). must be a whole number of bytes from [01] to 2\\^53$"))' <<<"${lines[i]}"
	done
	jq -e '.ok and (.stdout_text | utf8bytelength) <= 50 and .next_start == 50 and .total_bytes == 134' <<<"${lines[15]}"
	jq -e '.ok and .stdout_text == "" and .next_start == null and .total_bytes == 78' <<<"${lines[16]}"
}

# ---- escape sequences ----

@test "escape sequences: in file content, in a jq message quoting content, in a listed name: never raw on a terminal" {
	printf '\e]52;c;cm0gLXJmIH4=\a\e[2J\e[1;1H\e[?1049h fake prompt $ \n' >evil.txt
	printf '"\\u001b]0;pwned\\u0007"\n' >evil.json
	command -v script >/dev/null || { echo "script(1) is needed"; false; }
	out=$(script -qec "ai-exec --file evil.txt 'cat evil.txt'" /dev/null </dev/null | tr -d '\r')
	[ "$out" = '^[]52;c;cm0gLXJmIH4=^G^[[2J^[[1;1H^[[?1049h fake prompt $ ' ]
	out=$(script -qec "ai-exec --file evil.json 'jq \"error(.)\" evil.json'" /dev/null </dev/null | tr -d '\r')
	[ "$out" = 'ai-exec: jq: error (at evil.json:1): ^[]0;pwned^G' ]
	# stderr into a pipe is sanitized too: it is a diagnostic, not the product
	run --separate-stderr ai-exec --file evil.json 'jq "error(.)" evil.json'
	[ "$stderr" = 'ai-exec: jq: error (at evil.json:1): ^[]0;pwned^G' ]
	name=$'\e[31mred.txt'
	printf 'x\n' >"$name"
	run --separate-stderr ai-exec --file "$name" 'cat secret.txt'
	[ "$stderr" = "ai-exec: cat: cannot read 'secret.txt': not allowed (the files given with --file: '^[[31mred.txt')" ]
	# and the record carries them escaped, as JSON does
	run --separate-stderr ai-exec --json --file evil.txt 'cat evil.txt'
	[[ "$output" == *'"stdout_text":"\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J'* ]]
}

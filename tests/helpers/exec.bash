# Bats helpers for the ai-exec suites: the files the commands read, a traced
# run that records every path and socket the process touched, and the
# table runner.
#
#   load helpers/exec
#   setup() { exec_fixtures "$BATS_TEST_TMPDIR/w"; cd "$BATS_TEST_TMPDIR/w"; }

# exec_fixtures DIR: write the files the tests read into DIR.
exec_fixtures() {
	local d=$1
	mkdir -p "$d"
	printf '%s\n' '# Notes' '' 'alpha beta' 'TODO: write tests' 'gamma delta' \
		'todo: lower case' '' 'last line' >"$d/notes.md"
	printf '%s\n' pear apple banana apple Cherry banana apple >"$d/words.txt"
	printf '%s\n' 10 9 -3 2.5 abc 100 0 -0.5 ' 7' >"$d/nums.txt"
	printf 'name\tcount\tcity\nann\t3\tOslo\nbob\t12\tRome\ncid\t7\tOslo\n' >"$d/data.tsv"
	printf 'a,b,c\n1,2,3\n4,,6\nno-delim\n' >"$d/data.csv"
	printf '{"name":"aicli","tags":["c","unix"],"n":3}\n' >"$d/data.json"
	printf '{"a":1}\n{"a":2}\n{"a":"x"}\n' >"$d/stream.ndjson"
	printf 'one\ntwo' >"$d/noeol.txt"
	printf 'h\303\251llo w\303\266rld\n\346\227\245\346\234\254\350\252\236\n' >"$d/utf8.txt"
	: >"$d/empty.txt"
	printf 'plain \033[31mred\033[0m \033]0;title\007 end\n' >"$d/escape.txt"
	printf 'secret: sk-should-never-be-read\n' >"$d/secret.txt"
}

# call ID COMMAND [JSON-OBJECT-OF-MORE-ARGUMENTS]: one execute tool_call line.
call() {
	jq -cn --arg id "$1" --arg cmd "$2" --argjson more "${3:-{\}}" \
		'{type:"tool_call",id:$id,name:"execute",arguments:({command:$cmd} + $more)}'
}

# Milliseconds since the epoch, for "returned within" bounds.
now_ms() { date +%s%3N; }

# The --file arguments for every fixture but secret.txt.
EXEC_FILES=(--file notes.md --file words.txt --file nums.txt --file data.tsv --file data.csv
	--file data.json --file stream.ndjson --file noeol.txt --file utf8.txt --file empty.txt
	--file escape.txt)

# URL prefixes the tables allow; no table case connects to them.
EXEC_URLS=(--allow-url https://docs.example.com/api --allow-url http://127.0.0.1:9/ok)

# exec_traced TRACE ai-exec ARGS...: run under strace, recording every system
# call that names a path or touches the network, and every new process.
# (LeakSanitizer cannot work under ptrace: an ASan build is traced without it.)
exec_traced() {
	local trace=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$trace" \
		-e trace=%file,%network,clone,clone3,fork,vfork "$@"
}

# trace_paths TRACE: the paths the traced process named, one per line,
# without those of the dynamic loader (and of ASan's runtime, in an ASan build).
trace_paths() {
	local runtime='^$'
	if ldd "$(command -v ai-exec)" | grep -q libasan; then
		runtime='^/proc/self/(exe|cmdline|environ|maps)$|^'"$(command -v ai-exec)"'$'
	fi
	grep -v -E '^[0-9]+ +execve\(' "$1" | grep -o '"[^"]*"' | tr -d '"' | sort -u |
		grep -v -E '^(/etc/ld\.so\.|/lib/|/lib64/|/usr/lib/|/dev/null$|$)' |
		grep -v -E "$runtime" || true
}

# trace_check TRACE: fail, saying why, when the traced ai-exec started a
# child process, attempted a connection, or named any path but the listed
# files (as given, or absolute), the directories above the current one
# (which realpath(3) looks at while listing) and the files the configuration
# may be in (read for the secrets results must not show).
trace_check() {
	local p f ok
	if [ "$(trace_forks "$1")" -ne 0 ]; then
		echo "a child process was started"
		return 1
	fi
	if [ "$(trace_connects "$1")" -ne 0 ]; then
		echo "a connection was attempted"
		return 1
	fi
	while IFS= read -r p; do
		ok=0
		for f in "${EXEC_FILES[@]}"; do
			[ "$f" = --file ] && continue
			if [ "$p" = "$f" ] || [ "$p" = "$PWD/$f" ]; then ok=1; fi
		done
		case "$PWD/" in "$p"/* | "$p") ok=1 ;; esac
		[ "$p" = / ] && ok=1
		case "$p" in "$HOME/.aicli.json" | "$HOME/.config/aicli/config.json") ok=1 ;; esac
		if [ "$ok" -eq 0 ]; then
			echo "touched '$p'"
			return 1
		fi
	done < <(trace_paths "$1")
}

# trace_forks TRACE: how many processes were started.
trace_forks() {
	grep -c -E '(clone|clone3|fork|vfork)\(' "$1" || true
}

# trace_connects TRACE: how many connections were attempted.
trace_connects() {
	grep -c -E 'connect\(' "$1" || true
}

# exec_table FILE: run every case of a table; print the failures; fail if any.
# A case is a block of lines: the command, the expected exit status, then the
# expected standard output as lines "> TEXT" (">" alone for an empty line)
# ("~ TEXT" for a last line without LF) and the expected standard error as
# lines "! TEXT"; blocks are separated by
# a blank line, and lines starting with "#" are comments.  Every case runs
# in the current directory with EXEC_FILES and EXEC_URLS listed.  With
# EXEC_TRACE=1 each case also runs under strace, and a case fails when the
# process started a child, attempted a connection, or named a path other
# than the listed files' (trace_check).
exec_table() {
	local table=$1 cmd="" want_rc="" want_out="" want_err="" line n=0 fails=0
	local got_out got_err got_rc
	run_case() {
		[ -n "$cmd" ] || return 0
		n=$((n + 1))
		got_out=$(ai-exec "${EXEC_FILES[@]}" "${EXEC_URLS[@]}" "$cmd" 2>"$BATS_TEST_TMPDIR/err"
			echo "rc=$?")
		got_rc=${got_out##*rc=}
		got_out=${got_out%rc=*}
		got_err=$(cat "$BATS_TEST_TMPDIR/err")
		if [ "$got_rc" != "$want_rc" ] || [ "$got_out" != "$want_out" ] ||
			[ "$got_err" != "${want_err%$'\n'}" ]; then
			fails=$((fails + 1))
			printf 'FAIL: %s\n  exit: want %s, got %s\n' "$cmd" "$want_rc" "$got_rc"
			printf '  stdout want:\n%s\n  stdout got:\n%s\n' "$want_out" "$got_out"
			printf '  stderr want:\n%s\n  stderr got:\n%s\n' "$want_err" "$got_err"
		elif [ -n "${EXEC_TRACE:-}" ]; then
			local trace="$BATS_TEST_TMPDIR/trace" why
			exec_traced "$trace" ai-exec "${EXEC_FILES[@]}" "${EXEC_URLS[@]}" "$cmd" \
				>/dev/null 2>&1
			if ! why=$(trace_check "$trace"); then
				fails=$((fails + 1))
				printf 'FAIL: %s\n  %s\n' "$cmd" "$why"
			fi
		fi
		cmd="" want_rc="" want_out="" want_err=""
	}
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		'#'*) continue ;;
		'') run_case; continue ;;
		esac
		if [ -z "$cmd" ]; then
			cmd=$line # the first line of a block is the command, whatever it starts with
			continue
		fi
		case "$line" in
		'>') want_out+=$'\n' ;;
		'> '*) want_out+="${line#> }"$'\n' ;;
		'~ '*) want_out+="${line#\~ }" ;;
		'! '*) want_err+="${line#! }"$'\n' ;;
		*) want_rc=$line ;;
		esac
	done <"$table"
	run_case
	echo "$n cases, $fails failed"
	[ "$fails" -eq 0 ] && [ "$n" -gt 0 ]
}

# ---- programs (ai-exec --policy, the run tool) ----

# run_fixtures DIR: a git repository in DIR (the root of the run tests),
# with a commit, a modified file, an untracked one and a subdirectory; the
# example policy and a test policy next to DIR, with the modes a policy
# must have; $POLICY and $TPOL name them.
run_fixtures() {
	local d=$1
	mkdir -p "$d/src/sub"
	printf '# Notes\n\nalpha beta\nTODO: write tests\n' >"$d/notes.md"
	printf 'int main(void)\n{\n\treturn 0; /* TODO */\n}\n' >"$d/src/main.c"
	printf 'deep\n' >"$d/src/sub/deep.txt"
	git -C "$d" init -q -b main
	git -C "$d" -c user.name=t -c user.email=t@example.com add -A
	git -C "$d" -c user.name=t -c user.email=t@example.com commit -q -m 'first commit'
	printf 'more\n' >>"$d/notes.md"
	printf 'new\n' >"$d/untracked.txt"
	POLICY=$(dirname "$d")/policy.json
	cp "$BATS_TEST_DIRNAME/../ai-exec/policy.json" "$POLICY"
	chmod 644 "$POLICY"
	# programs the example policy keeps at L2 or does not list, for the tests
	# of execution itself: sh at L1 (so, not confined), the others at L0
	TPOL=$(dirname "$d")/test-policy.json
	cat >"$TPOL" <<'JSON'
{
  "aicli_policy": 1,
  "programs": {
    "sh": { "level": "L1", "options": ["-c TEXT"] },
    "sh0": { "path": "/bin/sh", "level": "L0", "options": ["-c TEXT"] },
    "env": { "level": "L0", "operands": 0 },
    "touch": { "level": "L0" },
    "seq": { "level": "L0" },
    "true": { "level": "L0" },
    "false": { "level": "L0" },
    "cat": { "level": "L0", "double_dash": true },
    "nosuchprogram": { "level": "L0" },
    "git": { "double_dash": true, "subcommands": {
      "status": { "level": "L1", "options": ["--porcelain", "-s"] },
      "diff": { "level": "L1", "options": ["--stat"] },
      "log": { "level": "L1", "options": ["--oneline", "-p"] },
      "blame": { "level": "L1" },
      "fetch": { "level": "L1" },
      "add": { "level": "L1" },
      "commit": { "level": "L1", "options": ["-m TEXT", "-a"] } } }
  }
}
JSON
	chmod 644 "$TPOL"
}

# rcall ID PROGRAM [ARG]...: one run tool_call line (more arguments from $RMORE, a JSON object).
rcall() {
	local id=$1 prog=$2 a args
	shift 2
	# each argument as the value of --arg: jq would take "--x" for its own option
	args=$(for a in "$@"; do jq -n --arg a "$a" '$a'; done | jq -cs .)
	jq -cn --arg id "$id" --arg p "$prog" --argjson a "$args" --argjson more "${RMORE:-{\}}" \
		'{type:"tool_call",id:$id,name:"run",arguments:({program:$p,args:$a} + $more)}'
}

# on_tty [OPTIONS] -- CMD...: CMD with a pseudo-terminal (tests/helpers/on-tty.py).
on_tty() {
	python3 "$BATS_TEST_DIRNAME/helpers/on-tty.py" "$@"
}

# landlock: whether this kernel confines L0 programs (ai-exec -v says so).
landlock() {
	ai-exec -v --policy "$TPOL" --run true 2>&1 | grep -q 'Landlock available'
}

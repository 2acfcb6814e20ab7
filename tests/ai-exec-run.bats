#!/usr/bin/env bats
# ai-exec --policy: allowlisted programs with risk levels: the
# policy file, the decisions at each level (on a terminal and without one),
# execution (environment, timeout, process group, caps), results (tails,
# parsed output), --serve's run tool, max runs, the audit log.  The escape
# routes are in ai-exec-run-attack.bats, the parsers' table in
# ai-exec-parse.bats.

bats_require_minimum_version 1.5.0
load helpers/env
load helpers/exec

setup() {
	clean_env
	run_fixtures "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
	IN=$BATS_TEST_TMPDIR/in
}

# alive PID: the process exists and is not a zombie (one that whoever
# inherited it has not reaped yet is dead all the same).
alive() {
	[ -r "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# ---- the command line ----

@test "--run: an L0 program runs in the current directory: its output, its exit status" {
	run --separate-stderr ai-exec --policy "$POLICY" --run git status --porcelain
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf ' M notes.md\n?? untracked.txt')" ]
	[ -z "$stderr" ]
	run --separate-stderr ai-exec --policy "$POLICY" --run ls src
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'main.c\nsub')" ]
	# the program's own failure is its own status, and its stderr is passed on
	run --separate-stderr ai-exec --policy "$POLICY" --run ls no-such-file
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "ls: cannot access 'no-such-file': No such file or directory" ]]
	run --separate-stderr ai-exec --policy "$POLICY" --run grep -n zzz notes.md
	[ "$status" -eq 1 ]
	[ -z "$stderr" ]
}

@test "--run passes every argument after it to the program, options included" {
	run ai-exec --policy "$POLICY" --run git log --oneline --format=%s -1
	[ "$status" -eq 0 ]
	[ "$output" = "first commit" ]
	run ai-exec --policy "$POLICY" --run ls -a --json
	[ "$status" -eq 77 ]
	[ "$output" = "ai-exec: ls: option '--json' is not allowed; it allows -a, --all, -A, --almost-all, -l, -1, -h, --human-readable, -R, --recursive, -t, -r, --reverse, -S, -X, -v, -U, -c, -u, -d, --directory, -F, --classify, -p, -i, -s, -g, -o, -n, -G, --group-directories-first, --full-time, --sort, --time, --time-style, -I, --ignore, --hide (rule 'ls')" ]
}

@test "usage errors: 64 with the hint, and nothing runs" {
	local -a bad=(
		"--run needs --policy FILE" --run ls
		"--run needs a PROGRAM" --policy "$POLICY" --run
		"--run and --serve do not go together" --policy "$POLICY" --serve --run ls
		"--file, --allow-url, --start, --size and --max-runs do not go with --run" --policy "$POLICY" --file notes.md --run ls
		"--file, --allow-url, --start, --size and --max-runs do not go with --run" --policy "$POLICY" --max-runs 3 --run ls
		"--policy, --root, --approve, --unconfined, --max-runs, --max-procs and --tail go with --run or --serve" --policy "$POLICY" 'cat notes.md'
		"--policy, --root, --approve, --unconfined, --max-runs, --max-procs and --tail go with --run or --serve" --approve L1 --file notes.md 'cat notes.md'
		"--policy, --root, --approve, --unconfined, --max-runs, --max-procs and --tail go with --run or --serve" --unconfined --file notes.md 'cat notes.md'
		"--unconfined and --max-procs go with --policy" --serve --unconfined
		"--unconfined and --max-procs go with --policy" --serve --max-procs 3
		"--approve takes L0 (ask nothing, run L0 only) or L1 (run L1 too); L2 never runs" --policy "$POLICY" --approve L2 --run ls
	)
	local k=0 n
	while [ $k -lt ${#bad[@]} ]; do
		msg=${bad[k]}
		k=$((k + 1))
		args=()
		while [ $k -lt ${#bad[@]} ] && [[ "${bad[k]}" != *" "* || "${bad[k]}" == "cat notes.md" ]]; do
			args+=("${bad[k]}")
			k=$((k + 1))
		done
		run --separate-stderr ai-exec "${args[@]}"
		[ "$status" -eq 64 ] || { echo "exit $status for ${args[*]}: $stderr"; false; }
		[ "$stderr" = "ai-exec: $msg"$'\n'"ai-exec: try 'ai-exec --help' for more information" ] ||
			{ echo "got: $stderr"; false; }
		[ -z "$output" ]
	done
	run --separate-stderr ai-exec --policy "$POLICY" --root nowhere --run ls
	[ "$status" -eq 64 ]
	[ "$stderr" = "ai-exec: --root 'nowhere': No such file or directory"$'\n'"ai-exec: try 'ai-exec --help' for more information" ]
	run --separate-stderr ai-exec --policy "$POLICY" --root notes.md --run ls
	[ "$status" -eq 64 ]
	[ "$stderr" = "ai-exec: --root 'notes.md': Not a directory"$'\n'"ai-exec: try 'ai-exec --help' for more information" ]
}

# ---- the policy file ----

@test "policy: every fault stops ai-exec with 78 and names the place" {
	p() { printf '%s\n' "$1" >bad.json; chmod 644 bad.json; }
	check() {
		run --separate-stderr ai-exec --policy bad.json --run true
		[ "$status" -eq 78 ] || { echo "exit $status: $stderr"; return 1; }
		[ "$stderr" = "ai-exec: $1" ] || { echo "got: $stderr"; return 1; }
	}
	p '{"aicli_policy":1,"programs":{}'
	check "policy 'bad.json': line 2, column 1: unexpected end of input"
	p '{"aicli_policy":2,"programs":{}}'
	check "policy 'bad.json': aicli_policy: must be 1 (the version of the format)"
	p '{"aicli_policy":1,"programs":{},"progams":{}}'
	check "policy 'bad.json': the top level: unknown key 'progams' (known: aicli_policy, path, programs, comment)"
	p '{"aicli_policy":1,"programs":{"ls":{"level":"L3"}}}'
	check "policy 'bad.json': programs.ls.level: a level is \"L0\", \"L1\" or \"L2\""
	p '{"aicli_policy":1,"programs":{"ls":{}}}'
	check "policy 'bad.json': programs.ls: no level (\"L0\", \"L1\" or \"L2\")"
	p '{"aicli_policy":1,"programs":{"ls":{"level":"L0","options":["-a","-l value"]}}}'
	check "policy 'bad.json': programs.ls.options[1]: '-l value': a value's name is in capitals (N, FILE, TEXT)"
	p '{"aicli_policy":1,"programs":{"ls":{"level":"L0","options":["--all","a"]}}}'
	check "policy 'bad.json': programs.ls.options[1]: 'a' is not an option (-x, --name or -name, then ' VALUE', '=VALUE' or '[=VALUE]')"
	p '{"aicli_policy":1,"programs":{"ls":{"level":"L0","deny":[{"option":"-x","why":1}]}}}'
	check "policy 'bad.json': programs.ls.deny[0]: \"why\" must be a string"
	p '{"aicli_policy":1,"programs":{"/bin/ls":{"level":"L0"}}}'
	check "policy 'bad.json': programs./bin/ls: a program is named by letters, digits and -_.+ (no '/')"
	p '{"aicli_policy":1,"programs":{"git":{"subcommands":{"status":{}}}}}'
	check "policy 'bad.json': programs.git.subcommands.status: no level: give one here or for the program"
	p '{"aicli_policy":1,"path":["bin"],"programs":{}}'
	check "policy 'bad.json': path[0]: 'bin': only absolute directories are searched"
	p '{"aicli_policy":1,"programs":{"ls":{"level":"L0","path":"/nonexistent/ls"}}}'
	check "policy 'bad.json': programs.ls: \"path\" '/nonexistent/ls': No such file or directory"
	: >plain
	chmod 644 plain
	p '{"aicli_policy":1,"programs":{"ls":{"level":"L0","path":"'"$PWD"'/plain"}}}'
	check "policy 'bad.json': programs.ls: 'ls' resolves to '$PWD/plain', which is not an executable file"
	run --separate-stderr ai-exec --policy missing.json --run true
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-exec: cannot open the policy 'missing.json': No such file or directory" ]
}

@test "policy: programs only from trusted directories; never the current one; a policy others can change is refused" {
	mkdir bin
	cp /bin/true bin/true
	# $BATS_TEST_TMPDIR is under /tmp, which anyone may write to
	printf '{"aicli_policy":1,"path":["%s/bin"],"programs":{"true":{"level":"L0"}}}\n' "$PWD" >p.json
	chmod 644 p.json
	run --separate-stderr ai-exec --policy p.json --run true
	[ "$status" -eq 78 ]
	[[ "$stderr" == "ai-exec: policy 'p.json': path[0]: '$PWD/bin' is not trusted: '"*"' is writable by "* ]]
	printf '{"aicli_policy":1,"programs":{"true":{"level":"L0","path":"%s/bin/true"}}}\n' "$PWD" >p.json
	run --separate-stderr ai-exec --policy p.json --run true
	[ "$status" -eq 78 ]
	[[ "$stderr" == "ai-exec: policy 'p.json': programs.true: 'true' resolves to '$PWD/bin/true', which is not trusted: '"*"' is writable by "* ]]
	# a program of that name in the current directory is never found there
	printf '#!/bin/sh\necho hijacked\n' >ls
	chmod 755 ls
	run ai-exec --policy "$POLICY" --run ls ls
	[ "$status" -eq 0 ]
	[ "$output" = ls ]
	PATH=".:$PATH" run ai-exec --policy "$POLICY" --run ls ls
	[ "$output" = ls ]
	# the policy itself
	chmod 666 "$POLICY"
	run --separate-stderr ai-exec --policy "$POLICY" --run ls
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-exec: the policy '$POLICY' can be changed by other users; run: chmod go-w '$POLICY'" ]
	chmod 644 "$POLICY"
	if [ "$(id -u)" -eq 0 ]; then
		chown nobody "$POLICY"
		run --separate-stderr ai-exec --policy "$POLICY" --run ls
		[ "$status" -eq 78 ]
		[[ "$stderr" == "ai-exec: the policy '$POLICY' belongs to another user (uid "*")" ]]
	fi
}

@test "policy: a program the policy lists but that is not installed is unavailable (69); its L2 still refuses" {
	run --separate-stderr ai-exec --policy "$TPOL" --run nosuchprogram
	[ "$status" -eq 69 ]
	[ "$stderr" = "ai-exec: nosuchprogram: not found in the policy's directories (/usr/bin)" ]
	# the example policy lists doas and mkfs.xfs, installed or not: refused all the same
	run --separate-stderr ai-exec --policy "$POLICY" --run doas ls
	[ "$status" -eq 77 ]
	[ "$stderr" = "ai-exec: doas: refused at level L2 (rule 'doas': runs a command as another user)" ]
}

# ---- levels ----

@test "L2 is refused, naming the rule and its reason; nothing runs" {
	local -a cases=(
		"git reset --hard" "git: refused at level L2 (rule 'git reset --hard': discards uncommitted changes)"
		"git clean -fdx" "git: refused at level L2 (rule 'git clean': deletes untracked files)"
		"git push --force origin" "git: refused at level L2 (rule 'git push --force': rewrites or deletes what others have)"
		"rm -rf src" "rm: refused at level L2 (rule 'rm -r': deletes recursively)"
		"rm -fr src" "rm: refused at level L2 (rule 'rm -r': deletes recursively)"
		"chmod -R 777 ." "chmod: refused at level L2 (rule 'chmod -R': changes permissions recursively)"
		"chown -R nobody ." "chown: refused at level L2 (rule 'chown -R': changes owners recursively)"
		"sudo ls" "sudo: refused at level L2 (rule 'sudo': runs a command as another user)"
		"dd if=/dev/zero of=x" "dd: refused at level L2 (rule 'dd': destroys data)"
		"mkfs.ext4 /dev/sda" "mkfs.ext4: refused at level L2 (rule 'mkfs.ext4': destroys data)"
	)
	for ((k = 0; k < ${#cases[@]}; k += 2)); do
		read -r -a argv <<<"${cases[k]}"
		run --separate-stderr ai-exec --policy "$POLICY" --approve L1 --run "${argv[@]}"
		[ "$status" -eq 77 ] || { echo "exit $status for ${cases[k]}"; false; }
		[ "$stderr" = "ai-exec: ${cases[k + 1]}" ] || { echo "got: $stderr"; false; }
	done
	[ -d src ] && [ -f untracked.txt ]
	[ "$(stat -c %a notes.md)" = 644 ]
}

@test "L1 with no terminal is refused and says how to allow it; --approve L1 runs it; --approve L0 refuses without asking" {
	run --separate-stderr ai-exec --policy "$POLICY" --run git add untracked.txt </dev/null
	[ "$status" -eq 77 ]
	[ "$stderr" = "ai-exec: git: level L1 needs confirmation and there is no terminal to ask (rule 'git add': changes the index); --approve L1 allows it" ]
	[ -z "$(git diff --cached --name-only)" ]
	run --separate-stderr ai-exec --policy "$POLICY" --approve L0 --run git add untracked.txt
	[ "$status" -eq 77 ]
	[ "$stderr" = "ai-exec: git: level L1 is refused by --approve L0 (rule 'git add': changes the index)" ]
	run ai-exec --policy "$POLICY" --approve L1 --run git add untracked.txt
	[ "$status" -eq 0 ]
	[ "$(git diff --cached --name-only)" = untracked.txt ]
	# --approve L0 still runs L0
	run ai-exec --policy "$POLICY" --approve L0 --run git diff --cached --name-only
	[ "$output" = untracked.txt ]
}

@test "L1 on a terminal: the question shows program, escaped arguments, directory, reason and rule; y runs it" {
	on_tty --answer y --stdin /dev/null --stdout out --stderr err --transcript tty -- \
		ai-exec --policy "$POLICY" --reason 'stage the new file' --run git add untracked.txt
	[ "$(cat tty)" = "ai-exec: run this program? level L1, rule 'git add': changes the index
  git add untracked.txt
  in $PWD
  reason: stage the new file
Run it? [y/N] y" ]
	[ "$(git diff --cached --name-only)" = untracked.txt ]
	[ ! -s err ]
}

@test "L1 on a terminal: anything but y or yes refuses it; escapes in arguments are shown, never sent; the reason is redacted" {
	for answer in n no "" x 'y es' YESS; do
		on_tty --answer "$answer" --stdin /dev/null --stdout out --stderr err --transcript tty -- \
			ai-exec --policy "$POLICY" --reason 'key sk-abcdef0123456789abcdef please' \
			--run git add $'\e[2Jevil' "it's" 'a b' || true
		[ "$(cat err)" = "ai-exec: git: level L1 needs confirmation and the user declined (rule 'git add': changes the index)" ] ||
			{ echo "answer '$answer': $(cat err)"; false; }
	done
	[ "$(sed -n 2p tty)" = "  git add '^[[2Jevil' 'it'\\''s' 'a b'" ]
	[ "$(sed -n 4p tty)" = "  reason: key [REDACTED] please" ]
	! grep -q $'\e' tty
	[ -z "$(git diff --cached --name-only)" ]
	for answer in Y yes YES; do
		on_tty --answer "$answer" --stdin /dev/null --stdout out --stderr err --transcript tty -- \
			ai-exec --policy "$POLICY" --run git add notes.md
		[ ! -s err ]
	done
	[ "$(git diff --cached --name-only)" = notes.md ]
	# end of input (Ctrl-D) is no
	on_tty --stdin /dev/null --stdout out --stderr err --transcript tty -- \
		ai-exec --policy "$POLICY" --run git add untracked.txt || true
	grep -q 'the user declined' err
}

@test "L1 from a background job is not asked: refused as with no terminal" {
	on_tty --background --answer y --stdin /dev/null --stdout out --stderr err --transcript tty -- \
		ai-exec --policy "$POLICY" --run git add untracked.txt || true
	[ "$(cat err)" = "ai-exec: git: level L1 needs confirmation and there is no terminal to ask (rule 'git add': changes the index); --approve L1 allows it" ]
	! grep -q 'Run it' tty
	[ -z "$(git diff --cached --name-only)" ]
}

@test "L0 and L2 ask nothing on a terminal" {
	on_tty --answer y --stdin /dev/null --stdout out --stderr err --transcript tty -- \
		ai-exec --policy "$POLICY" --run git reset --hard || true
	[ "$(cat err)" = "ai-exec: git: refused at level L2 (rule 'git reset --hard': discards uncommitted changes)" ]
	on_tty --stdin /dev/null --stdout out --stderr err --transcript tty -- \
		ai-exec --policy "$POLICY" --run pwd
	[ "$(cat out)" = "$PWD" ]
	[ ! -s tty ]
}

# ---- execution ----

@test "environment: the program gets no API key, no LD_*, no GIT_* and no PATH of the caller's" {
	OPENAI_API_KEY=sk-env-0123456789abcdef ANTHROPIC_API_KEY=x BRAVE_API_KEY=y \
		AWS_SECRET_ACCESS_KEY=z GITHUB_TOKEN=ghp_0123456789abcdef0123456789abcdef0123 \
		LD_LIBRARY_PATH=/nonexistent LD_AUDIT=/nonexistent GIT_DIR=/nonexistent \
		GIT_CONFIG_PARAMETERS="'core.pager'='touch PWNED'" SSH_AUTH_SOCK=/tmp/agent \
		PATH=".:/usr/local/bin:$PATH" LANG=C.UTF-8 TZ=UTC GIT_AUTHOR_NAME=Ann \
		run --separate-stderr ai-exec --policy "$TPOL" --run env
	[ "$status" -eq 0 ]
	! grep -E 'KEY|SECRET|TOKEN|^LD_|SSH_|GIT_DIR|GIT_CONFIG' <<<"$output"
	grep -qx "PATH=/usr/bin" <<<"$output"
	grep -qx "PWD=$PWD" <<<"$output"
	grep -qx "LANG=C.UTF-8" <<<"$output"
	grep -qx "TZ=UTC" <<<"$output"
	grep -qx "GIT_AUTHOR_NAME=Ann" <<<"$output"
	# nothing but the allowlist
	[ -z "$(cut -d= -f1 <<<"$output" | grep -vxE 'HOME|USER|LOGNAME|LANG|LANGUAGE|LC_[A-Z_]+|TZ|TMPDIR|PATH|PWD|GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL)')" ]
	[ ! -e PWNED ]
}

@test "timeout: the program and its grandchildren are killed, within bounds; the result is a timeout (75)" {
	# the sleeps are found by their unusual durations: their PIDs inside the sandbox are not ours
	t0=$(now_ms)
	run --separate-stderr ai-exec --policy "$TPOL" --approve L1 --timeout 1 --run sh -c \
		'sleep 60711 & sh -c "sleep 60712 & sleep 60713" & echo started; wait'
	[ "$status" -eq 75 ]
	[ $(($(now_ms) - t0)) -lt 5000 ]
	[ "$output" = started ]
	[[ "$stderr" == "ai-exec: sh: did not finish within 1."*" s: stopped it and its process group" ]]
	sleep 0.3
	! pgrep -f 'sleep 6071[123]' || { ps -o pid,pgid,stat,cmd -p "$(pgrep -d, -f 'sleep 6071')"; false; }
	# without the sandbox too
	run ai-exec --policy "$TPOL" --unconfined --approve L1 --timeout 1 --run sh -c \
		'sleep 60714 & sh -c "sleep 60715 & sleep 60716" & wait'
	[ "$status" -eq 75 ]
	sleep 0.3
	! pgrep -f 'sleep 6071[456]'
	# a call's own timeout is lower, never higher
	echo "$(RMORE='{"timeout":0.5}' rcall t1 sh -c 'sleep 30')" >"$IN"
	echo "$(RMORE='{"timeout":100}' rcall t2 sh -c 'sleep 30')" >>"$IN"
	t0=$(now_ms)
	run ai-exec --serve --policy "$TPOL" --approve L1 --timeout 1 <"$IN"
	[ $(($(now_ms) - t0)) -lt 5000 ]
	jq -e '.ok == false and .error_kind == "timeout" and .durationMs < 900' <<<"${lines[0]}"
	jq -e '.ok == false and .error_kind == "timeout" and .durationMs >= 1000' <<<"${lines[1]}"
}

@test "a program that ends leaves nothing behind: the rest of its process group is killed" {
	t0=$(now_ms)
	run ai-exec --policy "$TPOL" --approve L1 --run sh -c 'sleep 60721 & echo started'
	[ "$status" -eq 0 ]
	[ $(($(now_ms) - t0)) -lt 3000 ]
	sleep 0.3
	! pgrep -f 'sleep 60721'
	run ai-exec --policy "$TPOL" --unconfined --approve L1 --run sh -c 'sleep 60722 & echo started'
	[ "$status" -eq 0 ]
	sleep 0.3
	! pgrep -f 'sleep 60722'
	# a child that keeps the output open does not hold the call either
	t0=$(now_ms)
	run ai-exec --policy "$TPOL" --approve L1 --run sh -c 'sleep 60723 >&1 & echo done'
	[ "$output" = done ]
	[ $(($(now_ms) - t0)) -lt 3000 ]
}

@test "stdin is /dev/null: a program that reads it gets end of input at once" {
	t0=$(now_ms)
	run ai-exec --policy "$TPOL" --run cat
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ $(($(now_ms) - t0)) -lt 3000 ]
	echo secret | { run ai-exec --policy "$TPOL" --run cat; [ -z "$output" ]; }
}

@test "--max-output: a program past the cap is stopped, a limit (3); what came first is kept" {
	run --separate-stderr ai-exec --policy "$TPOL" --max-output 1000 --run seq 1000000
	[ "$status" -eq 3 ]
	[ "$stderr" = "ai-exec: seq: wrote more than 1000 bytes on its standard output and error (--max-output): stopped it" ]
	[ "${#output}" -le 1000 ]
	[ "${lines[0]}" = 1 ]
	run --separate-stderr ai-exec --policy "$TPOL" --max-output 1000 --json --run seq 1000000
	[ "$stderr" = "ai-exec: seq: wrote more than 1000 bytes on its standard output and error (--max-output): stopped it" ]
	jq -e '.ok == false and .error_kind == "limit" and .truncated and .exitCode != 0' <<<"${lines[0]}"
}

@test "Landlock: an L0 program cannot write a file or start another program, in the sandbox or without it; at L1 it can" {
	landlock || skip "this kernel has no Landlock"
	# in the sandbox the root is read-only at L0 before Landlock is asked
	run --separate-stderr ai-exec --policy "$TPOL" --run touch made-at-L0
	[ "$status" -eq 1 ]
	[ ! -e made-at-L0 ]
	[ "$stderr" = "touch: cannot touch 'made-at-L0': Read-only file system" ]
	# Landlock alone, without the sandbox
	run --separate-stderr ai-exec --policy "$TPOL" --unconfined --run touch made-at-L0
	[ "$status" -eq 1 ]
	[ ! -e made-at-L0 ]
	[ "$stderr" = "ai-exec: warning: --unconfined: programs run without the sandbox, with the argument checks, the limits and Landlock alone
touch: cannot touch 'made-at-L0': Permission denied" ]
	for how in "" --unconfined; do
		run --separate-stderr ai-exec --policy "$TPOL" $how --run sh0 -c 'echo before; ls; echo x >written; sh -c "echo nested sh runs"'
		[ "${lines[0]}" = before ]
		[ "${lines[1]}" = "nested sh runs" ]
		[[ "$stderr" == *"ls: Permission denied"* ]]
		[ ! -e written ]
		run --separate-stderr ai-exec --policy "$TPOL" $how --approve L1 --run sh -c 'ls notes.md; echo x >written'
		[ "$output" = notes.md ]
		[ -e written ]
		rm written
	done
	# git at L0 is confined and works
	run ai-exec --policy "$POLICY" --run git status --porcelain
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = " M notes.md" ]
}

# ---- working directory and the root ----

@test "cwd: relative to the root, absolute inside it, the current directory by default; outside the root refused" {
	RMORE='{"cwd":"src"}' rcall 1 ls >"$IN"
	RMORE="{\"cwd\":\"$PWD/src/sub\"}" rcall 2 pwd >>"$IN"
	rcall 3 pwd >>"$IN"
	RMORE='{"cwd":".."}' rcall 4 ls >>"$IN"
	RMORE='{"cwd":"/"}' rcall 5 ls >>"$IN"
	RMORE='{"cwd":"nowhere"}' rcall 6 ls >>"$IN"
	RMORE='{"cwd":"notes.md"}' rcall 7 ls >>"$IN"
	ln -s / out
	RMORE='{"cwd":"out"}' rcall 8 ls >>"$IN"
	RMORE='{"cwd":"src/../src/sub"}' rcall 9 pwd >>"$IN"
	run ai-exec --serve --policy "$POLICY" <"$IN"
	[ "$status" -eq 0 ]
	jq -e '.ok and .stdoutTail == "main.c\nsub\n" and .cwd == "'"$PWD"'/src"' <<<"${lines[0]}"
	jq -e '.ok and .stdoutTail == "'"$PWD"'/src/sub\n"' <<<"${lines[1]}"
	jq -e '.ok and .stdoutTail == "'"$PWD"'\n"' <<<"${lines[2]}"
	for i in 3 4 7; do
		jq -e '.ok == false and .error_kind == "policy" and .rule == "root" and .exitCode == null and (.error | test("^ls: the working directory .* is outside the root"))' <<<"${lines[i]}"
	done
	jq -e '.error == "ls: cannot use the working directory '"'nowhere'"': No such file or directory (rule '"'root'"')"' <<<"${lines[5]}"
	jq -e '.error == "ls: cannot use the working directory '"'notes.md'"': Not a directory (rule '"'root'"')"' <<<"${lines[6]}"
	jq -e '.ok and .stdoutTail == "'"$PWD"'/src/sub\n"' <<<"${lines[8]}"
}

@test "--root: another directory; the current one is used when inside it, else the root" {
	cd src
	run ai-exec --policy "$POLICY" --root .. --run pwd
	[ "$output" = "$BATS_TEST_TMPDIR/w/src" ]
	cd /
	run ai-exec --policy "$POLICY" --root "$BATS_TEST_TMPDIR/w" --run pwd
	[ "$output" = "$BATS_TEST_TMPDIR/w" ]
	run ai-exec --policy "$POLICY" --root "$BATS_TEST_TMPDIR/w" --run cat notes.md
	[ "${lines[0]}" = "# Notes" ]
	run ai-exec --policy "$POLICY" --root "$BATS_TEST_TMPDIR/w" --run cat /etc/passwd
	[ "$status" -eq 77 ]
}

@test "paths: an operand or a value outside the root is refused; a symbolic link out of it too; TEXT values are not paths" {
	ln -s /etc etc-link
	ln -s /etc/passwd passwd-link
	local -a out=("cat /etc/passwd" "cat ../../etc/passwd" "cat passwd-link" "cat etc-link/passwd"
		"ls .." "ls src/../.." "ls /" "grep -r root /etc" "grep -f /etc/passwd x"
		"grep --include=x -e root ../" "git log --oneline -- /etc" "ls missing/../../x"
		"find / -name x" "git diff --stat ../other" "cat -- /etc/hostname")
	for c in "${out[@]}"; do
		read -r -a argv <<<"$c"
		run --separate-stderr ai-exec --policy "$POLICY" --run "${argv[@]}"
		[ "$status" -eq 77 ] || { echo "exit $status for $c: $stderr"; false; }
		[[ "$stderr" == "ai-exec: ${argv[0]}: '"*"' is outside the root '$PWD' (rule 'root')" ]] ||
			{ echo "$c: $stderr"; false; }
	done
	# values named TEXT are patterns, formats or messages
	run ai-exec --policy "$POLICY" --run grep -n -e /bin/sh notes.md
	[ "$status" -eq 1 ]
	run ai-exec --policy "$POLICY" --run git log --format=/%s/../.. -1
	[ "$output" = "/first commit/../.." ]
	run ai-exec --policy "$POLICY" --run find . -path ../x
	[ "$status" -eq 0 ]
	# inside, through a link that stays inside, and names that do not exist yet
	ln -s src src-link
	run ai-exec --policy "$POLICY" --run cat src-link/sub/deep.txt
	[ "$output" = deep ]
	run ai-exec --policy "$POLICY" --run ls new/dir
	[ "$status" -eq 2 ]
}

@test "paths are taken from where they are used: after tar -C, from a link's directory, in a DATA value's @FILE" {
	# from a subdirectory: tar -C moves the base; what stays inside from there runs
	RMORE='{"cwd":"src"}' rcall t1 tar -C "$PWD" -cf src/x.tar ../outside >"$IN"
	RMORE='{"cwd":"src"}' rcall t2 tar -C "$PWD" -cf x.tar notes.md >>"$IN"
	RMORE='{"cwd":"src"}' rcall t3 tar -C sub -cf ../../x.tar deep.txt >>"$IN"
	run ai-exec --serve --policy "$POLICY" --approve L1 <"$IN"
	jq -e '.ok == false and .error == "tar: '"'../outside'"' is outside the root '"'$PWD'"' (rule '"'root'"')"' <<<"${lines[0]}"
	jq -e '.ok' <<<"${lines[1]}"
	[ "$(tar -tf src/x.tar)" = notes.md ]
	# tar opens its archive from the working directory, whatever -C says: inside from both
	jq -e '.ok == false and .error == "tar: '"'../../x.tar'"' is outside the root '"'$PWD'"' (rule '"'root'"')"' <<<"${lines[2]}"
	# a symbolic link's target: from the link's directory, not the working directory
	run --separate-stderr ai-exec --policy "$POLICY" --approve L1 --run ln -s ../notes.md src/notes-link
	[ "$status" -eq 0 ]
	[ "$(cat src/notes-link)" = "$(cat notes.md)" ]
	RMORE='{"cwd":"src/sub"}' rcall l1 ln -s ../x ../../up-link >"$IN"
	RMORE='{"cwd":"src/sub"}' rcall l2 ln -s ../../notes.md ../../sub-link >>"$IN"
	run ai-exec --serve --policy "$POLICY" --approve L1 <"$IN"
	jq -e '.ok == false and .error_kind == "policy" and (.error | startswith("ln: '"'../x'"' is outside"))' <<<"${lines[0]}"
	jq -e '.ok == false and .error_kind == "policy"' <<<"${lines[1]}"
	[ ! -e up-link ] && [ ! -L sub-link ]
	# curl's @FILE inside the root is allowed (and asked about: L1, the network)
	run --separate-stderr ai-exec --policy "$POLICY" --run curl -d @notes.md http://127.0.0.1:9/
	[ "$status" -eq 77 ]
	[[ "$stderr" == *"level L1 needs confirmation and there is no terminal to ask"* ]]
}

# ---- results ----

@test "--json: the result record: program, args, cwd, level, rule, exitCode, durationMs, tails, truncated, parsed" {
	run ai-exec --policy "$POLICY" --json --run git status --porcelain
	[ "$status" -eq 0 ]
	jq -e --arg cwd "$PWD" '. == {type:"tool_result",name:"run",ok:true,program:"git",
		args:["status","--porcelain"],cwd:$cwd,level:"L0",rule:"git status",exitCode:0,
		durationMs:.durationMs,stdoutTail:" M notes.md\n?? untracked.txt\n",stderrTail:"",
		truncated:false,parsed:{kind:"git_status",total:2,items:[{status:" M",path:"notes.md"},
		{status:"??",path:"untracked.txt"}]}} and (.durationMs | type == "number")' <<<"$output"
	run --separate-stderr ai-exec --policy "$POLICY" --json --run git reset --hard
	[ "$status" -eq 77 ]
	jq -e --arg cwd "$PWD" '. == {type:"tool_result",name:"run",ok:false,
		error:"git: refused at level L2 (rule '"'git reset --hard'"': discards uncommitted changes)",
		error_kind:"policy",program:"git",args:["reset","--hard"],cwd:$cwd,level:"L2",
		rule:"git reset --hard",exitCode:null,durationMs:0,stdoutTail:"",stderrTail:"",
		truncated:false,parsed:null}' <<<"${lines[0]}"
}

@test "tails: the last --tail lines of each stream, at most 16 KiB; truncated says when they are not all" {
	run ai-exec --policy "$TPOL" --json --tail 3 --run seq 10
	jq -e '.stdoutTail == "8\n9\n10\n" and .truncated' <<<"$output"
	run ai-exec --policy "$TPOL" --json --tail 10 --run seq 10
	jq -e '.stdoutTail == "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n" and .truncated == false' <<<"$output"
	run ai-exec --policy "$TPOL" --json --run seq 100000
	jq -e '(.stdoutTail | split("\n") | length) == 41 and (.stdoutTail | endswith("99999\n100000\n")) and .truncated' <<<"$output"
	run ai-exec --policy "$TPOL" --json --approve L1 --tail 2 --run sh -c 'printf "%s\n" a b c >&2; printf "x%.0s" $(seq 20000)'
	jq -e '.stderrTail == "b\nc\n" and (.stdoutTail | length) == 16384 and .truncated' <<<"$output"
	run ai-exec --policy "$TPOL" --json --tail 0 --run seq 3
	jq -e '.stdoutTail == "" and .truncated' <<<"$output"
}

@test "a program that fails: ok false, execution, its status and output kept; ok_status makes grep's 1 a success" {
	run ai-exec --policy "$POLICY" --json --run ls no-such-file
	[ "$status" -eq 2 ]
	jq -e '.ok == false and .error_kind == "execution" and .error == "ls: exited with status 2" and
		.exitCode == 2 and (.stderrTail | contains("No such file"))' <<<"${lines[0]}"
	run ai-exec --policy "$POLICY" --json --run grep -n zzz notes.md
	[ "$status" -eq 1 ]
	jq -e '.ok and .exitCode == 1 and .parsed == {kind:"matches",total:0,items:[]}' <<<"${lines[0]}"
	run ai-exec --policy "$TPOL" --json --approve L1 --run sh -c 'kill -9 $$'
	[ "$status" -eq 137 ]
	jq -e '.ok == false and .error == "sh: ended by signal 9" and .exitCode == 137' <<<"${lines[0]}"
}

@test "parsed: git status --porcelain -b with renames, quoted names and a branch" {
	git -c user.name=t -c user.email=t@example.com commit -qam second
	git mv notes.md renamed.md
	printf 'x\n' >"caf$(printf '\303\251') \"q\".txt"
	git -C . checkout -q -b topic
	run ai-exec --policy "$POLICY" --json --run git status --porcelain -b
	jq -e '.parsed == {kind:"git_status",branch:{name:"topic"},total:3,items:[
		{status:"R ",path:"renamed.md",from:"notes.md"},
		{status:"??",path:"café \"q\".txt"},{status:"??",path:"untracked.txt"}]}' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run git status -s
	jq -e '.parsed.kind == "git_status" and .parsed.total == 3 and (.parsed | has("branch") | not)' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run git status
	jq -e '.parsed == null' <<<"$output"
}

@test "parsed: grep -n and rg -n matches, in one file and in several; git grep -n" {
	run ai-exec --policy "$POLICY" --json --run grep -n TODO notes.md
	jq -e '.parsed == {kind:"matches",total:1,items:[{file:"notes.md",line:4,text:"TODO: write tests"}]}' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run grep -rn TODO src notes.md
	jq -e '.parsed.total == 2 and (.parsed.items | map(.file) | sort) == ["notes.md","src/main.c"] and
		(.parsed.items[] | select(.file == "src/main.c") | .line == 3)' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run git grep -n TODO
	jq -e '.parsed == {kind:"matches",total:2,items:[{file:"notes.md",line:4,text:"TODO: write tests"},
		{file:"src/main.c",line:3,text:"\treturn 0; /* TODO */"}]}' <<<"$output"
	command -v rg >/dev/null || skip "rg is not installed (make deps)"
	run ai-exec --policy "$POLICY" --json --run rg -n --sort=path TODO
	jq -e '.parsed == {kind:"matches",total:2,items:[{file:"notes.md",line:4,text:"TODO: write tests"},
		{file:"src/main.c",line:3,text:"\treturn 0; /* TODO */"}]}' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run rg -n alpha notes.md
	jq -e '.parsed == {kind:"matches",total:1,items:[{file:"notes.md",line:3,text:"alpha beta"}]}' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run rg --vimgrep beta
	jq -e '.parsed.items == [{file:"notes.md",line:3,column:7,text:"alpha beta"}]' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run rg --files --sort=path
	jq -e '.parsed.kind == "files" and (.parsed.items | map(.name)) == ["notes.md","src/main.c","src/sub/deep.txt","untracked.txt"]' <<<"$output"
}

@test "parsed: ls, ls -R and find list names; git ls-files too" {
	run ai-exec --policy "$POLICY" --json --run ls
	jq -e '.parsed == {kind:"files",total:3,items:[{name:"notes.md"},{name:"src"},{name:"untracked.txt"}]}' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run ls -R src
	jq -e '.parsed == {kind:"files",total:3,items:[{name:"main.c",dir:"src"},{name:"sub",dir:"src"},
		{name:"deep.txt",dir:"src/sub"}]}' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run ls -l
	jq -e '.parsed == null' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run find src -type f
	jq -e '.parsed.kind == "files" and (.parsed.items | map(.name) | sort) == ["src/main.c","src/sub/deep.txt"]' <<<"$output"
	run ai-exec --policy "$POLICY" --json --run git ls-files
	jq -e '.parsed.items == [{name:"notes.md"},{name:"src/main.c"},{name:"src/sub/deep.txt"}]' <<<"$output"
}

# ---- --serve ----

@test "--serve: run calls answered in order with execute calls; bad arguments get usage; the server goes on" {
	{
		rcall r1 git status --porcelain
		call e1 'head -n 1 notes.md'
		echo '{"type":"tool_call","id":"b1","name":"run","arguments":{"args":["x"]}}'
		echo '{"type":"tool_call","id":"b2","name":"run","arguments":{"program":"ls","args":"-la"}}'
		echo '{"type":"tool_call","id":"b3","name":"run","arguments":{"program":"ls","args":[1]}}'
		echo '{"type":"tool_call","id":"b4","name":"run","arguments":{"program":"ls","shell":true}}'
		echo '{"type":"tool_call","id":"b5","name":"run","arguments":{"program":"ls","timeout":0}}'
		echo '{"type":"tool_call","id":"b6","name":"run","arguments":"ls"}'
		echo '{"type":"tool_call","id":"n1","name":"run","arguments":{"program":"pwd","args":null,"cwd":null,"reason":null,"timeout":null}}'
		rcall r2 ls src
	} >"$IN"
	run --separate-stderr ai-exec --serve --policy "$POLICY" --file notes.md <"$IN"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	jq -e '.id == "r1" and .ok and .parsed.total == 2' <<<"${lines[0]}"
	jq -e '.id == "e1" and .name == "execute" and .stdout_text == "# Notes\n"' <<<"${lines[1]}"
	jq -e '.id == "b1" and .ok == false and .error_kind == "usage" and .error == "argument '"'program'"' is missing"' <<<"${lines[2]}"
	jq -e '.error == "argument '"'args'"' must be an array of strings"' <<<"${lines[3]}"
	jq -e '.error == "argument '"'args'"' must be an array of strings"' <<<"${lines[4]}"
	jq -e '.error == "unknown argument '"'shell'"' (run takes program, args, cwd, reason and timeout)"' <<<"${lines[5]}"
	jq -e '.error == "argument '"'timeout'"' must be a number of seconds, more than 0 and at most 86400"' <<<"${lines[6]}"
	jq -e '.error == "the arguments must be a JSON object" and .program == ""' <<<"${lines[7]}"
	jq -e '.id == "n1" and .ok and .stdoutTail == "'"$PWD"'\n"' <<<"${lines[8]}"
	jq -e '.id == "r2" and .ok and .stdoutTail == "main.c\nsub\n"' <<<"${lines[9]}"
}

@test "--serve without --policy: the run tool is unavailable; another tool's error names both tools" {
	{
		rcall r1 ls
		echo '{"type":"tool_call","id":"x","name":"shell","arguments":{}}'
	} >"$IN"
	run ai-exec --serve --file notes.md <"$IN"
	[ "$status" -eq 0 ]
	jq -e '.ok == false and .error_kind == "unavailable" and .error == "the run tool is off: ai-exec was started without --policy"' <<<"${lines[0]}"
	jq -e '.error == "line 2: tool '"'shell'"' is not served by ai-exec (it serves: execute, run)"' <<<"${lines[1]}"
	[ ! -e ls.out ]
}

@test "--max-runs: runs past the limit of a request are refused as a limit; refusals do not count; default 5" {
	for i in 1 2 3; do rcall "ok$i" pwd; done >"$IN"
	rcall refused git reset --hard >>"$IN"
	rcall past pwd >>"$IN"
	run ai-exec --serve --policy "$POLICY" --max-runs 3 <"$IN"
	for i in 0 1 2; do jq -e '.ok' <<<"${lines[i]}"; done
	jq -e '.ok == false and .error_kind == "policy"' <<<"${lines[3]}"
	jq -e '.ok == false and .error_kind == "limit" and .rule == "pwd" and
		.error == "pwd: the limit of 3 runs per request is reached (rule '"'max-runs'"'; --max-runs)"' <<<"${lines[4]}"
	for i in 1 2 3 4 5 6; do rcall "c$i" pwd; done >"$IN"
	run ai-exec --serve --policy "$POLICY" <"$IN"
	[ "$(printf '%s\n' "${lines[@]}" | jq -s 'map(.ok) | map(tostring) | join(",")')" = '"true,true,true,true,true,false"' ]
}

@test "--serve: an L1 call is asked about on the terminal while the calls come on standard input" {
	{
		rcall a1 git add untracked.txt
		rcall a2 git add notes.md
		rcall s1 git diff --cached --name-only
	} >"$IN"
	on_tty --answer y --answer n --stdin "$IN" --stdout out --stderr err --transcript tty -- \
		ai-exec --serve --policy "$POLICY"
	[ "$(grep -c 'Run it' tty)" -eq 2 ]
	jq -s -e '.[0].ok and .[1].ok == false and .[1].error_kind == "policy" and
		.[2].stdoutTail == "untracked.txt\n"' out
}

# ---- the audit log ----

@test "audit: a decision line for every call, an execution line for every run; refusals say why and name the rule" {
	{
		RMORE='{"reason":"see the state"}' rcall a1 git status --porcelain
		RMORE='{"reason":"clean up, token sk-abcdef0123456789abcdef"}' rcall a2 git reset --hard
		rcall a3 git add untracked.txt
		rcall a4 nosuchprog
		rcall a5 grep -n sk-abcdef0123456789abcdef notes.md
	} >"$IN"
	run ai-exec --serve --policy "$POLICY" --audit "$BATS_TEST_TMPDIR/audit.log" <"$IN"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/audit.log")" = 600 ]
	jq -s -e --arg cwd "$PWD" '
		map({event, call, id, program, level, rule, decision}) == [
		{event:"decision",call:1,id:"a1",program:"git",level:"L0",rule:"git status",decision:"run"},
		{event:"execution",call:1,id:"a1",program:"git",level:"L0",rule:"git status",decision:"run"},
		{event:"decision",call:2,id:"a2",program:"git",level:"L2",rule:"git reset --hard",decision:"refused"},
		{event:"decision",call:3,id:"a3",program:"git",level:"L1",rule:"git add",decision:"refused"},
		{event:"decision",call:4,id:"a4",program:"nosuchprog",level:null,rule:"programs",decision:"refused"},
		{event:"decision",call:5,id:"a5",program:"grep",level:"L0",rule:"grep",decision:"run"},
		{event:"execution",call:5,id:"a5",program:"grep",level:"L0",rule:"grep",decision:"run"}]' "$BATS_TEST_TMPDIR/audit.log"
	jq -s -e --arg cwd "$PWD" '.[1] | .tool == "run" and .args == ["status","--porcelain"] and
		.reason == "see the state" and .cwd == $cwd and .path == "/usr/bin/git" and .ok and
		.exit_code == 0 and (.duration_ms | type) == "number" and .timed_out == false and
		.stdout_bytes == 29 and .stderr_bytes == 0 and .sandbox == "bubblewrap" and
		(.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T"))' "$BATS_TEST_TMPDIR/audit.log"
	jq -s -e '.[2] | .why == "git: refused at level L2 (rule '"'git reset --hard'"': discards uncommitted changes)" and
		.error_kind == "policy" and .reason == "clean up, token [REDACTED]"' "$BATS_TEST_TMPDIR/audit.log"
	jq -s -e '.[3].why | endswith("--approve L1 allows it")' "$BATS_TEST_TMPDIR/audit.log"
	jq -s -e '.[5].args == ["-n","[REDACTED]","notes.md"] and .[6].exit_code == 1 and .[6].ok' "$BATS_TEST_TMPDIR/audit.log"
	! grep -q 'alpha beta' "$BATS_TEST_TMPDIR/audit.log"
}

@test "audit: --run writes its lines too; an audit log that cannot be written stops ai-exec with 74" {
	run ai-exec --policy "$POLICY" --audit a.log --reason 'look' --run pwd
	[ "$status" -eq 0 ]
	jq -s -e 'length == 2 and .[0].id == null and .[1].reason == "look" and .[1].decision == "run"' a.log
	run --separate-stderr ai-exec --policy "$POLICY" --audit /nonexistent/a.log --run pwd
	[ "$status" -eq 74 ]
	[ -z "$output" ]
}

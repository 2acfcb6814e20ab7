#!/usr/bin/env bats
# ai-exec --policy against an attacker: every escape route through an
# allowed program.  The refusals are the table tests/ai-exec/run-attacks.txt,
# each also run under strace (no process started, nothing executed, nothing
# changed).  Below it: arguments that must arrive literally, sed's sandbox,
# and a repository whose configuration names programs, run both at L0 (under
# Landlock) and at L1 (not confined: the overrides alone must hold), with
# hostile GIT_* variables in the caller's environment.

bats_require_minimum_version 1.5.0
load helpers/env
load helpers/exec

setup() {
	clean_env
	run_fixtures "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
	ln -s /etc out-link
	IN=$BATS_TEST_TMPDIR/in
}

# A listing of the work directory with sizes and checksums, .git included: "nothing written".
tree_state() {
	find . -path ./.git/index -prune -o -printf '%p %y %s %m\n' | sort
	find . -path ./.git/index -prune -o -type f -exec md5sum {} + | sort
}

# traced OUT ai-exec ARGS...: run under strace, recording new processes and
# every execve with its arguments and environment.  Each process is traced
# into a file of its own (-ff), then the files are put together: a line is
# never split by another process's.
traced() {
	local out=$1 rc=0
	shift
	rm -f "$out" "$out".*
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -ff -qq -v -s 4096 \
		-o "$out" -e trace=execve,clone,clone3,fork,vfork "$@" || rc=$?
	cat "$out".* >"$out" 2>/dev/null
	rm -f "$out".*
	return $rc
}

# execs TRACE: the programs executed (successfully), one per line, but the
# machinery: ai-exec itself, bubblewrap and ai-exec's helper inside the sandbox.
execs() {
	grep -E '^execve\("[^"]*", .*\) = 0' "$1" | sed -E 's/^execve\("([^"]*)".*/\1/' |
		grep -v -x -e "$(command -v ai-exec)" -e /usr/bin/bwrap -e /run/aicli/ai-exec-confine || true
}

# run_attacks FILE: every case of the table; print the failures; fail if any.
run_attacks() {
	local args="" want_rc="" want_err="" line n=0 fails=0 got_err got_rc before
	local -a argv
	one() {
		[ -n "$args" ] || return 0
		n=$((n + 1))
		mapfile -d '' -t argv < <(jq -j '.[] | (., "\u0000")' <<<"$args")
		before=$(tree_state)
		got_err=$(ai-exec --policy "$POLICY" --run "${argv[@]}" 2>&1 >/dev/null </dev/null)
		got_rc=$?
		want_err=${want_err%$'\n'}
		want_err=${want_err//ROOT/$PWD}
		if [ "$got_rc" != "$want_rc" ] || [ "$got_err" != "$want_err" ]; then
			fails=$((fails + 1))
			printf 'FAIL: %s\n  exit: want %s, got %s\n  want: %s\n  got:  %s\n' "$args" \
				"$want_rc" "$got_rc" "$want_err" "$got_err"
		else
			traced "$BATS_TEST_TMPDIR/trace" ai-exec --policy "$POLICY" --run "${argv[@]}" \
				>/dev/null 2>&1 </dev/null
			if [ -n "$(execs "$BATS_TEST_TMPDIR/trace")" ] ||
				grep -qE '^(clone|clone3|fork|vfork)\(' "$BATS_TEST_TMPDIR/trace"; then
				fails=$((fails + 1))
				printf 'FAIL: %s\n  a process was started:\n%s\n' "$args" "$(cat "$BATS_TEST_TMPDIR/trace")"
			fi
		fi
		if [ "$(tree_state)" != "$before" ] || [ -e PWNED ]; then
			fails=$((fails + 1))
			printf 'FAIL: %s\n  the work directory changed\n' "$args"
		fi
		args="" want_rc="" want_err=""
	}
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		'#'*) continue ;;
		'') one; continue ;;
		'['*) args=$line ;;
		'! '*) want_err+="${line#! }"$'\n' ;;
		*) want_rc=$line ;;
		esac
	done <"$1"
	one
	echo "$n cases, $fails failed"
	[ "$fails" -eq 0 ] && [ "$n" -gt 0 ]
}

@test "the escape-route table: each refused with its rule and status; no process started, nothing changed" {
	command -v strace >/dev/null || { echo "strace is needed (make deps)"; false; }
	run run_attacks "$BATS_TEST_DIRNAME/ai-exec/run-attacks.txt"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" cases, 0 failed" ]]
}

# ---- arguments arrive literally ----

@test "';', '\$(', backquotes, '|', '&&' and newlines in arguments are the arguments' text: one execve, literal argv" {
	local -a evil=('a;touch PWNED1' '$(touch PWNED2)' '`touch PWNED3`' 'b|touch PWNED4'
		'c && touch PWNED5' $'d\ntouch PWNED6' '>PWNED7' '*' '~' '${HOME}')
	traced trace ai-exec --policy "$POLICY" --run ls -d -- "${evil[@]}" >out 2>err && false
	[ ! -e PWNED1 ] && [ ! -e PWNED2 ] && [ ! -e PWNED3 ] && [ ! -e PWNED4 ] && [ ! -e PWNED5 ] &&
		[ ! -e PWNED6 ] && [ ! -e PWNED7 ]
	[ "$(execs trace)" = /usr/bin/ls ]
	# the argument vector ls got, exactly: its name, then the call's arguments
	grep -F 'execve("/usr/bin/ls", ["ls", "-d", "--", "a;touch PWNED1", "$(touch PWNED2)", "`touch PWNED3`", "b|touch PWNED4", "c && touch PWNED5", "d\ntouch PWNED6", ">PWNED7", "*", "~", "${HOME}"]' trace
	[ "$(grep -c 'No such file or directory' err)" -eq 10 ]
	# through a tool call too, and into git
	RMORE='{"reason":"$(touch PWNED8)"}' rcall 1 git log --oneline '--grep=$(touch PWNED9)' >"$IN"
	run ai-exec --serve --policy "$POLICY" <"$IN"
	jq -e '.ok and .stdoutTail == ""' <<<"$output"
	[ ! -e PWNED8 ] && [ ! -e PWNED9 ]
	run ai-exec --policy "$POLICY" --approve L1 --run git -c user.name=x commit -m 'x'
	[ "$status" -eq 77 ]
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@example.com run ai-exec --policy "$POLICY" --approve L1 \
		--run git commit -a -m $'fix; rm -rf . $(touch PWNED10)\n`id`'
	[ "$status" -eq 0 ]
	[ "$(git log -1 --format=%B)" = $'fix; rm -rf . $(touch PWNED10)\n`id`' ]
	[ ! -e PWNED10 ] && [ -d src ]
}

@test "a NUL cannot reach a program: a tool call holding one is refused before anything runs" {
	echo '{"type":"tool_call","id":"n","name":"run","arguments":{"program":"ls","args":["a\u0000b"]}}' >"$IN"
	rcall ok pwd >>"$IN"
	run ai-exec --serve --policy "$POLICY" <"$IN"
	[ "${#lines[@]}" -eq 2 ]
	jq -e '.ok == false and .error_kind == "usage" and (.error | contains("\\u0000"))' <<<"${lines[0]}"
	jq -e '.id == "ok" and .ok' <<<"${lines[1]}"
}

@test "sed runs with --sandbox: its e, r and w commands and the e and w flags are refused by sed; nothing else runs" {
	for script in e 's/alpha/touch PWNED/e' 'w PWNED' 's/a/b/w PWNED' '1r /etc/passwd' 'R /etc/passwd' 'W PWNED'; do
		traced trace ai-exec --policy "$POLICY" --run sed -e "$script" notes.md >out 2>err && false
		[[ "$(cat err)" == "sed: -e expression #1, char "*": e/r/w commands disabled in sandbox mode" ]] ||
			{ echo "$script: $(cat err)"; false; }
		[ ! -e PWNED ]
		[ "$(execs trace)" = /usr/bin/sed ]
		grep -qF 'execve("/usr/bin/sed", ["sed", "--sandbox", "-e", ' trace
	done
	# the script as an operand is sandboxed all the same
	run ai-exec --policy "$POLICY" --run sed e notes.md
	[ "$status" -eq 1 ]
	run ai-exec --policy "$POLICY" --run sed -n 3p notes.md
	[ "$output" = "alpha beta" ]
}

@test "rg runs with --no-config: a config file named in the caller's environment is never read" {
	command -v rg >/dev/null || skip "rg is not installed (make deps)"
	local t=$BATS_TEST_TMPDIR
	printf -- '--pre=touch\n' >"$t/rgrc"
	RIPGREP_CONFIG_PATH="$t/rgrc" traced "$t/trace" ai-exec --policy "$POLICY" --run rg -n alpha >"$t/out"
	[ "$(cat "$t/out")" = "notes.md:3:alpha beta" ]
	grep -qF 'execve("/usr/bin/rg", ["rg", "--no-config", "-n", "alpha"]' "$t/trace"
	! grep -F 'execve("/usr/bin/rg"' "$t/trace" | grep -q RIPGREP
}

# ---- git: the repository's configuration names programs ----

# hostile_repo: configuration, attributes and hooks that run `touch PWNED_*`
# (absolute paths) if git ever runs what they name.
hostile_repo() {
	local t="touch $PWD/PWNED"
	git config core.pager "$t-pager"
	git config core.fsmonitor "$PWD/hooks/fsmonitor"
	git config core.hooksPath "$PWD/hooks"
	git config core.editor "$t-editor"
	git config core.askPass "$t-askpass"
	git config core.sshCommand "$t-ssh"
	git config diff.external "$t-extdiff"
	git config filter.evil.clean "$t-clean; cat"
	git config filter.evil.smudge "$t-smudge; cat"
	git config filter.evil.process "$t-process"
	git config filter.evil.required true
	git config diff.conv.textconv "$t-textconv; cat"
	git config diff.conv.command "$t-diffcommand"
	git config gpg.program "$t-gpg"
	git config log.showSignature true
	git config commit.gpgSign true
	git config credential.helper "!$t-credential"
	git config pager.log "$t-pagerlog"
	git config include.path "$PWD/.included"
	git config includeIf.gitdir:/.path "$PWD/.included-if"
	printf '[filter "inc"]\n\tclean = %s-inc-clean; cat\n[filter.dotted]\n\tclean = %s-dotted; cat\n' "$t" "$t" >.included
	printf '[filter "a=b"]\n\tclean = %s-equals; cat\n' "$t" >.included-if
	mkdir -p hooks
	for h in fsmonitor pre-commit commit-msg post-commit post-index-change reference-transaction; do
		printf '#!/bin/sh\ntouch %s/PWNED-hook-%s\n' "$PWD" "$h" >"hooks/$h"
		chmod 755 "hooks/$h"
	done
	printf 'notes.md filter=evil diff=conv\nsrc/main.c filter=inc\nsrc/sub/deep.txt filter=dotted\nuntracked.txt filter=a=b\n' >.git/info/attributes
	# files git must hash again (stat information changed), so that filters would run
	touch -d '2001-01-01' notes.md src/main.c src/sub/deep.txt
	printf 'changed\n' >>src/main.c
	printf 'changed\n' >>src/sub/deep.txt
}

# git_through LEVEL-POLICY APPROVE: the reading commands, and add and commit,
# with hostile variables in the caller's environment; nothing may be run.
git_through() {
	local pol=$1 approve=$2 c
	local -a cmds=("status --porcelain" "diff" "diff --stat" "log -p" "blame notes.md")
	for c in "${cmds[@]}"; do
		read -r -a argv <<<"$c"
		GIT_EXTERNAL_DIFF="touch $PWD/PWNED-env-extdiff" GIT_PAGER="touch $PWD/PWNED-env-pager" \
			GIT_CONFIG_PARAMETERS="'core.pager'='touch $PWD/PWNED-env-params'" \
			GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0="touch $PWD/PWNED-env-count" \
			GIT_SSH_COMMAND="touch $PWD/PWNED-env-ssh" GIT_EDITOR="touch $PWD/PWNED-env-editor" \
			GIT_DIR=/nonexistent GIT_EXEC_PATH=/nonexistent \
			traced "$BATS_TEST_TMPDIR/trace-${argv[0]}" ai-exec --policy "$pol" $approve --run git "${argv[@]}" \
			>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" ||
			{ echo "git $c failed: $(cat "$BATS_TEST_TMPDIR/err")"; return 1; }
		if [ -n "$(execs "$BATS_TEST_TMPDIR/trace-${argv[0]}" | grep -v -x /usr/bin/git)" ]; then
			echo "git $c ran: $(execs "$BATS_TEST_TMPDIR/trace-${argv[0]}")"
			return 1
		fi
	done
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com \
		traced "$BATS_TEST_TMPDIR/trace-commit" ai-exec --policy "$pol" --approve L1 \
		--run git add notes.md >/dev/null 2>"$BATS_TEST_TMPDIR/err" || { cat "$BATS_TEST_TMPDIR/err"; return 1; }
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com \
		traced "$BATS_TEST_TMPDIR/trace-commit2" ai-exec --policy "$pol" --approve L1 \
		--run git commit -m hostile >/dev/null 2>"$BATS_TEST_TMPDIR/err" || { cat "$BATS_TEST_TMPDIR/err"; return 1; }
	[ -z "$(execs "$BATS_TEST_TMPDIR/trace-commit2" | grep -v -x /usr/bin/git)" ] ||
		{ echo "commit ran: $(execs "$BATS_TEST_TMPDIR/trace-commit2")"; return 1; }
	[ "$(git log -1 --format=%s)" = hostile ]
}

@test "git at L0 (Landlock): the repository's pager, fsmonitor, external diff, filters, textconv, hooks, gpg and includes never run" {
	hostile_repo
	run git_through "$POLICY" ""
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$(ls -d PWNED* 2>/dev/null)" ] || { ls -d PWNED*; false; }
}

@test "git not confined (L1): the overrides alone keep every program the configuration names from running" {
	hostile_repo
	run git_through "$TPOL" "--approve L1"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$(ls -d PWNED* 2>/dev/null)" ] || { ls -d PWNED*; false; }
	# and git still works: the diff is there, without the textconv
	run ai-exec --policy "$TPOL" --approve L1 --run git diff
	[ "$status" -eq 0 ]
	[[ "$output" == *"+changed"* ]]
}

@test "git's environment: system and global configuration off, every program key overridden, the caller's GIT_* gone" {
	hostile_repo
	GIT_DIR=/nonexistent GIT_CONFIG_PARAMETERS="'core.pager'='x'" OPENAI_API_KEY=sk-x0123456789abcdef \
		traced trace ai-exec --policy "$POLICY" --run git status --porcelain >/dev/null
	env=$(grep -F 'execve("/usr/bin/git"' trace)
	for v in GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_ATTR_NOSYSTEM=1 GIT_OPTIONAL_LOCKS=0 \
		GIT_TERMINAL_PROMPT=0 GIT_PAGER=cat GIT_EDITOR=: "GIT_CEILING_DIRECTORIES=$BATS_TEST_TMPDIR" \
		PATH=/usr/bin "PWD=$PWD"; do
		[[ "$env" == *"\"$v\""* ]] || { echo "no $v in $env"; false; }
	done
	[[ "$env" == *'["git", "--no-pager", "status", "--porcelain"]'* ]]
	! grep -qE 'GIT_DIR|GIT_CONFIG_PARAMETERS|OPENAI_API_KEY' <<<"$env"
	# the overrides, read back by git itself from that environment
	eval "$(grep -oE '"GIT_CONFIG_[A-Z_0-9]+=[^"]*"' <<<"$env" | sed 's/^"\(.*\)"$/export '"'"'\1'"'"'/')"
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config core.pager)" = cat ]
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config core.fsmonitor)" = false ]
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config core.hooksPath)" = /dev/null ]
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config filter.evil.clean)" = "" ]
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config filter.a=b.clean)" = "" ]
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config filter.inc.clean)" = "" ]
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config filter.dotted.clean)" = "" ]
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config diff.conv.textconv)" = "" ]
	[ "$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git config protocol.ext.allow)" = never ]
}

@test "git: a fetch through the ext:: transport is refused by git (protocol.ext.allow=never)" {
	git remote add evil "ext::sh -c touch% $PWD/PWNED-ext"
	run --separate-stderr ai-exec --policy "$POLICY" --approve L1 --run git fetch evil
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"transport 'ext' not allowed"* ]]
	[ ! -e PWNED-ext ]
}

@test "git: a configuration that moves the work tree out of the root is refused; a bare repository inside is not used" {
	git config core.worktree /
	run --separate-stderr ai-exec --policy "$POLICY" --run git status --porcelain
	[ "$status" -eq 77 ]
	[ "$stderr" = "ai-exec: git: the repository's configuration sets core.worktree: git would work on files outside the root (rule 'git': built in)" ]
	git config --unset core.worktree
	# an embedded bare repository whose configuration runs a program
	git init -q --bare src/bare
	git -C src/bare config core.fsmonitor "touch $PWD/PWNED-bare"
	RMORE='{"cwd":"src/bare"}' rcall 1 git status >"$IN"
	run ai-exec --serve --policy "$POLICY" <"$IN"
	jq -e '.ok == false and .exitCode == 128 and (.stderrTail | contains("bare repository"))' <<<"$output"
	[ ! -e PWNED-bare ]
}

@test "git: no repository above the root is used (GIT_CEILING_DIRECTORIES)" {
	mkdir inner
	run --separate-stderr ai-exec --policy "$POLICY" --root inner --run git status --porcelain
	[ "$status" -eq 128 ]
	[[ "$stderr" == "fatal: not a git repository"* ]]
}

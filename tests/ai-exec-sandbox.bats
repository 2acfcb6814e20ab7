#!/usr/bin/env bats
# ai-exec --policy: the sandbox every program runs in, attacked class by
# class.  Outside the root lies a secret, and the configuration file holds a
# key; each test runs programs confined (the default) and shows that
# nothing outside the root is read, nothing outside the allowed places is
# written, and no limit can be passed.  Most use a policy whose rules are
# lax on purpose (sh, python3, grep -R, find -L, rg -L): the sandbox alone
# must hold.  Last, the refusals when bubblewrap cannot be used.

bats_require_minimum_version 1.5.0
load helpers/env
load helpers/exec

SECRET=TOPSECRET-7c1d5e
KEY=correct-horse-battery-staple-51

setup() {
	clean_env
	run_fixtures "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
	IN=$BATS_TEST_TMPDIR/in
	# a secret outside the root, and links to it and to /etc from inside
	mkdir -p "$BATS_TEST_TMPDIR/elsewhere" docs empty
	printf '%s\n' "$SECRET" >"$BATS_TEST_TMPDIR/elsewhere/secret"
	ln -s ../../elsewhere docs/shared
	ln -s /etc docs/etc
	# the configuration, with a key of no known shape
	printf '{"openai_api_key": "%s"}\n' "$KEY" >"$HOME/.aicli.json"
	chmod 600 "$HOME/.aicli.json"
	# lax rules: only the sandbox stands between these and the secret
	LAX=$BATS_TEST_TMPDIR/lax-policy.json
	cat >"$LAX" <<'JSON'
{
  "aicli_policy": 1,
  "programs": {
    "sh": { "level": "L1", "options": ["-c TEXT"] },
    "sh0": { "path": "/bin/sh", "level": "L0", "options": ["-c TEXT"] },
    "pynet": { "path": "/usr/bin/python3", "level": "L1", "network": true, "options": ["-c TEXT"] },
    "python3": { "level": "L1", "options": ["-c TEXT"] },
    "diff": { "level": "L0", "ok_status": [0, 1], "options": ["-r", "-N"] },
    "grep": { "level": "L0", "ok_status": [0, 1], "options": ["-r", "-R", "-l"] },
    "rg": { "level": "L0", "ok_status": [0, 1], "options": ["-L", "--follow", "--hidden", "-uuu"] },
    "find": { "level": "L0", "groups": false, "options": ["-L", "-name TEXT", "-type TEXT"] },
    "cat": { "level": "L0" },
    "ls": { "level": "L0", "options": ["-a", "-l", "-d", "-1"] },
    "yes": { "level": "L0" }
  }
}
JSON
	chmod 644 "$LAX"
}

# no_secret TEXT: neither the secret outside the root nor the key is in TEXT.
no_secret() {
	[[ "$1" != *"$SECRET"* && "$1" != *"$KEY"* && "$1" != *7c1d5e* ]] ||
		{ echo "leaked: $1"; return 1; }
}

# ---- reading outside the root ----

@test "a symbolic link out of the root: diff -r, grep -R, rg -L and find -L see nothing behind it" {
	run ai-exec --policy "$LAX" --run diff -r -N empty docs
	no_secret "$output"
	# /etc holds a few harmless files
	! grep -qE 'docs/etc/(shadow|gshadow|sudoers|ssh|machine-id)( |$)' <<<"$output"
	run ai-exec --policy "$LAX" --run grep -R TOPSECRET .
	no_secret "$output"
	[[ "$output" != *":TOPSECRET"* ]]
	run ai-exec --policy "$LAX" --run grep -R -l root docs/etc
	[[ "$output" != *shadow* && "$output" != *sudoers* ]]
	command -v rg >/dev/null && {
		run ai-exec --policy "$LAX" --run rg -L --hidden TOPSECRET
		no_secret "$output"
	}
	run --separate-stderr ai-exec --policy "$LAX" --run find -L . -name secret
	[ -z "$output" ]
	# what the links lead to inside: nothing, and an /etc of a few harmless files
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --run sh -c 'cat docs/shared/secret; ls docs/etc'
	no_secret "$output$stderr"
	[[ "$stderr" == *"docs/shared/secret: No such file or directory"* ]]
	for f in shadow gshadow sudoers ssh ssl hostname machine-id; do
		! grep -qx "$f" <<<"$output" || { echo "/etc/$f is there"; false; }
	done
	grep -qx passwd <<<"$output"
}

@test "the file system holds the root and the system's directories only: no home, no /sys, no host /tmp, /proc of its own" {
	marker=$(mktemp /tmp/aicli-host-XXXXXX)
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --run sh -c '
		echo top: $(ls /); echo tmp: $(ls /tmp); echo "procs: $(ls /proc | grep -c "^[0-9]")"
		echo "home: $HOME $(ls -A "$HOME" | wc -l)"; ls /sys /root /home'
	rm -f "$marker"
	no_secret "$output"
	[[ "$output" != *aicli-host-* ]]
	# each line found by its name, whatever comes around it
	top=$(grep '^top: ' <<<"$output")
	[[ "$top" == "top: bin dev etc lib "*"proc run sbin tmp usr" ]]
	[[ "$top" != *home* && "$top" != *root* && "$top" != *var* && "$top" != *sys* ]]
	# /tmp holds only the way to the root
	[ "$(grep '^tmp: ' <<<"$output")" = "tmp: $(echo "$BATS_TEST_TMPDIR" | cut -d/ -f3)" ]
	# a handful of processes: the helper, the shell and its ls
	procs=$(sed -n 's/^procs: //p' <<<"$output")
	[ -n "$procs" ] || { echo "OUT: $output"; echo "ERR: $stderr"; false; }
	[ "$procs" -le 8 ]
	[ "$(grep '^home: ' <<<"$output")" = "home: /tmp 1" ]
	[[ "$stderr" == *"/sys"*"No such file or directory"* ]]
	[[ "$stderr" == *"/root"*"No such file or directory"* ]]
}

@test "a configuration file under the root is empty inside the sandbox; the home's keys too; results carry no key" {
	# run from the home directory: the root is the home, and holds the configuration
	cd "$HOME"
	mkdir -p .ssh .config/aicli project
	printf 'PRIVATE KEY %s\n' "$SECRET" >.ssh/id_ed25519
	printf '{"brave_api_key": "%s"}\n' "$KEY" >.config/aicli/config.json
	printf 'notes %s\n' "$KEY" >project/notes.txt
	cp "$LAX" lax.json
	run --separate-stderr ai-exec --policy lax.json --run cat .aicli.json
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run --separate-stderr ai-exec --policy lax.json --approve L1 --run sh -c \
		'cat .ssh/id_ed25519 .config/aicli/config.json; ls -a .ssh; cp .aicli.json project/copy; cat project/copy'
	no_secret "$output"
	[ ! -s project/copy ]
	# the same under AICLI_CONFIG, anywhere under the root
	printf '{"openai_api_key": "%s"}\n' "$KEY" >project/cfg.json
	chmod 600 project/cfg.json
	AICLI_CONFIG=$PWD/project/cfg.json run ai-exec --policy lax.json --run cat project/cfg.json
	[ -z "$output" ]
	# a file that holds the key anyway: a tool_result shows it redacted, whatever its shape
	rcall r1 cat project/notes.txt >"$IN"
	run ai-exec --serve --policy lax.json <"$IN"
	jq -e '.ok and .stdoutTail == "notes [REDACTED]\n"' <<<"$output"
	no_secret "$output"
	# the key given in the environment only is known too
	rm .aicli.json
	printf 'env %s-from-env\n' "$KEY" >project/env.txt
	OPENAI_API_KEY="$KEY-from-env" run ai-exec --policy lax.json --json --run cat project/env.txt
	jq -e '.stdoutTail == "env [REDACTED]\n"' <<<"$output"
	# and the execute tool: a listed file that holds it
	call e1 'cat project/notes.txt' >"$IN"
	call e2 'cat project/notes.txt' '{"size": 4, "start": 6}' >>"$IN"
	call e3 'cat project/notes.txt | nl' '{"size": 9, "start": 13}' >>"$IN"
	run ai-exec --serve --file project/notes.txt <"$IN"
	no_secret "$output"
	# a page that cuts a secret shows none of it; offsets and sizes are the output's
	jq -s -e '.[0].stdout_text == "notes [REDACTED]\n" and .[0].total_bytes == 38 and
		.[1].stdout_text == "[REDACTED]" and .[1].next_start == 10 and
		.[2].stdout_text == "[REDACTED]" and .[2].total_bytes == 45 and .[2].next_start == 22' <<<"$output"
	# on the command line, the file is the product: printed as it is
	run ai-exec --file project/notes.txt 'cat project/notes.txt'
	[ "$output" = "notes $KEY" ]
	# the suite's own files under the root: the policy and the audit log hidden, ai-exec
	# itself read-only (a program at L1 cannot change the maker of its sandbox)
	mkdir -p tools
	cp "$(command -v ai-exec)" tools/ai-exec
	run --separate-stderr tools/ai-exec --policy lax.json --audit audit.log --approve L1 --run sh -c \
		'wc -c <lax.json; wc -c <audit.log; echo x >>tools/ai-exec || echo refused'
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = 0 ]
	[ "${lines[2]}" = refused ]
	cmp tools/ai-exec "$(command -v ai-exec)"
}

@test "a .git that is a symbolic link, or a gitdir file, leading out of the root is refused; git there reads nothing outside" {
	git init -q "$BATS_TEST_TMPDIR/elsewhere/repo"
	printf '%s\n' "$SECRET" >"$BATS_TEST_TMPDIR/elsewhere/repo/file"
	git -C "$BATS_TEST_TMPDIR/elsewhere/repo" -c user.name=t -c user.email=t@e add file
	git -C "$BATS_TEST_TMPDIR/elsewhere/repo" -c user.name=t -c user.email=t@e commit -qm x
	mkdir linked gitfile
	ln -s "$BATS_TEST_TMPDIR/elsewhere/repo/.git" linked/.git
	printf 'gitdir: %s/elsewhere/repo/.git\n' "$BATS_TEST_TMPDIR" >gitfile/.git
	for d in linked gitfile; do
		RMORE="{\"cwd\":\"$d\"}" rcall "$d" git show HEAD:file >"$IN"
		run ai-exec --serve --policy "$POLICY" <"$IN"
		no_secret "$output"
		jq -e '.ok == false and .error_kind == "policy" and (.error | contains("outside the root: git would read another repository"))' <<<"$output"
	done
	run --separate-stderr ai-exec --policy "$POLICY" --run git -C x status
	[ "$status" -eq 77 ]
	# the sandbox alone: git cannot reach it either
	run ai-exec --policy "$LAX" --approve L1 --run sh -c 'cd linked && git show HEAD:file 2>&1; cd ../gitfile && git log 2>&1'
	no_secret "$output"
	[[ "$output" == *"not a git repository"* ]]
}

@test "a repository configuration with a byte-order mark is read as git reads it: core.worktree and drivers are caught" {
	printf '\357\273\277[core] worktree = %s/elsewhere\n' "$BATS_TEST_TMPDIR" >.git/config.new
	cat .git/config >>.git/config.new
	mv .git/config.new .git/config
	run --separate-stderr ai-exec --policy "$POLICY" --run git diff
	[ "$status" -eq 77 ]
	[[ "$stderr" == *"sets core.worktree"* ]]
	no_secret "$output"
	# a filter after a BOM, with CRLF line ends, in an included file
	git config --unset core.worktree || sed -i '1d' .git/config
	printf '\357\273\277[filter "x"]\r\n\tclean = touch %s/PWNED-bom; cat\r\n' "$PWD" >.git/extra
	printf '[include]\r\n\tpath = extra\r\n' >>.git/config
	echo 'notes.md filter=x' >.git/info/attributes
	printf 'changed\n' >>notes.md
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e \
		run ai-exec --policy "$POLICY" --approve L1 --run git add notes.md
	[ "$status" -eq 0 ]
	[ ! -e PWNED-bom ]
}

@test "configuration keys that name files: blame.ignoreRevsFile, orderFile, excludesFile, mailmap, template never read the key" {
	git config diff.orderFile "$HOME/.aicli.json"
	git config core.excludesFile "$HOME/.aicli.json"
	git config core.attributesFile "$HOME/.aicli.json"
	git config mailmap.file "$HOME/.aicli.json"
	git config commit.template "$HOME/.aicli.json"
	git config http.cookieFile "$HOME/.aicli.json"
	git config 'http.https://example.com/.cookieFile' "$HOME/.aicli.json"
	git config remote.origin.url "$BATS_TEST_TMPDIR/elsewhere"
	git config remote.origin.uploadpack "touch $PWD/PWNED-uploadpack"
	for c in "blame notes.md" "diff" "status --porcelain --ignored" "log -p" "shortlog -s"; do
		read -r -a argv <<<"$c"
		run ai-exec --policy "$POLICY" --run git "${argv[@]}"
		no_secret "$output"
		[ "$status" -eq 0 ] || { echo "git $c: $output"; false; }
	done
	# git takes the first upload program it is given, so it cannot be overridden: refused
	run --separate-stderr ai-exec --policy "$POLICY" --approve L1 --run git fetch origin
	[ "$status" -eq 77 ]
	[ "$stderr" = "ai-exec: git: the repository's configuration sets remote.origin.uploadpack: git would run the program it names, and takes the first it is given (rule 'git': built in)" ]
	[ ! -e PWNED-uploadpack ]
	git config --unset remote.origin.uploadpack
	# git blame cannot be told to forget its ignore-revisions file: one outside the root is refused
	git config blame.ignoreRevsFile "$HOME/.aicli.json"
	run --separate-stderr ai-exec --policy "$POLICY" --run git blame notes.md
	[ "$status" -eq 77 ]
	[ "$stderr" = "ai-exec: git: blame.ignoreRevsFile '$HOME/.aicli.json' names a file outside the root: git would read it (rule 'git': built in)" ]
	git config blame.ignoreRevsFile "~/.aicli.json"
	run --separate-stderr ai-exec --policy "$POLICY" --run git blame notes.md
	[ "$status" -eq 77 ]
	# inside the root it is the repository's own business
	git rev-parse HEAD >revs.txt
	git config blame.ignoreRevsFile revs.txt
	run ai-exec --policy "$POLICY" --run git blame notes.md
	[ "$status" -eq 0 ]
}

# ---- writing ----

@test "writing at L0: nothing, anywhere; at L1 the root and the private /tmp only" {
	before=$(find . -printf '%p %s %T@\n' | sort)
	run --separate-stderr ai-exec --policy "$LAX" --run sh0 -c \
		'echo x >made; echo x >/tmp/made; echo x >/dev/shm/made; echo ok'
	[ "$output" = ok ]
	[ "$(find . -printf '%p %s %T@\n' | sort)" = "$before" ]
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --run sh -c '
		for f in made /tmp/made /made /usr/made /etc/made /dev/shm/made /proc/made /run/aicli/made "$HOME/made"; do
			if echo x >"$f" 2>/dev/null; then echo "wrote $f"; fi
		done'
	[ "$output" = "$(printf 'wrote made\nwrote /tmp/made\nwrote /tmp/made')" ]
	[ -e made ]
	[ ! -e /made ] && [ ! -e /usr/made ] && [ ! -e /etc/made ] && [ ! -e "$HOME/made" ]
	[ ! -e /tmp/made ] # the private /tmp is gone with the sandbox
}

@test "mounts, namespaces, device nodes and ptrace: all refused inside" {
	mknod mem c 1 1
	mknod zero c 1 5
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --run python3 -c '
import ctypes, os, errno
libc = ctypes.CDLL(None, use_errno=True)
def tried(name, rc):
    print(name, "refused" if rc == -1 else "DONE", errno.errorcode.get(ctypes.get_errno(), ""))
tried("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
tried("unshare", libc.unshare(0x10000000))   # CLONE_NEWUSER
tried("ptrace", libc.ptrace(0, 0, 0, 0))      # PTRACE_TRACEME
for dev in ("mem", "zero"):
    try:
        open(dev, "rb").read(1); print(dev, "DONE")
    except OSError as e:
        print(dev, "refused", errno.errorcode[e.errno])
'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'mount refused EPERM\nunshare refused EPERM\nptrace refused EPERM\nmem refused EACCES\nzero refused EACCES')" ]
}

@test "descriptors, terminal and signals: only the three streams are inherited, no terminal to push input into" {
	exec 7<"$BATS_TEST_TMPDIR/elsewhere/secret"
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --run python3 -c '
import os, fcntl, termios
print(sorted(int(f) for f in os.listdir("/proc/self/fd")))
try:
    os.open("/dev/tty", os.O_RDONLY); print("tty DONE")
except OSError as e:
    print("tty refused", e.strerror)
try:
    fcntl.ioctl(1, termios.TIOCSTI, b"x"); print("TIOCSTI DONE")
except OSError as e:
    print("TIOCSTI refused", e.strerror)
'
	exec 7<&-
	[ "${lines[0]}" = "[0, 1, 2, 3]" ] # 3: listdir's own
	[ "${lines[1]}" = "tty refused No such device or address" ]
	[ "${lines[2]}" = "TIOCSTI refused Operation not permitted" ]
	# on a real terminal too: nothing reaches its input
	on_tty --stdout out --stderr err --transcript tty -- ai-exec --policy "$LAX" --approve L1 --run python3 -c '
import fcntl, termios, os
for fd in range(0, 3):
    try: fcntl.ioctl(fd, termios.TIOCSTI, b"X")
    except OSError: pass
print("done")'
	[ "$(cat out)" = done ]
}

@test "the network: none without a rule that grants it (TCP, UDP, abstract UNIX sockets); with one, it is there" {
	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind("\0aicli-test-abstract"); s.listen()
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen()
print(t.getsockname()[1], flush=True)
sys.stdout.close()
time.sleep(60)' <&- >port 2>/dev/null &
	listener=$!
	for i in $(seq 50); do [ -s port ] && break; sleep 0.1; done
	probe="
import socket
for what, fam, kind, addr in (('tcp', socket.AF_INET, socket.SOCK_STREAM, ('127.0.0.1', $(cat port))),
                              ('udp', socket.AF_INET, socket.SOCK_DGRAM, ('127.0.0.1', 53)),
                              ('abstract', socket.AF_UNIX, socket.SOCK_STREAM, '\0aicli-test-abstract')):
    try:
        s = socket.socket(fam, kind); s.connect(addr); print(what, 'DONE')
    except OSError as e:
        print(what, 'refused', e.strerror)
"
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --run python3 -c "$probe"
	[ "$output" = "$(printf 'tcp refused Operation not permitted\nudp refused Operation not permitted\nabstract refused Operation not permitted')" ]
	# granted by the rule: the host's network (the loopback listener answers)
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --run pynet -c "$probe"
	kill "$listener" 2>/dev/null || true
	wait "$listener" 2>/dev/null || true
	[ "${lines[0]}" = "tcp DONE" ]
	# abstract sockets are the host's services (a display, a bus), not the network: Landlock
	# keeps them out even then, from its ABI 6
	abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')
	if [ "$abi" -ge 6 ]; then
		[ "${lines[2]}" = "abstract refused Operation not permitted" ]
	fi
}

@test "the sandbox dies with ai-exec: killed, it leaves nothing running, early or late" {
	# late: the program and what it started are running
	ai-exec --policy "$LAX" --approve L1 --run sh -c ': >ran; sleep 60751 & sleep 60752' >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 100); do [ -e ran ] && pgrep -f '^sleep 60752' >/dev/null && break; sleep 0.1; done
	pgrep -f '^sleep 6075[12]' >/dev/null
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	for i in $(seq 50); do pgrep -f 'sleep 6075[12]' >/dev/null || break; sleep 0.1; done
	! pgrep -f 'sleep 6075[12]'
	# early: killed while bubblewrap sets the sandbox up, the program never runs unwatched.
	# (bubblewrap's own child can be left waiting for its dead parent, which never lets
	# it run anything: a race of bubblewrap's --die-with-parent; swept here)
	for n in 1 2 3 4 5 6 7 8; do
		ai-exec --policy "$LAX" --approve L1 --run sh -c 'sleep 60753' >/dev/null 2>&1 &
		pid=$!
		# as soon as bubblewrap is there, or a little after
		for i in $(seq 200); do pgrep -f '^/usr/bin/bwrap .*sleep 60753' >/dev/null && break; sleep 0.01; done
		[ "$n" -gt 4 ] && sleep "0.00$n"
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null || true
	done
	sleep 1
	! pgrep -f '^sleep 60753'
	! pgrep -f 'ai-exec-confine .*sleep 60753'
	pkill -KILL -f '^/usr/bin/bwrap .*sleep 60753' || true
}

# ---- limits ----

@test "a fork bomb stops at --max-procs, a limit (3), with everything it started; as an unprivileged user too" {
	# as root, whom RLIMIT_NPROC does not hold, the bomb is bounded (2047 processes in all), so
	# that a failure here could not take the machine's processes
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --max-procs 30 --run sh -c \
		'b() { [ "$1" -gt 0 ] || exec sleep 60731; b $(($1 - 1)) & b $(($1 - 1)) & wait; }; b 10'
	[ "$status" -eq 3 ]
	[ "$stderr" = "${stderr%%ai-exec:*}ai-exec: sh: had more than 30 processes at a time (--max-procs): stopped it and all it started" ]
	sleep 0.3
	! pgrep -f 'sleep 60731'
	# one that starts them one after the other, too
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --max-procs 30 --run sh -c \
		'for i in $(seq 100); do sleep 60733 & done; wait'
	[ "$status" -eq 3 ]
	# an ordinary program under the limit is not disturbed
	run ai-exec --policy "$LAX" --approve L1 --max-procs 30 --run sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 0.1 & done; wait; echo fine'
	[ "$output" = fine ]
	# a user who is not root: an unbounded bomb, which the kernel holds too (RLIMIT_NPROC)
	share=$(mktemp -d /tmp/aicli-user-XXXXXX)
	chmod 755 "$share"
	cp "$LAX" "$share/lax.json"
	chmod 644 "$share/lax.json"
	cd "$share"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		ai-exec --policy lax.json --approve L1 --max-procs 30 --json --run sh -c 'b() { b | b & }; b; sleep 60732'
	cd - >/dev/null
	rm -rf "$share"
	jq -e '.ok == false and .error_kind == "limit" and (.error | contains("--max-procs"))' <<<"${lines[0]}"
	sleep 0.3
	! pgrep -f 'sleep 6073[23]'
}

@test "memory: a grep regular-expression bomb stops at --max-memory, a limit (3)" {
	printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n' >xs.txt
	run --separate-stderr ai-exec --policy "$POLICY" --max-memory 128 --run grep -E '(x{1,1000}){1,1000}' xs.txt
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"ai-exec: grep: reached its memory limit of 128 MiB (--max-memory) and failed (exit status 2)" ]]
	rcall m1 grep -E '(x{1,1000}){1,1000}' xs.txt >"$IN"
	run ai-exec --serve --policy "$POLICY" --max-memory 128 <"$IN"
	jq -e '.ok == false and .error_kind == "limit" and .exitCode == 2' <<<"$output"
}

@test "CPU time stops at --max-cpu, output at --max-output (standard error too): limits (3)" {
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --max-cpu 1 --run sh -c 'while :; do :; done'
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"ai-exec: sh: used more than 1 s of CPU time (--max-cpu): stopped it" ]]
	run --separate-stderr ai-exec --policy "$LAX" --max-output 100000 --run yes
	[ "$status" -eq 3 ]
	[ "${#output}" -le 100000 ]
	run --separate-stderr ai-exec --policy "$LAX" --approve L1 --max-output 100000 --run sh -c 'yes >&2'
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"ai-exec: sh: wrote more than 100000 bytes on its standard output and error (--max-output): stopped it" ]]
}

# ---- when bubblewrap cannot be used ----

@test "no bubblewrap: ai-exec refuses before anything runs (78), says how to install it or --unconfined" {
	command -v unshare >/dev/null || skip "unshare is needed"
	# a system without it: /usr/bin hidden in a mount namespace of this test's own
	run --separate-stderr unshare --mount --propagation private sh -c \
		"mount -t tmpfs -o mode=755 none /usr/bin && exec $(command -v ai-exec) --policy '$POLICY' --run ls"
	[ "$status" -eq 78 ]
	[[ "$stderr" == "ai-exec: the run tool runs programs in bubblewrap, which is not installed (/usr/bin/bwrap: No such file or directory): install it (Debian, Ubuntu: apt-get install bubblewrap;"*"or give --unconfined to run programs with the argument checks alone" ]]
}

@test "user namespaces off: 78 at start for a user who needs them; a bubblewrap that cannot start the sandbox: 78 with its words" {
	share=$(mktemp -d /tmp/aicli-user-XXXXXX)
	chmod 755 "$share"
	cp "$POLICY" "$share/policy.json"
	run --separate-stderr "$BATS_TEST_DIRNAME/helpers/userns-off" 65534 sh -c "cd $share && exec ai-exec --policy policy.json --run ls"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-exec: bubblewrap needs user namespaces, and this system allows none (user.max_user_namespaces = 0): run 'sysctl -w user.max_user_namespaces=15000' as root, or give --unconfined" ]
	# with --unconfined it runs, with the checks alone, and says so
	run --separate-stderr "$BATS_TEST_DIRNAME/helpers/userns-off" 65534 sh -c "cd $share && exec ai-exec --policy policy.json --unconfined --run ls"
	[ "$status" -eq 0 ]
	[ "$output" = policy.json ]
	[[ "$stderr" == "ai-exec: warning: --unconfined: programs run without the sandbox"* ]]
	rm -rf "$share"
	# a bubblewrap that starts but cannot make the sandbox (here: one that fails at once)
	run --separate-stderr unshare --mount --propagation private sh -c \
		"mount --bind /usr/bin/false /usr/bin/bwrap && exec $(command -v ai-exec) --policy '$POLICY' --run ls"
	[ "$status" -eq 78 ]
	[[ "$stderr" == "ai-exec: ls: bubblewrap could not start the sandbox (no message, exit status 1): user namespaces may be off or restricted"* ]]
	[ -z "$output" ]
}

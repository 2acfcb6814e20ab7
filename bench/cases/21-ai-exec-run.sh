# ai-exec --run: one program through the policy (loading it and resolving its
# programs, the decision, the scan of the repository's configuration, the
# scrubbed environment, the bubblewrap sandbox, the helper inside it with its
# limits, Landlock, filter and supervision, the capture) against the same
# program run directly; then without the sandbox (--unconfined), and
# bubblewrap alone with a minimal file system, to show what each part costs
# on this machine.  git status in a small repository made here.

mkdir -p "$TMP/repo/src"
for i in $(seq 1 40); do printf 'line %d\n' "$i" >"$TMP/repo/src/f$i.txt"; done
git -C "$TMP/repo" init -q
git -C "$TMP/repo" -c user.name=b -c user.email=b@example.com add -A
git -C "$TMP/repo" -c user.name=b -c user.email=b@example.com commit -q -m bench
printf 'changed\n' >>"$TMP/repo/src/f1.txt"
printf 'new\n' >"$TMP/repo/new.txt"
cp "$ROOT/ai-exec/policy.json" "$TMP/policy.json"
chmod 644 "$TMP/policy.json"

bench_case "ai-exec --run git status" "<= 5 ms more than git" -- \
	ai-exec --policy "$TMP/policy.json" --root "$TMP/repo" --run git status -- \
	"git status" git -C "$TMP/repo" status

bench_case "ai-exec --run ls" "<= 5 ms more than ls" -- \
	ai-exec --policy "$TMP/policy.json" --root "$TMP/repo" --run ls src -- \
	"ls" ls "$TMP/repo/src"

bench_case "ai-exec --unconfined --run git status" "(no sandbox)" -- \
	ai-exec --policy "$TMP/policy.json" --root "$TMP/repo" --unconfined --run git status -- \
	"git status" git -C "$TMP/repo" status

bench_case "ai-exec --unconfined --run ls" "(no sandbox)" -- \
	ai-exec --policy "$TMP/policy.json" --root "$TMP/repo" --unconfined --run ls src -- \
	"ls" ls "$TMP/repo/src"

bench_case "bwrap ls (its floor)" "(bubblewrap alone)" -- \
	bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib \
	--symlink usr/lib64 /lib64 --proc /proc --dev /dev --unshare-all --die-with-parent \
	--new-session ls /usr -- \
	"ls" ls /usr

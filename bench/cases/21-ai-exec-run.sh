# ai-exec --run: one program through the policy (loading it and resolving its
# programs, the decision, the scan of the repository's configuration, the
# scrubbed environment, Landlock, the process group and the capture) against
# the same program run directly.  git status in a small repository made here.

mkdir -p "$TMP/repo/src"
for i in $(seq 1 40); do printf 'line %d\n' "$i" >"$TMP/repo/src/f$i.txt"; done
git -C "$TMP/repo" init -q
git -C "$TMP/repo" -c user.name=b -c user.email=b@example.com add -A
git -C "$TMP/repo" -c user.name=b -c user.email=b@example.com commit -q -m bench
printf 'changed\n' >>"$TMP/repo/src/f1.txt"
printf 'new\n' >"$TMP/repo/new.txt"
cp "$ROOT/ai-exec/policy.json" "$TMP/policy.json"
chmod 644 "$TMP/policy.json"

bench_case "ai-exec --run git status" "within 2 ms of git" -- \
	ai-exec --policy "$TMP/policy.json" --root "$TMP/repo" --run git status -- \
	"git status" git -C "$TMP/repo" status

bench_case "ai-exec --run ls" "within 2 ms of ls" -- \
	ai-exec --policy "$TMP/policy.json" --root "$TMP/repo" --run ls src -- \
	"ls" ls "$TMP/repo/src"

# ai-exec cases: 10 MB pipelines against the same coreutils pipeline (run by
# sh, with LC_ALL=C: ai-exec compares bytes as the C locale does), one page
# of a 10 MB file against one page of a 10 kB file (paging seeks: the time
# must not depend on the size), start-up against cat (a lone cat runs
# without a child; the next case shows the start-up of one that forks), and
# the built-ins on 10 MB and 100 MB files next to GNU's: head and tail read
# only what they need, grep -c and sort read it all.

awk 'BEGIN { srand(42); for (i = 0; i < 400000; i++)
	printf "%08d %s lorem ipsum dolor %d\n", int(rand() * 1e8), (i % 7 ? "alpha" : "beta"), i }' |
	head -c 10000000 >"$TMP/big.txt"
head -c 10000 "$TMP/big.txt" >"$TMP/small.txt"
printf 'hello\n' >"$TMP/tiny.txt"

bench_case "ai-exec: cat 10MB, sort, head" "<= 1.5x coreutils" -- \
	ai-exec --file "$TMP/big.txt" "cat $TMP/big.txt | sort | head -n 10" -- \
	"sh: same pipeline" env LC_ALL=C sh -c "cat $TMP/big.txt | sort | head -n 10"

bench_case "ai-exec: cat 10MB, grep, wc -l" "<= 1.5x coreutils" -- \
	ai-exec --file "$TMP/big.txt" "cat $TMP/big.txt | grep beta | wc -l" -- \
	"sh: same pipeline" env LC_ALL=C sh -c "cat $TMP/big.txt | grep beta | wc -l"

bench_case "ai-exec: one page of a 10 MB file" "same as 10 kB" -- \
	ai-exec --file "$TMP/big.txt" --start 5000000 "cat $TMP/big.txt" -- \
	"ai-exec: page of 10 kB" ai-exec --file "$TMP/small.txt" --start 5000 "cat $TMP/small.txt"

bench_case "ai-exec: start-up, cat a tiny file" "within 2 ms of cat" -- \
	ai-exec --file "$TMP/tiny.txt" "cat $TMP/tiny.txt" -- \
	"cat" cat "$TMP/tiny.txt"

# The same through the sandboxed child (any command but a lone cat forks one).
bench_case "ai-exec: start-up with the child" "within 2 ms of cat" -- \
	ai-exec --file "$TMP/tiny.txt" "cat $TMP/tiny.txt | head -n 1" -- \
	"cat" cat "$TMP/tiny.txt"

# The built-ins on large files.  The limits are raised to let them run; GNU
# grep writes into a file, since with its output on /dev/null it stops at
# the first match.
awk 'BEGIN { srand(7); for (i = 0; i < 4000000; i++)
	printf "%08d %s lorem ipsum dolor %d\n", int(rand() * 1e8), (i % 7 ? "alpha" : "beta"), i }' |
	head -c 100000000 >"$TMP/big100.txt"
X="ai-exec --max-file 200000000 --max-read 300000000 --max-output 300000000"
X="$X --max-memory 2048 --max-cpu 120 --timeout 120 --file $TMP/big.txt --file $TMP/big100.txt"

# grep_case NAME ARGS: grep -c ARGS over $f (ARGS hold no quote and no glob match)
grep_case() {
	bench_case "ai-exec: grep -c $1, ${mb} MB" "<= 1.5x GNU" -- \
		sh -c "$X \"grep -c $2 $TMP/$f\" >$TMP/out" -- \
		"grep" env LC_ALL=C sh -c "grep -c $2 $TMP/$f >$TMP/out"
}

for f in big.txt big100.txt; do
	mb=$(($(wc -c <"$TMP/$f") / 1000000))
	# shellcheck disable=SC2086
	bench_case "ai-exec: head -n 10, ${mb} MB file" "<= 2x GNU" -- \
		$X "head -n 10 $TMP/$f" -- \
		"head" head -n 10 "$TMP/$f"
	# shellcheck disable=SC2086
	bench_case "ai-exec: tail -n 10, ${mb} MB file" "<= 2x GNU" -- \
		$X "tail -n 10 $TMP/$f" -- \
		"tail" tail -n 10 "$TMP/$f"
	# shellcheck disable=SC2086
	bench_case "ai-exec: cat, head -n 10, ${mb} MB" "<= 2x GNU" -- \
		$X "cat $TMP/$f | head -n 10" -- \
		"sh: same pipeline" sh -c "cat $TMP/$f | head -n 10"
	grep_case "word" "beta"
	grep_case "-i word" "-i BETA"
	grep_case "-E regex" "-E 9+.beta"
	grep_case "-v" "-v alpha"
done

# sort reads everything and sorts in memory (its output goes to tail -n 1):
# fewer runs of the 100 MB cases
runs=$RUNS
for f in big.txt big100.txt; do
	mb=$(($(wc -c <"$TMP/$f") / 1000000))
	[ "$f" = big100.txt ] && RUNS=3
	# shellcheck disable=SC2086
	bench_case "ai-exec: sort, ${mb} MB" "<= 1.5x GNU" -- \
		$X "sort $TMP/$f | tail -n 1" -- \
		"sh: LC_ALL=C sort" env LC_ALL=C sh -c "sort $TMP/$f | tail -n 1"
	# shellcheck disable=SC2086
	bench_case "ai-exec: sort -n, ${mb} MB" "<= 1.5x GNU" -- \
		$X "sort -n $TMP/$f | tail -n 1" -- \
		"sh: LC_ALL=C sort" env LC_ALL=C sh -c "sort -n $TMP/$f | tail -n 1"
	# shellcheck disable=SC2086
	bench_case "ai-exec: sort -k 2, ${mb} MB" "<= 1.5x GNU" -- \
		$X "sort -k 2 $TMP/$f | tail -n 1" -- \
		"sh: LC_ALL=C sort" env LC_ALL=C sh -c "sort -k 2 $TMP/$f | tail -n 1"
done
RUNS=$runs
rm -f "$TMP/big100.txt" "$TMP/out"

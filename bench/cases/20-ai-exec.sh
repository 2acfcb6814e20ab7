# ai-exec cases: 10 MB pipelines against the same coreutils pipeline (run by
# sh, with LC_ALL=C: ai-exec compares bytes as the C locale does), one page
# of a 10 MB file against one page of a 10 kB file (paging seeks: the time
# must not depend on the size), and start-up against cat (a lone cat runs
# without a child; the last case shows the start-up of one that forks).

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

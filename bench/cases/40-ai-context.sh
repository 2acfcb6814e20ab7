# ai-context: compacting transcripts without a model (--no-summarize), next
# to jq -c reading and printing the same file once.  Three sizes show how the
# time grows with the number of records; the transcripts are generated here.

# gen_transcript N FILE: N records of an agent conversation, about 250 bytes
# each on average: user and assistant messages, tool calls with multi-line
# results, search results and usage records, in turns of ten.
gen_transcript() {
	awk -v n="$1" 'BEGIN {
		print "{\"type\":\"message\",\"role\":\"system\",\"content\":\"You are a careful assistant.\"}"
		for (i = 1; i < n; i++) {
			t = int(i / 10); k = i % 10
			if (k == 0)
				printf "{\"type\":\"message\",\"role\":\"user\",\"content\":\"Question %d: what does step %d of the build print?\"}\n", t, t
			else if (k == 1 || k == 3)
				printf "{\"type\":\"tool_call\",\"id\":\"call_%d_%d\",\"name\":\"execute\",\"arguments\":{\"command\":\"cat build.log | tail -n %d\"}}\n", t, k, k + 5
			else if (k == 2 || k == 4)
				printf "{\"type\":\"tool_result\",\"id\":\"call_%d_%d\",\"name\":\"execute\",\"ok\":true,\"stdout_text\":\"cc -O2 -c main.c\\nmain.c:%d: warning: unused variable\\ncc -o app main.o\\nlinking done in %d ms\\n\",\"stderr_text\":\"\",\"exit_code\":0,\"total_bytes\":%d,\"next_start\":null,\"truncated\":false,\"cache_hit\":false}\n", t, k - 1, t % 900, k * 7, 4000 + t
			else if (k == 5 || k == 6)
				printf "{\"type\":\"search_result\",\"query\":\"unused variable warning\",\"rank\":%d,\"title\":\"GCC warning options\",\"url\":\"https://gcc.gnu.org/onlinedocs/%d\",\"snippet\":\"Warn whenever a local variable is unused aside from its declaration.\",\"provider\":\"brave\"}\n", k - 4, t
			else if (k == 7)
				printf "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"Step %d compiles main.c with one warning about an unused variable, then links the program.\"}\n", t
			else if (k == 8)
				printf "{\"type\":\"usage\",\"model\":\"gpt-4.1-mini\",\"input_tokens\":%d,\"cached_tokens\":0,\"output_tokens\":40,\"calls\":1,\"weighted_tokens\":%d}\n", 1000 + t, 1160 + t
			else
				printf "{\"type\":\"message\",\"role\":\"user\",\"content\":\"Thanks, noted for step %d.\"}\n", t
		}
	}' > "$2"
}

gen_transcript 10000 "$TMP/ctx-10k.ndjson"
gen_transcript 100000 "$TMP/ctx-100k.ndjson"
gen_transcript 1000000 "$TMP/ctx-1m.ndjson"

bench_case "ai-context 10k records" "<= jq -c" -- \
	-i "$TMP/ctx-10k.ndjson" "$ROOT/bin/ai-context" --no-summarize -- \
	"jq -c . (same file)" jq -c . "$TMP/ctx-10k.ndjson"

bench_case "ai-context 100k records" "<= jq -c; ~10x 10k" -- \
	-i "$TMP/ctx-100k.ndjson" "$ROOT/bin/ai-context" --no-summarize -- \
	"jq -c . (same file)" jq -c . "$TMP/ctx-100k.ndjson"

bench_case "ai-context 1M records" "<= jq -c; ~10x 100k" -- \
	-i "$TMP/ctx-1m.ndjson" "$ROOT/bin/ai-context" --no-summarize -- \
	"jq -c . (same file)" jq -c . "$TMP/ctx-1m.ndjson"

rm -f "$TMP"/ctx-*.ndjson

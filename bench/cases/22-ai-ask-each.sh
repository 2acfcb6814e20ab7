# ai-ask --each: many prompts in one process.  300 prompts at -P 16 against
# the mock limited to 1,200 requests a minute (about 15 s at that rate),
# next to xargs -P 16 running one ai-ask a prompt, with each one's 429s;
# the peak RSS of -P 32 over 1,000 prompts; and a re-run of the 300 with
# --cache, which makes no request.  One run each: they take seconds.

printf '{}\n' > "$TMP/each-config.json"
chmod 600 "$TMP/each-config.json"
export AICLI_CONFIG="$TMP/each-config.json" OPENAI_BASE_URL="$MOCK_URL/v1" \
	OPENAI_API_KEY="sk-bench-0123456789abcdef" AICLI_CACHE_DIR="$TMP/each-cache"
seq 300 > "$TMP/each-300"
seq 1000 > "$TMP/each-1000"

# each_limit RPM: echo answers, limited to RPM requests a minute (0: none)
each_limit() {
	curl -s -o /dev/null -d "{\"routes\":{\"POST /v1/responses\":[{\"echo\":true}]},\
\"repeat_last\":true,\"rate_limit\":$1}" "$MOCK_URL/__mock/script"
}
each_stat() { curl -s "$MOCK_URL/__mock/stats" | jq -r ".$1"; }
once() { "$BENCH/measure" -n 1 -w 0 "$@"; }

each_limit 1200
o=$(once sh -c "ai-ask --each -P 16 'say it' < $TMP/each-300 > /dev/null")
o429=$(each_stat rate_limited)
each_limit 1200
b=$(once sh -c "xargs -P 16 -I{} ai-ask -n -j '{} say it' < $TMP/each-300 > /dev/null 2>&1")
b429=$(each_stat rate_limited)
echo "--each -P 16: 300 at 1200/min, $o429 429s|$o|xargs -P 16 ai-ask, $b429 429s|$b|about 15 s, a few 429s" \
	>> "$TMP/rows"

each_limit 0
o=$(once sh -c "ai-ask --each -P 32 'say it' < $TMP/each-1000 > /dev/null")
b=$(once "$ROOT/bin/ai-ask" -n "say it")
echo "--each -P 32: 1,000 prompts|$o|one ai-ask, one prompt|$b|RSS < 64 MiB" >> "$TMP/rows"

each_limit 0
ai-ask --each -P 16 --cache 'say it' < "$TMP/each-300" > /dev/null
each_limit 0
o=$(once sh -c "ai-ask --each -P 16 --cache 'say it' < $TMP/each-300 > /dev/null")
oreq=$(each_stat requests)
each_limit 0
b=$(once sh -c "ai-ask --each -P 16 'say it' < $TMP/each-300 > /dev/null")
echo "--each --cache re-run: $oreq requests|$o|the same, no cache|$b|no request" >> "$TMP/rows"

unset AICLI_CONFIG OPENAI_BASE_URL OPENAI_API_KEY AICLI_CACHE_DIR

#!/usr/bin/env bats
# ai-ask --cache: a request made before is answered from the cache, making
# no request; entries are keyed by endpoint and body (never the key), age
# out by --cache-ttl, are written whole for concurrent readers, and an
# entry that is no answer, or an answer that failed, is never used.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	export AICLI_CACHE_DIR="$W/cache"
}

entries() { find "$AICLI_CACHE_DIR" -type f | sort; }

@test "a request made before is answered from the cache: no request, the same answer, usage says so" {
	run --separate-stderr ai-ask -n --cache -j "hello"
	[ "$status" -eq 0 ]
	first=$output
	[ "$(mock_count)" -eq 1 ]
	run --separate-stderr ai-ask -n --cache -j "hello"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 1 ]
	[ "$(jq -c 'select(.type == "message")' <<<"$output")" = "$(jq -c 'select(.type == "message")' <<<"$first")" ]
	[ "$(jq -c 'select(.type == "usage") | [.cache_hit, .calls, .weighted_tokens, .cost_usd, .input_tokens]' <<<"$output")" = \
		"[true,0,0,0,$(jq 'select(.type == "usage") | .input_tokens' <<<"$first")]" ]
	# text mode streams: its own entry, then its own hit
	run ai-ask -n --cache "hello"
	run ai-ask -n --cache "hello"
	[ "$output" = "pong" ]
	[ "$(mock_count)" -eq 2 ]
	[ "$(entries | wc -l)" -eq 2 ]
}

@test "another prompt, model or endpoint is another entry; the key is no part of it and never in it" {
	ai-ask -n --cache -j "hello" >/dev/null
	ai-ask -n --cache -j "hello again" >/dev/null
	ai-ask -n --cache -j -m gpt-4.1 "hello" >/dev/null
	[ "$(mock_count)" -eq 3 ]
	OPENAI_API_KEY=sk-another-key-0123456789 ai-ask -n --cache -j "hello" >/dev/null
	[ "$(mock_count)" -eq 3 ]
	! grep -rq "sk-" "$AICLI_CACHE_DIR"
	[ "$(stat -c %a "$AICLI_CACHE_DIR")" = 700 ]
	for f in $(entries); do [ "$(stat -c %a "$f")" = 600 ]; done
}

@test "--cache-ttl: an older entry is not used, and is replaced" {
	ai-ask -n --cache -j "hello" >/dev/null
	f=$(entries)
	# the entry says it was written a day ago
	{ head -n 1 "$f" | jq -c '.created -= 86400000'; tail -n +2 "$f"; } > "$W/old" && mv "$W/old" "$f"
	run ai-ask -n --cache --cache-ttl 3600 -j "hello"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	run ai-ask -n --cache --cache-ttl 3600 -j "hello"
	[ "$(mock_count)" -eq 2 ]
	[[ "$output" == *'"cache_hit":true'* ]]
}

@test "an entry that is no answer is a miss: the request is made and the entry replaced" {
	ai-ask -n --cache -j "hello" >/dev/null
	f=$(entries)
	printf '{"content_type":"application/json","created":%s}\n{"truncated' "$(date +%s000)" > "$f"
	run --separate-stderr ai-ask -n --cache -j "hello"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	[ "$(jq -r 'select(.type == "message") | .content' <<<"$output")" = pong ]
	echo garbage > "$f"
	run --separate-stderr ai-ask -n --cache -j "hello"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 3 ]
	run --separate-stderr ai-ask -n --cache -j "hello"
	[ "$(mock_count)" -eq 3 ]
}

@test "an answer that failed is not kept: the next run asks again" {
	mock_script '{"routes":{"POST /v1/responses":[{"status":500,"json":{"error":{"message":"boom"}}},{}]}}'
	run --separate-stderr ai-ask -n --cache --retries 0 -j "hello"
	[ "$status" -eq 69 ]
	[ -z "$(entries)" ]
	run --separate-stderr ai-ask -n --cache --retries 0 -j "hello"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	[ "$(entries | wc -l)" -eq 1 ]
}

@test "concurrent runs of one request: every one answered, one whole entry, no temporary file left" {
	seq 8 | xargs -P 8 -I{} sh -c 'ai-ask -n --cache -j hello > "$1/out.{}"' _ "$W"
	for i in $(seq 8); do
		[ "$(jq -r 'select(.type == "message") | .content' "$W/out.$i")" = pong ]
	done
	[ "$(find "$AICLI_CACHE_DIR" -type f | wc -l)" -eq 1 ]
	run ai-ask -n --cache -j hello
	[[ "$output" == *'"cache_hit":true'* ]]
}

@test "--each answers from the cache too; a re-run makes no request" {
	printf 'a\nb\nc\n' > "$W/in"
	ai-ask --each --cache < "$W/in" > "$W/out1"
	[ "$(mock_count)" -eq 3 ]
	ai-ask --each --cache < "$W/in" > "$W/out2"
	[ "$(mock_count)" -eq 3 ]
	[ "$(jq -c 'select(.type == "message")' "$W/out1")" = "$(jq -c 'select(.type == "message")' "$W/out2")" ]
	[ "$(tail -n 1 "$W/out2" | jq -c '[.calls, .weighted_tokens]')" = "[0,0]" ]
}

@test "a cache folder that cannot be used fails first (78); --cache-ttl needs --cache (64)" {
	echo file > "$W/notadir"
	AICLI_CACHE_DIR="$W/notadir" run --separate-stderr ai-ask -n --cache "hello"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"cache folder '$W/notadir' cannot be used"* ]]
	run --separate-stderr ai-ask -n --cache-ttl 10 "hello"
	[ "$status" -eq 64 ]
	[[ "$stderr" == *"--cache-ttl goes with --cache"* ]]
	[ "$(mock_count)" -eq 0 ]
	unset AICLI_CACHE_DIR
	XDG_CACHE_HOME="$W/xdg" ai-ask -n --cache "hello" >/dev/null
	[ "$(find "$W/xdg/aicli" -type f | wc -l)" -eq 1 ]
}

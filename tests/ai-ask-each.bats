#!/usr/bin/env bats
# ai-ask --each: every line or record of standard input a prompt of its own,
# -P of them in flight in one process; ids, order, failures among good
# prompts, resuming, and the one rate limiter (429s, the providers' headers,
# --rpm) against the mock's rate limit.  The mock's echo answers say which
# prompt they answer, and "[delay MS]" or "[status N]" in a prompt shapes its
# own answer, so that nothing depends on the order requests arrive in.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	T="$W"
}

# echo_script [RPM]: every answer echoes its prompt; RPM: the mock's rate limit
echo_script() {
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"echo\":true}],
		\"POST /v1/messages\":[{\"echo\":true}]},\"repeat_last\":true,\"rate_limit\":${1:-0}}"
}

stats() { curl --noproxy '*' -s "$MOCK_URL/__mock/stats"; }

@test "each line is a prompt: its answer and usage carry the line number, in input order" {
	echo_script
	printf 'alpha [delay 600]\nbeta\n\ngamma\n' > "$T/in"
	run --separate-stderr ai-ask --each -P 4 "translate" < "$T/in"
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.type == "message") | [.id, .content]' <<<"$output")" = \
'[1,"echo: alpha [delay 600]\n\ntranslate"]
[2,"echo: beta\n\ntranslate"]
[4,"echo: gamma\n\ntranslate"]' ]
	[ "$(jq -c 'select(.type == "usage" and .total != true) | .id' <<<"$output" | tr '\n' ' ')" = "1 2 4 " ]
	[ "$(mock_count)" -eq 3 ]
	[ -z "$stderr" ]
}

@test "a total usage record ends the run: the sums, the prompts and the failures" {
	echo_script
	printf 'a\nb\nc\n' | ai-ask --each > "$T/out"
	total=$(tail -n 1 "$T/out")
	[ "$(jq -r .type <<<"$total")" = usage ]
	[ "$(jq -r '[.total, .prompts, .failed, .calls] | @tsv' <<<"$total")" = "$(printf 'true\t3\t0\t3')" ]
	[ "$(jq -s '[.[] | select(.type == "usage" and .total != true) | .input_tokens] | add' "$T/out")" = \
		"$(jq .input_tokens <<<"$total")" ]
	[ "$(jq -s '[.[] | select(.type == "usage" and .total != true) | .cost_usd] | add * 1e9 | round' "$T/out")" = \
		"$(jq '.cost_usd * 1e9 | round' <<<"$total")" ]
}

@test "--usage prints the total on stderr" {
	echo_script
	run --separate-stderr ai-ask --each --usage <<<$'a\nb'
	[ "$status" -eq 0 ]
	[[ "$stderr" == "ai-ask: usage: 22 input tokens (0 cached), 10 output tokens, 62 weighted"* ]]
}

@test "--unordered writes answers as they finish; -P 1 makes one request at a time" {
	echo_script
	printf 'slow [delay 1500]\nfast\n' > "$T/in"
	run --separate-stderr ai-ask --each --unordered -P 2 < "$T/in"
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.type == "message") | .id' <<<"$output" | tr '\n' ' ')" = "2 1 " ]
	run --separate-stderr ai-ask --each --unordered -P 1 < "$T/in"
	[ "$(jq -c 'select(.type == "message") | .id' <<<"$output" | tr '\n' ' ')" = "1 2 " ]
}

@test "records in: message and query records are prompts with their ids; other records pass through in place" {
	echo_script
	cat > "$T/in" <<'EOF2'
{"type":"message","role":"user","content":"first","id":"t-17"}
{"type":"search_result","query":"q","rank":1,"title":"T","url":"https://example.com/","snippet":"s","provider":"brave"}
{"type":"query","query":"second","id":42}
{"type":"message","role":"user","content":"third"}
EOF2
	run --separate-stderr ai-ask --each -P 3 < "$T/in"
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.type != "usage") | [.type, .id, .content]' <<<"$output")" = \
'["message","t-17","echo: first"]
["search_result",null,null]
["message",42,"echo: second"]
["message",4,"echo: third"]' ]
	[ "$(body() { mock_request "$1" | jq -r '.json.input[-1].content | if type == "array" then .[0].text else . end'; }; \
		for i in 1 2 3; do body $i; done | sort | tr '\n' ' ')" = "first second third " ]
}

@test "a failing prompt among good ones: an error record with its id, the others answered, exit status of the failure" {
	echo_script
	printf 'one\ntwo [status 400]\nthree\nfour\n' > "$T/in"
	run --separate-stderr ai-ask --each -P 2 < "$T/in"
	[ "$status" -eq 65 ]
	[ "$(jq -c 'select(.type != "usage") | [.type, .id]' <<<"$output")" = \
'["message",1]
["error",2]
["message",3]
["message",4]' ]
	err=$(jq -c 'select(.type == "error")' <<<"$output")
	[ "$(jq -r '[.code, .exit, .status] | @tsv' <<<"$err")" = "$(printf 'bad_input\t65\t400')" ]
	[[ "$(jq -r .message <<<"$err")" == *"HTTP 400"*"status 400 asked for by the prompt" ]]
	[ "$(tail -n 1 <<<"$output" | jq -c '[.prompts, .failed]')" = "[4,1]" ]
	[[ "$stderr" == *"ai-ask: prompt 2: "*"HTTP 400"* ]]
	[[ "$stderr" == *"ai-ask: 1 of 4 prompts failed" ]]
	[[ "$stderr$output" != *"sk-suite-test"* ]]
}

@test "a record without text fails alone, naming its line; a malformed line stops the reading with the bad-input status" {
	echo_script
	printf '%s\n' '{"type":"message","role":"user","content":"ok"}' '{"type":"query","id":"q"}' > "$T/in"
	run --separate-stderr ai-ask --each < "$T/in"
	[ "$status" -eq 65 ]
	[ "$(jq -c 'select(.type == "error") | [.id, .message]' <<<"$output")" = \
		'["q","standard input: line 2: a query record needs a non-empty \"query\" string"]' ]
	[ "$(mock_count)" -eq 1 ]
	printf '%s\n' '{"type":"message","role":"user","content":"ok"}' '{"type":"message", oops' \
		'{"type":"message","role":"user","content":"never"}' > "$T/in"
	run --separate-stderr ai-ask --each < "$T/in"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"standard input: line 2: "* ]]
	[ "$(jq -c 'select(.type == "message") | .id' <<<"$output")" = 1 ]
	[ "$(tail -n 1 <<<"$output" | jq -r .type)" = error ]
	[ "$(mock_count)" -eq 2 ]
}

@test "an error record on the input is passed on, nothing after it is asked, and its status is the run's" {
	echo_script
	printf '%s\n' '{"type":"error","tool":"ai-search","code":"config","exit":78,"message":"no key"}' \
		'{"type":"query","query":"never asked"}' > "$T/in"
	run --separate-stderr ai-ask --each < "$T/in"
	[ "$status" -eq 78 ]
	[ "$(head -n 1 <<<"$output" | jq -r .tool)" = ai-search ]
	[ "$(mock_count)" -eq 0 ]
}

@test "a refused key stops the run: no further prompt is started, exit 78" {
	mock_script '{"routes":{"POST /v1/responses":[{"status":401,"file":"openai/responses_error_401_invalid_api_key.json"}]},"repeat_last":true}'
	run --separate-stderr ai-ask --each -P 1 <<<$'a\nb\nc\nd'
	[ "$status" -eq 78 ]
	[ "$(mock_count)" -eq 1 ]
	[ "$(jq -c 'select(.type == "error") | [.id, .exit]' <<<"$output")" = "[1,78]" ]
	[[ "$stderr" == *"stopped after 1 prompts: the API key was refused"* ]]
	[[ "$stderr$output" != *"sk-suite-test"* ]]
}

@test "--skip-done resumes a job: only the prompts without an answer in the earlier output are asked" {
	echo_script
	printf 'one\ntwo [status 500]\nthree\n' > "$T/in"
	run --separate-stderr ai-ask --each --retries 0 < "$T/in"
	[ "$status" -eq 69 ]
	printf '%s\n' "$output" > "$T/out1"
	mock_reset
	echo_script
	sed -i 's/ \[status 500\]//' "$T/in"
	run --separate-stderr ai-ask --each --skip-done "$T/out1" < "$T/in"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 1 ]
	[ "$(jq -c 'select(.type == "message") | [.id, .content]' <<<"$output")" = '[2,"echo: two"]' ]
	[ "$(tail -n 1 <<<"$output" | jq -c '[.prompts, .skipped]')" = "[1,2]" ]
}

@test "--skip-done with a missing or broken file fails first, before any request" {
	echo_script
	run --separate-stderr ai-ask --each --skip-done "$T/missing" <<<a
	[ "$status" -eq 66 ]
	[[ "$stderr" == *"cannot open '$T/missing'"* ]]
	echo 'not a record' > "$T/bad"
	run --separate-stderr ai-ask --each --skip-done "$T/bad" <<<a
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"'$T/bad': line 1"* ]]
	[ "$(mock_count)" -eq 0 ]
}

@test "flags that need --each, and flags --each cannot take, are usage errors" {
	for args in "-P 2" "--unordered" "--rpm 10" "--tpm 10" "--skip-done x"; do
		run --separate-stderr ai-ask -n $args hi
		[ "$status" -eq 64 ]
		[[ "$stderr" == *"go with --each"* ]]
	done
	echo '[{"name":"t"}]' > "$T/tools.json"
	for args in "--tools $T/tools.json" "--stream" "--continue $T/tx" "-n"; do
		run --separate-stderr ai-ask --each $args <<<a
		[ "$status" -eq 64 ]
		[[ "$stderr" == *"--each takes no"* ]]
	done
	run --separate-stderr ai-ask --each -P 0 <<<a
	[ "$status" -eq 64 ]
	run --separate-stderr ai-ask --each -P 257 <<<a
	[ "$status" -eq 64 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "the mock's rate limit answers 429 with Retry-After beyond it; every prompt still gets its answer" {
	echo_script 120
	run --separate-stderr ai-ask --each -P 6 <<<$'1\n2\n3\n4\n5\n6'
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.type == "message")' <<<"$output" | wc -l)" -eq 6 ]
	[ "$(stats | jq .rate_limited)" -gt 0 ]
}

@test "--rpm is a ceiling the requests never exceed: no 429 from a limit of the same size" {
	echo_script 120
	run --separate-stderr ai-ask --each -P 6 --rpm 120 <<<$'1\n2\n3\n4\n5\n6'
	[ "$status" -eq 0 ]
	[ "$(stats | jq -c '[.requests, .rate_limited]')" = "[6,0]" ]
}

@test "the provider's rate-limit headers pace the requests: OpenAI's and Anthropic's" {
	echo_script 120
	run --separate-stderr ai-ask --each -P 1 <<<$'1\n2\n3\n4\n5'
	[ "$status" -eq 0 ]
	[ "$(stats | jq -c '[.requests, .rate_limited]')" = "[5,0]" ]
	echo_script 120
	run --separate-stderr ai-ask --each -P 1 -m claude-sonnet-4-5 <<<$'1\n2\n3\n4\n5'
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.type == "message") | .content' <<<"$output" | head -n 1)" = '"echo: 1"' ]
	[ "$(stats | jq -c '[.requests, .rate_limited]')" = "[5,0]" ]
}

@test "--each on a terminal is a usage error; empty input asks nothing and writes the total" {
	run python3 "$BATS_TEST_DIRNAME/helpers/on-tty.py" -- ai-ask --each
	[ "$status" -eq 64 ]
	[[ "$output" == *"--each reads its prompts from standard input"* ]]
	run --separate-stderr ai-ask --each < /dev/null
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.type, .total, .prompts]' <<<"$output")" = '["usage",true,0]' ]
	[ "$(mock_count)" -eq 0 ]
}

@test "--tpm is a ceiling too: each request counts its estimated tokens, spacing them from the start" {
	# three prompts at once meet a limit of one request a second: without a ceiling some get 429
	echo_script 60
	run --separate-stderr ai-ask --each -P 3 <<<$'1\n2\n3'
	[ "$status" -eq 0 ]
	[ "$(stats | jq .rate_limited)" -gt 0 ]
	# a request of some 25 estimated tokens at 1,200 tokens a minute: one every 1.25 s or more
	echo_script 60
	run --separate-stderr ai-ask --each -P 3 --tpm 1200 <<<$'1\n2\n3'
	[ "$status" -eq 0 ]
	[ "$(stats | jq -c '[.requests, .rate_limited]')" = "[3,0]" ]
}

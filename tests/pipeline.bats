#!/usr/bin/env bats
# Errors travel in the stream: a tool that fails while writing records ends
# them with an error record, and a tool that reads one does nothing that
# costs, passes it on (records out) or says it (text out), and ends with its
# status.  Every pair the README shows and the obvious others, through the
# built binaries against the mock: the status, the message, the record passed
# on byte for byte, and that no request reached the server after the failure.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	# the model side is configured; the search side is not, unless a test says so
	# (a provider named, so that its missing key is one line)
	export AICLI_SEARCH_BASE_URL="$MOCK_URL" AICLI_SEARCH_PROVIDER=google_cse
	NOKEY="google_cse needs GOOGLE_API_KEY and GOOGLE_CSE_CX: set them, or google_api_key and"
	NOKEY+=" google_cse_cx in ${AICLI_CONFIG:-$HOME/.config/aicli/config.json}"
	printf 'line one\nline two\n' > notes.md
}


# The error record ai-search writes without its keys, exactly.
search_error() {
	ai-search "openbsd pledge" 2>/dev/null || true
}

@test "search | ask: no search key: ai-ask asks nothing, says why, ends 78" {
	run --separate-stderr bash -c 'ai-search "openbsd pledge" | ai-ask "summarize"'
	[ "$status" -eq 78 ]
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "ai-search: $NOKEY" ]
	[ "${stderr_lines[1]}" = "ai-ask: error from ai-search: $NOKEY" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "search | ask --json: the error record is passed on unchanged, and nothing else" {
	rec=$(search_error)
	jq -e '.type == "error" and .tool == "ai-search" and .exit == 78 and .code == "config"' <<<"$rec"
	run --separate-stderr bash -c 'ai-search "openbsd pledge" | ai-ask --json "summarize"'
	[ "$status" -eq 78 ]
	[ "$output" = "$rec" ]
	[ "$stderr" = "ai-search: $NOKEY" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "search | loop: no model call; --json passes the record on and ends with its result" {
	run --separate-stderr bash -c 'ai-search "openbsd pledge" | ai-loop "summarize"'
	[ "$status" -eq 78 ]
	[ -z "$output" ]
	[ "${stderr_lines[1]}" = "ai-loop: error from ai-search: $NOKEY" ]
	[ "$(mock_count)" -eq 0 ]
	rec=$(search_error)
	run --separate-stderr bash -c 'ai-search "openbsd pledge" | ai-loop --json --transcript t.ndjson "summarize"'
	[ "$status" -eq 78 ]
	[ "${lines[0]}" = "$rec" ]
	jq -e '.type == "result" and .status == "error" and .stop_reason == "error" and .steps == 0
		and .calls == 0' <<<"${lines[1]}"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(mock_count)" -eq 0 ]
	# a transcript it created holds nothing: it is not left behind
	[ ! -e t.ndjson ]
}

@test "search | context | ask: passed on through a filter, byte for byte" {
	rec=$(search_error)
	run --separate-stderr bash -c 'ai-search "openbsd pledge" | ai-context | ai-ask --json "summarize"'
	[ "$status" -eq 78 ]
	[ "$output" = "$rec" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "ask --json | context: ai-ask's failure stops the summary; its record is passed on" {
	unset OPENAI_API_KEY
	run --separate-stderr bash -c 'ai-ask --json "hi" | ai-context -m gpt-4.1 --budget 100'
	[ "$status" -eq 78 ]
	jq -e '.type == "error" and .tool == "ai-ask" and .exit == 78 and
		(.message | startswith("no API key for openai"))' <<<"$output"
	[ "${#lines[@]}" -eq 1 ]
	[ "$(mock_count)" -eq 0 ]
	# a failure the service gave: one request (ai-ask's), none after it
	export OPENAI_API_KEY=sk-suite-test-0123456789abcdef
	mock_script '{"routes":{"POST /v1/responses":[{"status":401,"file":"openai/responses_error_401_invalid_api_key.json"}]}}'
	run --separate-stderr bash -c 'ai-ask --json "hi" | ai-context -m gpt-4.1 --budget 100'
	[ "$status" -eq 78 ]
	jq -e '.type == "error" and .tool == "ai-ask" and .status == 401' <<<"$output"
	[ "$(mock_count)" -eq 1 ]
}

@test "context | ask: a transcript ai-context refuses stops ai-ask: 65, no request" {
	printf '{"type":"message","role":"user","content":"x"\n' > bad.ndjson
	run --separate-stderr bash -c 'ai-context < bad.ndjson | ai-ask "summarize"'
	[ "$status" -eq 65 ]
	[ -z "$output" ]
	[ "${stderr_lines[1]}" = "ai-ask: error from ai-context: line 1: column 46: unexpected end of input" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "exec --json | ask: a refused command and a missing file stop ai-ask with their status" {
	run --separate-stderr bash -c 'ai-exec --json --file notes.md "cat /etc/passwd" | ai-ask "summarize"'
	[ "$status" -eq 77 ]
	[[ "${stderr_lines[-1]}" == "ai-ask: error from ai-exec: cat: cannot read '/etc/passwd': not allowed"* ]]
	[ "$(mock_count)" -eq 0 ]
	run --separate-stderr bash -c 'ai-exec --json --file missing.md "cat missing.md" | ai-ask "summarize"'
	[ "$status" -eq 66 ]
	[ "${stderr_lines[-1]}" = "ai-ask: error from ai-exec: cannot open 'missing.md': No such file or directory" ]
	[ "$(mock_count)" -eq 0 ]
	# ai-exec --json alone: the result, then the error record with the same status
	run --separate-stderr ai-exec --json --file notes.md "cat /etc/passwd"
	[ "$status" -eq 77 ]
	jq -e '.type == "tool_result" and .ok == false' <<<"${lines[0]}"
	jq -e '.type == "error" and .tool == "ai-exec" and .code == "policy" and .exit == 77' <<<"${lines[1]}"
	# a command that fails on its own: exit status 1, said so
	printf '{"a":1}\n{"a":"x"}\n' > stream.ndjson
	run --separate-stderr ai-exec --json --file stream.ndjson 'jq ".a + 1" stream.ndjson'
	[ "$status" -eq 1 ]
	jq -e '.type == "error" and .exit == 1 and .code == "failed"' <<<"${lines[1]}"
	# one that selects nothing has not failed: no error record, and the next tool goes on
	run --separate-stderr ai-exec --json --file notes.md "grep nothing notes.md"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "loop --json | ask: the loop's failure stops the next model call" {
	# the loop's model has no key; the next ai-ask has one
	run --separate-stderr bash -c 'OPENAI_API_KEY= ai-loop -n --json "hi" | ai-ask "and then?"'
	[ "$status" -eq 78 ]
	[[ "${stderr_lines[-1]}" == "ai-ask: error from ai-ask: no API key for openai"* ]]
	[ "$(mock_count)" -eq 0 ]
	# a step limit is a failure too: the answer so far, then the error record
	call=$(mock_calls c1 execute '{"command":"wc -l notes.md"}')
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$call},{}]}}"
	run --separate-stderr bash -c 'ai-loop -n --json --max-steps 1 --file notes.md "count" | ai-ask --json "and then?"'
	[ "$status" -eq 3 ]
	jq -e '.type == "error" and .tool == "ai-loop" and .code == "limit" and .exit == 3' <<<"$output"
	[ "$(mock_count)" -eq 2 ]
}

@test "an error record in the middle of ai-search's queries: the earlier ones are searched, no later one" {
	export GOOGLE_API_KEY=AIza-pipe-test GOOGLE_CSE_CX=pipe-cx
	rec='{"type":"error","tool":"ai-ask","code":"temporary","exit":75,"message":"rate limited","retryable":true}'
	printf '%s\n' '{"type":"query","query":"first"}' "$rec" '{"type":"query","query":"second"}' > in.ndjson
	run --separate-stderr ai-search -n 2 < in.ndjson
	[ "$status" -eq 75 ]
	[ "${#lines[@]}" -eq 3 ]
	jq -e -s '.[0:2] | all(.type == "search_result" and .query == "first")' <<<"$output"
	[ "${lines[2]}" = "$rec" ]
	[ -z "$stderr" ]
	[ "$(mock_count)" -eq 1 ]
	# text out: the message instead
	run --separate-stderr ai-search --text -n 2 < in.ndjson
	[ "$status" -eq 75 ]
	[ "${stderr_lines[-1]}" = "ai-search: error from ai-ask: rate limited" ]
}

@test "ai-exec --serve: an error record ends the server with its status, passed on, nothing run" {
	rec='{"type":"error","tool":"ai-search","code":"config","exit":78,"message":"no key","retryable":false}'
	call='{"type":"tool_call","id":"c1","name":"execute","arguments":{"command":"wc -l notes.md"}}'
	run --separate-stderr bash -c "printf '%s\n' '$call' '$rec' '$call' | ai-exec --serve --file notes.md --audit audit.log"
	[ "$status" -eq 78 ]
	[ "${#lines[@]}" -eq 2 ]
	jq -e '.type == "tool_result" and .id == "c1" and .ok' <<<"${lines[0]}"
	[ "${lines[1]}" = "$rec" ]
	[ -z "$stderr" ]
	# one execution only: the call after the error never ran
	[ "$(grep -c '"command"' audit.log)" -eq 1 ]
}

@test "the status: exit, else the code's status, else 1; a bad exit is not trusted" {
	while IFS='|' read -r rec want; do
		run --separate-stderr ai-ask "go" <<<"$rec"
		[ "$status" -eq "$want" ] || { echo "$rec: $status"; false; }
	done <<'EOF'
{"type":"error","tool":"x","code":"config","exit":69,"message":"m"}|69
{"type":"error","tool":"x","code":"temporary","message":"m"}|75
{"type":"error","tool":"x","message":"m"}|1
{"type":"error","tool":"x","code":"nonsense","exit":0,"message":"m"}|1
{"type":"error","tool":"x","exit":3.5,"message":"m"}|1
{"type":"error","tool":"x","exit":"77","code":"policy","message":"m"}|77
EOF
	[ "$(mock_count)" -eq 0 ]
	# it need not be the first record
	run --separate-stderr ai-ask "go" <<'EOF'
{"type":"message","role":"user","content":"hello"}
{"type":"error","tool":"ai-search","code":"unavailable","exit":69,"message":"down","retryable":true}
EOF
	[ "$status" -eq 69 ]
	[ "$stderr" = "ai-ask: error from ai-search: down" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "ai-context passes an error record on and writes nothing else" {
	rec='{"type":"error","tool":"ai-loop","code":"limit","exit":3,"message":"the step limit of 1 is reached","retryable":false}'
	run --separate-stderr ai-context --budget 100 <<EOF
{"type":"message","role":"user","content":"hello"}
$rec
EOF
	[ "$status" -eq 3 ]
	[ "$output" = "$rec" ]
	[ -z "$stderr" ]
}

#!/usr/bin/env bats
# No silent loss of bytes: what a tool takes as text (standard input,
# operands, a system prompt file, a transcript) must be UTF-8 without NUL
# bytes, or it is refused whole, exit 65, naming the first bad byte by its
# offset and line; never cut at the NUL, never replaced.  Per tool, with
# nothing sent to the service.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	export GOOGLE_API_KEY="AIza-bytes-test" GOOGLE_CSE_CX="bytes-cx" AICLI_SEARCH_BASE_URL="$MOCK_URL"
	printf 'a\nb \0 c\nd\n' > nul.txt
	printf 'caf\xe9\n' > latin1.txt
}

NUL_MSG="standard input is binary: a NUL byte at offset 4 (line 2); only text is taken"
LATIN1_MSG="standard input is not UTF-8 text: byte 0xe9 at offset 3 (line 1); convert it to UTF-8 first (iconv)"

@test "ai-ask: a NUL byte on standard input is refused, not a cut material: 65, the offset, no request" {
	run --separate-stderr ai-ask "summarize" < nul.txt
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: $NUL_MSG" ]
	[ -z "$output" ]
	run --separate-stderr ai-ask --json "summarize" < latin1.txt
	[ "$status" -eq 65 ]
	jq -e --arg m "$LATIN1_MSG" '.type == "error" and .exit == 65 and .message == $m' <<<"$output"
	[ "$(mock_count)" -eq 0 ]
	# the same bytes in records: the same rule, the same words
	printf '{"type":"message","role":"user","content":"ok"}\n{"type":"message","role":"user","content":"\0"}\n' > recs.ndjson
	run --separate-stderr ai-ask < recs.ndjson
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: standard input is binary: a NUL byte at offset 91 (line 2); only text is taken" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "ai-ask: the prompt, -s, --system-file and a --continue transcript are held to the rule" {
	run --separate-stderr ai-ask -n "caf$(printf '\xe9') au lait"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: the prompt is not UTF-8 text: byte 0xe9 at offset 3 (line 1); convert it to UTF-8 first (iconv)" ]
	run --separate-stderr ai-ask -n -s "$(printf 'x\xff')" "hi"
	[ "$status" -eq 65 ]
	[[ "$stderr" == "ai-ask: the system prompt (-s) is not UTF-8 text: byte 0xff at offset 1"* ]]
	run --separate-stderr ai-ask -n --system-file nul.txt "hi"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: 'nul.txt' is binary: a NUL byte at offset 4 (line 2); only text is taken" ]
	printf '{"type":"message","role":"user","content":"\xff"}\n' > chat.ndjson
	run --separate-stderr ai-ask -n --continue chat.ndjson "hi"
	[ "$status" -eq 65 ]
	[[ "$stderr" == "ai-ask: transcript 'chat.ndjson' is not UTF-8 text: byte 0xff at offset 43 (line 1)"* ]]
	[ "$(mock_count)" -eq 0 ]
	# UTF-8 text of every kind goes through whole
	run --separate-stderr ai-ask -n "naïve café 日本語 😀"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.json.input[0].content == "naïve café 日本語 😀"'
}

@test "ai-loop: standard input, the task and -s: refused with the offset, no model call" {
	run --separate-stderr ai-loop "summarize" < nul.txt
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-loop: $NUL_MSG" ]
	[ -z "$output" ]
	run --separate-stderr ai-loop --json "summarize" < latin1.txt
	[ "$status" -eq 65 ]
	jq -e -s --arg m "$LATIN1_MSG" '.[0].type == "error" and .[0].message == $m and .[1].type == "result"' <<<"$output"
	run --separate-stderr ai-loop -n "$(printf 'go\xc3')"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-loop: the task is not UTF-8 text: an incomplete character, byte 0xc3 at offset 2 (line 1); convert it to UTF-8 first (iconv)" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "ai-search: a NUL in a query line is refused, not a cut query: 65, the offset, no search" {
	printf 'first query\nsec\0ond\n' > queries
	run --separate-stderr ai-search -n 2 < queries
	[ "$status" -eq 65 ]
	# the first line was a good query, and was searched
	jq -e -s '.[0:2] | all(.type == "search_result" and .query == "first query")' <<<"$output"
	jq -e '.type == "error" and .exit == 65 and
		.message == "standard input is binary: a NUL byte at offset 15 (line 2); only text is taken"' <<<"${lines[-1]}"
	[ "$(mock_count)" -eq 1 ]
	run --separate-stderr ai-search "$(printf 'caf\xe9 au lait')"
	[ "$status" -eq 65 ]
	[[ "$stderr" == "ai-search: the query is not UTF-8 text: byte 0xe9 at offset 3"* ]]
	[ "$(mock_count)" -eq 1 ]
}

@test "ai-context: a NUL byte or a byte that is not UTF-8: 65, the offset, only the error record" {
	run --separate-stderr ai-context < nul.txt
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-context: $NUL_MSG" ]
	jq -e --arg m "$NUL_MSG" '.type == "error" and .tool == "ai-context" and .message == $m' <<<"$output"
}

@test "ai-exec --serve: a call line with a NUL or a byte that is not UTF-8 gets an error result naming its line" {
	echo hello > notes.md
	{
		printf '{"type":"tool_call","id":"c1","name":"execute","arguments":{"command":"wc -l notes.md\0"}}\n'
		printf '{"type":"tool_call","id":"c2","name":"execute","arguments":{"command":"wc -l notes.md \xff"}}\n'
		printf '{"type":"tool_call","id":"c3","name":"execute","arguments":{"command":"wc -l notes.md"}}\n'
	} > calls.ndjson
	run --separate-stderr ai-exec --serve --file notes.md < calls.ndjson
	[ "$status" -eq 0 ]
	jq -e '.ok == false and .error_kind == "usage" and (.error | startswith("line 1: "))' <<<"${lines[0]}"
	jq -e '.ok == false and .error_kind == "usage" and (.error | startswith("line 2: "))' <<<"${lines[1]}"
	jq -e '.id == "c3" and .ok and .stdout_text == "1 notes.md\n"' <<<"${lines[2]}"
}

#!/usr/bin/env bats
# ai-loop against the mock server, with the real ai-ask, ai-exec, ai-search
# and ai-context as its children: scripted multi-turn sequences built from
# the real captures, the requests each step makes (asserted on the mock's
# log), the quotas, the children's command lines and environments (through
# wrappers in AICLI_LIBEXEC), every fault, the --json stream, transcripts,
# and the README's Makefile and cron examples.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	clean_env
	W="$BATS_TEST_TMPDIR"
	ROOT="$BATS_TEST_DIRNAME/.."
	export AICLI_CONFIG="$W/config.json"
	echo '{}' > "$AICLI_CONFIG"
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY="sk-loop-test-0123456789abcdef"
	export ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY="sk-ant-loop-0123456789abcdef"
	export GOOGLE_API_KEY="AIza-loop-test-key" GOOGLE_CSE_CX="loop-cx"
	export AICLI_SEARCH_BASE_URL="$MOCK_URL"
	cd "$W"
	printf '%s\n' "# notes" "- [ ] TODO write the man page" "- [x] build" \
		"- [ ] TODO bench" > notes.md
	printf 'cc -c main.c\nmain.c:3: error: expected ;\n' > build.log
}

# The JSON body of the Nth request, and its input (Responses API).
body() { mock_request "$1" | jq -c .json; }
input() { mock_request "$1" | jq -c '.json.input'; }

# text TEXT: a Responses API answer with this text, in the wire shape of the
# real capture openai/responses_nonstream_text.json.
text() {
	jq -c --arg t "$1" '.output[0].content[0].text = $t' \
		"$MOCK_FIXTURES/openai/responses_nonstream_text.json"
}

# steps ANSWER...: the model's answers, in order: each a JSON body, {} for
# the default capture (openai/responses_nonstream_text.json), or a whole
# scripted response ({"json": ..., "delay_ms": ...}).
steps() {
	local list="" r
	for r in "$@"; do
		case "$r" in
		'{}' | '{"json":'* | '{"status":'* | '{"file":'*) list="$list$r," ;;
		*) list="$list{\"json\":$r}," ;;
		esac
	done
	mock_script "{\"routes\":{\"POST /v1/responses\":[${list%,}]}}"
}

# The requests of one route, and how many.
route_count() { mock_requests | jq -c --arg p "$1" 'select(.path == $p)' | wc -l; }

# wrap NAME...: a directory of wrappers that record each child's argument
# vector and environment, then run the real tool (for AICLI_LIBEXEC).
wrap() {
	mkdir -p "$W/lx" "$W/dump"
	local t
	for t in "$@"; do
		cat > "$W/lx/$t" <<SH
#!/bin/sh
{ printf '%s\n' "\$0" "\$@"; echo --; } >> "$W/dump/$t.argv"
env > "$W/dump/$t.env.\$\$"
exec "$ROOT/bin/$t" "\$@"
SH
		chmod +x "$W/lx/$t"
	done
}

# gone PID: the process has ended (a zombie that nobody reaps counts as ended).
gone() {
	local state=""
	kill -0 "$1" 2>/dev/null || return 0
	[ -r "/proc/$1/stat" ] && read -r _ _ state _ < "/proc/$1/stat"
	[ "$state" = Z ]
}

# eight_turns: a conversation of eight questions and answers, about 100 tokens each.
eight_turns() {
	local i
	for i in $(seq 1 8); do
		jq -nc --argjson i "$i" '{type:"message",role:"user",content:("question \($i) " * 40)}'
		jq -nc --argjson i "$i" '{type:"message",role:"assistant",content:("answer \($i) " * 40)}'
	done
}

# No process of the run is left: nothing runs with this test's directory in its command line.
no_leftovers() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pgrep -f "$W/" >/dev/null || return 0
		sleep 0.2
	done
	echo "left behind:"; pgrep -af "$W/"
	return 1
}

@test "one step: the model answers at once, the answer alone on stdout, exit 0" {
	steps "$(text 'The answer is 42.')"
	run --separate-stderr ai-loop -n "what is six times seven?"
	[ "$status" -eq 0 ]
	[ "$output" = "The answer is 42." ]
	[ -z "$stderr" ]
	[ "$(mock_count)" -eq 1 ]
	# the task is the user message; without --file, --search or --policy no tool is offered
	body 1 | jq -e '.input == [{"role":"user","content":"what is six times seven?"}]'
	body 1 | jq -e 'has("tools") | not'
}

@test "a tool call goes to ai-exec; the next request carries its output, paired with the call" {
	steps "$(mock_calls call_1 execute '{"command":"grep -c TODO notes.md","reason":"count them"}')" \
		"$(text 'notes.md has 2 TODOs.')"
	run --separate-stderr ai-loop -n --file notes.md "how many TODOs are in notes.md?"
	[ "$status" -eq 0 ]
	[ "$output" = "notes.md has 2 TODOs." ]
	[ "$(mock_count)" -eq 2 ]
	# the first request declares execute, naming the file it may read
	body 1 | jq -e '[.tools[].name] == ["execute"]'
	body 1 | jq -e '.tools[0].description | contains("Files it can read: notes.md.")'
	body 1 | jq -e '.tools[0].parameters.required == ["command"]'
	body 1 | jq -e '.tools[0].parameters.properties | keys == ["command","file","idempotency","reason","size","start"]'
	# the second: the task, the call, and its result with the same id
	input 2 | jq -e '.[0] == {"role":"user","content":"how many TODOs are in notes.md?"}'
	input 2 | jq -e '.[1] == {"type":"function_call","call_id":"call_1","name":"execute",
		"arguments":"{\"command\":\"grep -c TODO notes.md\",\"reason\":\"count them\"}"}'
	input 2 | jq -e '.[2].type == "function_call_output" and .[2].call_id == "call_1"'
	input 2 | jq -e '.[2].output | fromjson | .ok == true and .stdout_text == "2\n" and .exit_code == 0'
	input 2 | jq -e 'length == 3'
	no_leftovers
}

@test "two calls in one step: both run, their results in the order of the calls" {
	steps "$(mock_calls c_a execute '{"command":"wc -l notes.md"}' c_b execute '{"command":"grep -c error build.log"}')" '{}'
	run --separate-stderr ai-loop -n --file notes.md --file build.log "look"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	input 2 | jq -e '[.[] | select(.type == "function_call_output") | .call_id] == ["c_a","c_b"]'
	input 2 | jq -e '[.[] | select(.type == "function_call_output") | .output | fromjson | .stdout_text] == ["4 notes.md\n","1\n"]'
}

@test "the calls of one step run at the same time: two searches meet while both are running" {
	# each ai-search waits (up to 5 s) until the other one has started; run one after
	# the other, the first would wait in vain and say so
	wrap ai-ask
	cat > "$W/lx/ai-search" <<SH
#!/bin/sh
touch "$W/dump/started.\$\$"
i=0
while [ \$(ls "$W/dump" | grep -c '^started\.') -lt 2 ]; do
	i=\$((i + 1))
	if [ \$i -gt 50 ]; then touch "$W/dump/alone.\$\$"; break; fi
	sleep 0.1
done
exec "$ROOT/bin/ai-search" "\$@"
SH
	chmod +x "$W/lx/ai-search"
	steps "$(mock_calls s1 web_search '{"query":"alpha"}' s2 web_search '{"query":"beta","count":2}')" '{}'
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --search "search twice"
	[ "$status" -eq 0 ]
	[ "$(ls "$W/dump" | grep -c '^started\.')" -eq 2 ]
	[ "$(ls "$W/dump" | grep -c '^alone\.' || true)" -eq 0 ]
	[ "$(route_count /customsearch/v1)" -eq 2 ]
}

@test "web_search: ai-search's results go back as one tool_result" {
	steps "$(mock_calls s1 web_search '{"query":"openbsd pledge","count":3}')" "$(text 'See pledge(2).')"
	run --separate-stderr ai-loop -n --search "what is pledge?"
	[ "$status" -eq 0 ]
	[ "$output" = "See pledge(2)." ]
	body 1 | jq -e '[.tools[].name] == ["web_search"]'
	body 1 | jq -e '.tools[0].parameters.properties | keys == ["count","query"]'
	mock_requests | jq -e -s '[.[] | select(.path == "/customsearch/v1")][0].query |
		.q == ["openbsd pledge"] and .num == ["3"]'
	local r
	r=$(input 3 | jq -c '.[] | select(.type == "function_call_output") | .output | fromjson')
	jq -e '.ok == true and .query == "openbsd pledge" and (.results | length) == 3' <<<"$r"
	jq -e '.results[0] | .rank == 1 and .title == "Android Beta Program" and
		.url == "https://www.google.com/android/beta" and (.snippet | length) > 0' <<<"$r"
	jq -e '.results[1].date == "2015-07-15"' <<<"$r"
}

@test "auto-search, search needed: the model decides, ai-search runs once, the answer sees SEARCH_RESULTS" {
	steps "$(text '{"search":true,"query":"curl latest release"}')" "$(text 'curl 8.x, see [1].')"
	run --separate-stderr ai-loop -n --auto-search "what is the latest curl release?"
	[ "$status" -eq 0 ]
	[ "$output" = "curl 8.x, see [1]." ]
	[ "$(mock_count)" -eq 3 ]
	# the decision: JSON only, with a schema, after the conversation
	body 1 | jq -e '.text.format.type == "json_schema"'
	body 1 | jq -e '.text.format.schema.required == ["search","query"]'
	body 1 | jq -e '.input[0] == {"role":"user","content":"what is the latest curl release?"}'
	body 1 | jq -e '.input[-1].content | contains("would a web search help")'
	# one search, five results
	mock_request 2 | jq -e '.path == "/customsearch/v1" and .query.q == ["curl latest release"] and .query.num == ["5"]'
	# the answer: the task, then the results as a numbered list; the decision is not in it
	body 3 | jq -e '.input | length == 2'
	body 3 | jq -e '.input[1].content | startswith("SEARCH_RESULTS")'
	body 3 | jq -e '.input[1].content | contains("https://www.google.com/android/beta")'
	body 3 | jq -e 'has("tools") | not'
}

@test "auto-search, no search needed: no search is made" {
	steps "$(text '{"search":false,"query":""}')" "$(text 'Four.')"
	run --separate-stderr ai-loop -n --auto-search "what is two plus two?"
	[ "$status" -eq 0 ]
	[ "$output" = "Four." ]
	[ "$(mock_count)" -eq 2 ]
	[ "$(route_count /customsearch/v1)" -eq 0 ]
	body 2 | jq -e '.input == [{"role":"user","content":"what is two plus two?"}]'
}

@test "auto-search: a decision that is not JSON is a warning, and the model still answers" {
	steps '{}' "$(text 'Answer.')"
	run --separate-stderr ai-loop -n --auto-search "q"
	[ "$status" -eq 0 ]
	[ "$output" = "Answer." ]
	[[ "$stderr" == *"ai-loop: warning: the model's search decision is not JSON; answering without a search"* ]]
	[ "$(route_count /customsearch/v1)" -eq 0 ]
}

@test "auto-search with files: the answer may still use execute" {
	steps "$(text '{"search":false,"query":""}')" "$(mock_calls c1 execute '{"command":"wc -l notes.md"}')" '{}'
	run --separate-stderr ai-loop -n --auto-search --file notes.md "count"
	[ "$status" -eq 0 ]
	body 2 | jq -e '[.tools[].name] == ["execute"]'
	[ "$(mock_count)" -eq 3 ]
}

@test "a model that never stops calling tools: --max-steps, then one call without tools for the best answer, exit 3" {
	local fc
	fc=$(mock_calls c1 execute '{"command":"wc -l notes.md"}')
	steps "$fc" "$fc" "$fc" "$(text 'Best so far: 4 lines.')"
	run --separate-stderr ai-loop -n --max-steps 3 --file notes.md "count forever"
	[ "$status" -eq 3 ]
	[ "$output" = "Best so far: 4 lines." ]
	[ "$stderr" = "ai-loop: the step limit of 3 is reached (--max-steps); the answer is the best so far" ]
	[ "$(mock_count)" -eq 4 ]
	body 3 | jq -e 'has("tools")'
	body 4 | jq -e 'has("tools") | not'
	body 4 | jq -e '.input[-1].role == "user" and (.input[-1].content | startswith("The step limit is reached"))'
	# every call of the last step had its result before the final question
	body 4 | jq -e '[.input[] | select(.type == "function_call_output")] | length == 3'
}

@test "--max-steps in --json: the result record says max_steps, status limit" {
	local fc
	fc=$(mock_calls c1 execute '{"command":"wc -l notes.md"}')
	steps "$fc" "$(text 'Best so far.')"
	run --separate-stderr ai-loop -n --json --max-steps 1 --file notes.md "x"
	[ "$status" -eq 3 ]
	jq -e -s '.[-1] | .type == "result" and .status == "limit" and .stop_reason == "max_steps" and .steps == 1 and .calls == 2' <<<"$output"
	jq -e -s '.[-2] | .type == "error" and .tool == "ai-loop" and .exit == 3' <<<"$output"
	jq -e -s '[.[] | select(.type == "message" and .role == "assistant")][-1].content == "Best so far."' <<<"$output"
}

@test "--max-calls: no call past the quota; the calls asked for still run; exit 3" {
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$(mock_calls c1 execute '{"command":"wc -l notes.md"}')},
		{\"json\":$(mock_calls c2 execute '{"command":"wc -l notes.md"}')}]},\"repeat_last\":true}"
	run --separate-stderr ai-loop -n --max-calls 2 --transcript t.ndjson --file notes.md "loop"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[ "$stderr" = "ai-loop: the limit of 2 model calls is reached (--max-calls)" ]
	[ "$(mock_count)" -eq 2 ]
	# the transcript ends with the last call's result: it can be continued
	tail -n 1 t.ndjson | jq -e '.type == "tool_result" and .ok == true'
}

@test "--budget: weighted tokens counted from the usage records; exhausted, the loop stops, exit 3" {
	# the capture's usage: 58 input, 23 output tokens = 150 weighted
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}')" '{}'
	run --separate-stderr ai-loop -n --json --budget 100 --file notes.md "x"
	[ "$status" -eq 3 ]
	[ "$stderr" = "ai-loop: the budget of 100 weighted tokens is used up: 150 used (--budget)" ]
	[ "$(mock_count)" -eq 1 ]
	jq -e -s '.[-1] | .stop_reason == "budget" and .status == "limit" and .weighted_tokens == 150 and .calls == 1' <<<"$output"
	# a budget the run stays within changes nothing
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}')" '{}'
	run --separate-stderr ai-loop -n --json --budget 1000 --file notes.md "x"
	[ "$status" -eq 0 ]
	jq -e -s '.[-1] | .stop_reason == "answer" and .weighted_tokens == 181 and .input_tokens == 69 and .output_tokens == 28 and .cost_usd > 0' <<<"$output"
}

@test "bad arguments become error results the model can correct; the loop goes on" {
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md","bogus":1}' c2 web_search '{"query":"x","count":0}' \
		c3 web_search '{"query":"  "}' c4 web_search '{"query":"x","lang":"en"}' c5 execute '{"command":"rm notes.md"}')" \
		"$(mock_calls c6 execute '{"command":"wc -l notes.md"}')" '{}'
	run --separate-stderr ai-loop -n --search --file notes.md "x"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	local r
	r=$(input 2 | jq -c '[.[] | select(.type == "function_call_output") | .output | fromjson]')
	jq -e '.[0] | .ok == false and .error_kind == "usage" and (.error | contains("unknown argument '"'bogus'"'"))' <<<"$r"
	jq -e '.[1] == {"ok":false,"error":"'"'count'"' must be an integer from 1 to 10","error_kind":"usage"}' <<<"$r"
	jq -e '.[2] == {"ok":false,"error":"'"'query'"' must be a non-empty string","error_kind":"usage"}' <<<"$r"
	jq -e '.[3].error == "unknown argument '"'lang'"' (web_search takes query and count)"' <<<"$r"
	jq -e '.[4] | .ok == false and .error_kind == "policy"' <<<"$r"
	[ "$(route_count /customsearch/v1)" -eq 0 ]
	# the model corrected itself
	input 3 | jq -e '[.[] | select(.type == "function_call_output")][-1].output | fromjson | .ok'
}

@test "an unknown tool (the real Chat Completions capture's lookup_population) gets an error result" {
	mock_script '{"routes":{"POST /v1/chat/completions":[{"file":"openai/chat_completions_nonstream_tool_calls.json"},{}]}}'
	run --separate-stderr ai-loop -n --provider openai-chat --file notes.md "Can Crumpet have dragons?"
	[ "$status" -eq 0 ]
	[ "$output" = "YES" ]
	body 2 | jq -e '.messages[1].tool_calls[0].function.name == "lookup_population"'
	body 2 | jq -e '.messages[2].role == "tool" and .messages[2].tool_call_id == "call_TTY8UFNo7rNCaOBUNtlRSvMG"'
	body 2 | jq -e '.messages[2].content | fromjson | .ok == false and .error_kind == "unavailable" and
		.error == "there is no tool '"'lookup_population'"' (the tools are: execute)"'
}

@test "an unknown tool with Anthropic (the real tool_use capture): an is_error tool_result, and the answer" {
	mock_script '{"routes":{"POST /v1/messages":[{"file":"anthropic/messages_nonstream_tool_use.json"},
		{"file":"anthropic/messages_stream_text.sse"}]}}'
	run --separate-stderr ai-loop -n --provider anthropic "weather in SF?"
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	body 1 | jq -e 'has("tools") | not'
	body 2 | jq -e '.messages[-1].content[0].type == "tool_result" and .messages[-1].content[0].is_error == true'
	body 2 | jq -e '.messages[-1].content[0].tool_use_id == "toolu_01DYJo37oETVsCdLTTcCWcdq"'
}

@test "too many calls in one step: the first --max-actions run, the rest get an error result" {
	steps "$(mock_calls a1 execute '{"command":"wc -l notes.md"}' a2 execute '{"command":"wc -c notes.md"}' \
		a3 execute '{"command":"wc -w notes.md"}')" '{}'
	run --separate-stderr ai-loop -n --max-actions 2 --audit audit.log --file notes.md "x"
	[ "$status" -eq 0 ]
	local r
	r=$(input 2 | jq -c '[.[] | select(.type == "function_call_output") | .output | fromjson]')
	jq -e '.[0].ok and .[1].ok' <<<"$r"
	jq -e '.[2] == {"ok":false,"error":"too many tool calls in one step: only the first 2 are run; call this one again in the next step","error_kind":"limit"}' <<<"$r"
	# only two ran: ai-exec's audit log has two lines
	[ "$(wc -l < audit.log)" -eq 2 ]
	# the two ran at the same time: the log has them in the order they ended
	jq -e -s '[.[].id] | sort == ["a1","a2"]' audit.log
}

@test "--json: the whole run as records, in order, each flushed into a pipe while the run goes on" {
	steps "$(mock_calls c1 execute '{"command":"grep -c TODO notes.md"}')" \
		"{\"json\":$(text 'Two.'),\"delay_ms\":5000}"
	mkfifo fifo
	ai-loop -n --json --file notes.md "how many TODOs?" > fifo 2>err 3>&- & pid=$!
	exec 5<fifo
	local l1 l2 l3 l4
	read -r -t 5 -u 5 l1
	read -r -t 5 -u 5 l2
	read -r -t 5 -u 5 l3
	read -r -t 5 -u 5 l4
	# the second call is still waiting for the model: the first step is out already
	kill -0 "$pid"
	jq -e '. == {"type":"message","role":"user","content":"how many TODOs?"}' <<<"$l1"
	jq -e '.type == "tool_call" and .id == "c1" and .arguments.command == "grep -c TODO notes.md"' <<<"$l2"
	jq -e '.type == "usage" and .input_tokens == 58' <<<"$l3"
	jq -e '.type == "tool_result" and .id == "c1" and .stdout_text == "2\n"' <<<"$l4"
	cat <&5 > rest
	exec 5<&-
	wait "$pid"
	[ "$(jq -r .type rest | tr '\n' ' ')" = "message usage result " ]
	jq -e -s '.[0] == {"type":"message","role":"assistant","content":"Two."}' rest
	jq -e -s '.[2] | .status == "ok" and .stop_reason == "answer" and .steps == 2 and .calls == 2 and
		.input_tokens == 69 and .cached_tokens == 0 and .output_tokens == 28 and
		.weighted_tokens == 181 and .cost_usd > 0 and .duration_ms >= 5000' rest
	[ ! -s err ]
}

@test "--json: when the reader goes away, ai-loop stops quietly (SIGPIPE) and makes no more requests" {
	local fc
	fc=$(mock_calls c1 execute '{"command":"wc -l notes.md"}')
	steps "$fc" "{\"json\":$fc,\"delay_ms\":300}" '{}'
	run bash -c 'ai-loop -n --json --file notes.md x 2>err | head -n 1; echo "${PIPESTATUS[0]}"'
	[ "${lines[0]}" = '{"type":"message","role":"user","content":"x"}' ]
	[ "${lines[1]}" = 141 ]
	[ ! -s err ]
	[ "$(mock_count)" -le 2 ]
	no_leftovers
}

@test "--transcript, then --continue: the second run carries the first, and the file grows" {
	steps "$(mock_calls c1 execute '{"command":"grep -c TODO notes.md"}')" "$(text 'Two TODOs.')"
	run --separate-stderr ai-loop -n --transcript t.ndjson --file notes.md "how many TODOs?"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a t.ndjson)" = 600 ]
	[ "$(jq -r .type t.ndjson | tr '\n' ' ')" = "message tool_call usage tool_result message usage " ]
	cp t.ndjson first.ndjson
	steps "$(text 'The man page.')"
	run --separate-stderr ai-loop -n --continue t.ndjson --file notes.md "which is first?"
	[ "$status" -eq 0 ]
	[ "$output" = "The man page." ]
	input 1 | jq -e 'length == 5'
	input 1 | jq -e '.[0].content == "how many TODOs?" and .[1].type == "function_call" and
		.[2].type == "function_call_output" and .[3].content == "Two TODOs." and .[4].content == "which is first?"'
	# the first run's records, then this one's
	head -n 6 t.ndjson | cmp - first.ndjson
	[ "$(tail -n +7 t.ndjson | jq -r .type | tr '\n' ' ')" = "message message usage " ]
	tail -n +7 t.ndjson | head -n 1 | jq -e '.content == "which is first?"'
}

@test "--continue: a file that is not there is created; one that is in use is refused (75)" {
	steps "{\"json\":$(text 'slow'),\"delay_ms\":3000}"
	ai-loop -n --continue t.ndjson "first" >/dev/null 2>&1 3>&- & pid=$!
	local i
	for i in $(seq 50); do [ -e t.ndjson ] && break; sleep 0.1; done
	run --separate-stderr ai-loop -n --continue t.ndjson "second"
	[ "$status" -eq 75 ]
	[ "$stderr" = "ai-loop: transcript 't.ndjson' is in use by another run" ]
	wait "$pid"
	[ "$(stat -c %a t.ndjson)" = 600 ]
	[ "$(jq -r .content t.ndjson | head -n 2 | tr '\n' ' ')" = "first slow " ]
}

@test "a run that fails before the model answers writes nothing, and removes a file it created" {
	echo '{"type":"message","role":"user","content":"old"}' > old.ndjson
	cp old.ndjson keep.ndjson
	run --separate-stderr env -u OPENAI_API_KEY ai-loop -n --continue old.ndjson --transcript new.ndjson "x"
	[ "$status" -eq 78 ]
	cmp old.ndjson keep.ndjson
	[ ! -e new.ndjson ]
	[ "$(mock_count)" -eq 0 ]
}

@test "--continue with a malformed line: exit 65, the file and the line named, no request" {
	printf '%s\n' '{"type":"message","role":"user","content":"a"}' '{"type":"message",' > bad.ndjson
	run --separate-stderr ai-loop -n --continue bad.ndjson "x"
	[ "$status" -eq 65 ]
	[[ "$stderr" == "ai-loop: bad.ndjson: line 2: "* ]]
	[ "$(mock_count)" -eq 0 ]
}

@test "the task: plain text on stdin is the material, the argument the instruction; records are a conversation" {
	steps '{}' '{}'
	printf 'main.c:3: error\n\n' | ai-loop "why did it fail?" >/dev/null
	body 1 | jq -e '.input == [{"role":"user","content":"main.c:3: error\n\nwhy did it fail?"}]'
	printf '%s\n' '{"type":"message","role":"user","content":"hi"}' \
		'{"type":"message","role":"assistant","content":"hello"}' | ai-loop "and now?" >/dev/null
	body 2 | jq -e '.input == [{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"and now?"}]'
}

@test "usage errors: exit 64, nothing on stdout, no request" {
	run --separate-stderr ai-loop -n
	[ "$status" -eq 64 ]
	[ "$stderr" = "ai-loop: no task: give it as an argument or on standard input
ai-loop: try 'ai-loop --help' for more information" ]
	run --separate-stderr ai-loop --search --auto-search "x"
	[ "$status" -eq 64 ]
	[[ "$stderr" == "ai-loop: --search and --auto-search cannot be used together"* ]]
	run --separate-stderr ai-loop --approve L1 "x"
	[ "$status" -eq 64 ]
	[[ "$stderr" == "ai-loop: --approve needs --policy"* ]]
	run --separate-stderr ai-loop --audit a.log "x"
	[ "$status" -eq 64 ]
	run --separate-stderr ai-loop --transcript same.ndjson --continue same.ndjson "x"
	[ "$status" -eq 64 ]
	run --separate-stderr ai-loop --max-steps 0 "x"
	[ "$status" -eq 64 ]
	[ -z "$output" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "never reads from a terminal: with a terminal on stdin and no task it stops at once" {
	run timeout 10 script -qec "$ROOT/bin/ai-loop" /dev/null < /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"no task"* ]]
	steps '{}'
	run timeout 10 script -qec "$ROOT/bin/ai-loop hi" /dev/null < /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *pong* ]]
}

@test "a --file that cannot be read stops the run before any model call, with ai-exec's message and status" {
	run --separate-stderr ai-loop -n --file missing.md "x"
	[ "$status" -eq 66 ]
	[ "$stderr" = "ai-loop: 'ai-exec' failed (exit status 66): cannot open 'missing.md': No such file or directory" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "the children's command lines" {
	wrap ai-ask ai-exec ai-search
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}' c2 web_search '{"query":"-q x"}')" '{}'
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --search --file notes.md --allow-url "$MOCK_URL/docs" \
		--audit audit.log -m gpt-4.1 --provider openai -s "be brief" --max-tokens 300 --timeout 20 \
		--tool-timeout 7 "x"
	[ "$status" -eq 0 ]
	local tools
	tools=$(sed -n 4p "$W/dump/ai-ask.argv")
	[[ "$tools" == /proc/*/fd/* ]]
	[ "$(sed -n '1,/^--$/p' "$W/dump/ai-ask.argv" | tr '\n' ' ')" = \
		"$W/lx/ai-ask --json --tools $tools -m gpt-4.1 --provider openai --timeout 20.000 --max-tokens 300 -s be brief -- " ]
	[ "$(tr '\n' ' ' < "$W/dump/ai-exec.argv")" = \
		"$W/lx/ai-exec --serve --file notes.md --allow-url $MOCK_URL/docs --timeout 7 --audit audit.log -- " ]
	[ "$(tr '\n' ' ' < "$W/dump/ai-search.argv")" = "$W/lx/ai-search --json -n 5 --timeout 7 -- -q x -- " ]
}

@test "each child gets only the environment it needs: ai-exec no key at all" {
	wrap ai-ask ai-exec ai-search
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}' c2 web_search '{"query":"x"}')" '{}'
	printf '{"providers": {"work": {"adapter": "openai-chat", "base_url": "http://127.0.0.1:9", "key_env": "WORK_LLM_KEY"}}}\n' > "$AICLI_CONFIG"
	GITHUB_TOKEN=ghp_loop AWS_SECRET_ACCESS_KEY=aws-secret BRAVE_API_KEY=brave-key \
	DEEPSEEK_API_KEY=sk-ds-loop GEMINI_API_KEY=gm-loop DEEPSEEK_BASE_URL=http://127.0.0.1:9 WORK_LLM_KEY=wk-loop \
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --search --file notes.md "x"
	[ "$status" -eq 0 ]
	local ex se as
	ex=$(cat "$W"/dump/ai-exec.env.*)
	se=$(cat "$W"/dump/ai-search.env.*)
	as=$(cat "$W"/dump/ai-ask.env.* | sort -u)
	# ai-exec: no key, nothing of the model's or the search's; where the configuration is
	# (it reads it only for the secrets it must hide)
	! grep -E '^(OPENAI_API_KEY|ANTHROPIC_API_KEY|GOOGLE_API_KEY|GOOGLE_CSE_CX|BRAVE_API_KEY|GITHUB_TOKEN|AWS_SECRET_ACCESS_KEY|AICLI_SEARCH_BASE_URL|OPENAI_BASE_URL)=' <<<"$ex"
	grep -q "^AICLI_CONFIG=$AICLI_CONFIG\$" <<<"$ex"
	! grep -E 'sk-loop|AIza|ghp_|aws-secret|brave-key|sk-ds-loop|gm-loop|wk-loop|DEEPSEEK_BASE_URL' <<<"$ex"
	grep -q "^HOME=$HOME\$" <<<"$ex"
	grep -q '^PATH=' <<<"$ex"
	# ai-search: its keys, no model key
	grep -q '^GOOGLE_API_KEY=AIza-loop-test-key$' <<<"$se"
	grep -q '^GOOGLE_CSE_CX=loop-cx$' <<<"$se"
	grep -q '^BRAVE_API_KEY=brave-key$' <<<"$se"
	grep -q "^AICLI_CONFIG=$AICLI_CONFIG\$" <<<"$se"
	! grep -E '^(OPENAI_API_KEY|ANTHROPIC_API_KEY|OPENAI_BASE_URL|GITHUB_TOKEN|AWS_SECRET_ACCESS_KEY|DEEPSEEK_API_KEY|GEMINI_API_KEY|WORK_LLM_KEY)=' <<<"$se"
	# ai-ask: the model's keys, no search key
	grep -q '^OPENAI_API_KEY=sk-loop-test-0123456789abcdef$' <<<"$as"
	grep -q '^ANTHROPIC_API_KEY=' <<<"$as"
	grep -q "^OPENAI_BASE_URL=$MOCK_URL/v1\$" <<<"$as"
	# every profile's own key and base URL, and a key variable the configuration names
	grep -q '^DEEPSEEK_API_KEY=sk-ds-loop$' <<<"$as"
	grep -q '^DEEPSEEK_BASE_URL=http://127.0.0.1:9$' <<<"$as"
	grep -q '^GEMINI_API_KEY=gm-loop$' <<<"$as"
	grep -q '^WORK_LLM_KEY=wk-loop$' <<<"$as"
	! grep -E '^(GOOGLE_API_KEY|GOOGLE_CSE_CX|BRAVE_API_KEY|AICLI_SEARCH_BASE_URL|GITHUB_TOKEN|AWS_SECRET_ACCESS_KEY)=' <<<"$as"
}

@test "the running ai-exec server's /proc environ holds no key" {
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}')" "{\"json\":$(text 'x'),\"delay_ms\":3000}"
	ai-loop -n --file "$W/notes.md" "x" >/dev/null 2>&1 3>&- & pid=$!
	local srv="" i
	for i in $(seq 50); do
		srv=$(pgrep -P "$pid" -f 'ai-exec --serve' || true)
		[ -n "$srv" ] && break
		sleep 0.1
	done
	[ -n "$srv" ]
	tr '\0' '\n' < "/proc/$srv/environ" > srv.env
	wait "$pid"
	grep -q '^PATH=' srv.env
	! grep -E 'API_KEY|GOOGLE_CSE_CX|sk-loop' srv.env
}

@test "a search that fails (no key): an error result, one warning, and the loop goes on" {
	steps "$(mock_calls s1 web_search '{"query":"a"}' s2 web_search '{"query":"b"}')" '{}'
	run --separate-stderr env -u GOOGLE_API_KEY ai-loop -n --search "x"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	[ "$stderr" = "ai-loop: warning: web_search: ai-search: google_cse needs GOOGLE_API_KEY: set it, or google_api_key in $AICLI_CONFIG" ]
	input 2 | jq -e '[.[] | select(.type == "function_call_output") | .output | fromjson | .error_kind] == ["unavailable","unavailable"]'
}

@test "the model call fails: the child's own message and status; --json ends with its error record" {
	run --separate-stderr env -u OPENAI_API_KEY ai-loop -n "x"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-loop: ai-ask: no API key for openai: set OPENAI_API_KEY or AICLI_OPENAI_API_KEY, or \"openai_api_key\" in $AICLI_CONFIG" ]
	mock_script '{"routes":{"POST /v1/responses":[{"status":503,"json":{"error":{"message":"down"}}}]},"repeat_last":true}'
	run --separate-stderr env AICLI_RETRIES=0 ai-loop -n --json "x"
	[ "$status" -eq 69 ]
	jq -e -s '.[-2] | .type == "error" and .tool == "ai-ask" and .exit == 69' <<<"$output"
	jq -e -s '.[-1] | .type == "result" and .status == "error" and .stop_reason == "error" and .calls == 1' <<<"$output"
}

@test "an answer cut at the maximum length (the real Anthropic capture): what arrived is printed, exit 3" {
	# anthropic/messages_nonstream_text.json stops at max_tokens
	run --separate-stderr ai-loop -n --provider anthropic "tell me about Nietzsche"
	[ "$status" -eq 3 ]
	[[ "$output" == "When Nietzsche famously declared"* ]]
	[[ "$stderr" == "ai-loop: ai-ask: the answer is incomplete: it reached the maximum length"* ]]
	run --separate-stderr ai-loop -n --json --provider anthropic "tell me about Nietzsche"
	[ "$status" -eq 3 ]
	jq -e -s '.[1] | .type == "message" and .truncated == true' <<<"$output"
	jq -e -s '.[-2] | .type == "error" and .tool == "ai-ask" and .exit == 3' <<<"$output"
	jq -e -s '.[-1] | .status == "limit" and .stop_reason == "error"' <<<"$output"
}

@test "the compaction fails: the loop stops with ai-context's message and status" {
	eight_turns > long.ndjson
	mock_script '{"routes":{"POST /v1/responses":[{"status":500,"json":{"error":{"message":"boom"}}}]},"repeat_last":true}'
	run --separate-stderr env AICLI_RETRIES=0 ai-loop -n --json --context-budget 1000 --continue long.ndjson "x"
	[ "$status" -eq 69 ]
	[ "$stderr" = "ai-loop: 'ai-context' failed (exit status 69): cannot summarise: 'ai-ask' failed (exit status 69)" ]
	# only the summary was asked for, and ai-context reports no usage when it fails
	[ "$(mock_count)" -eq 1 ]
	jq -e -s '.[-2] | .type == "error" and .tool == "ai-loop" and .exit == 69' <<<"$output"
	jq -e -s '.[-1] | .stop_reason == "error" and .calls == 0 and .steps == 0' <<<"$output"
}

@test "a child killed mid-run: ai-exec between steps is started again; ai-ask during its call stops the run (70)" {
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}')" \
		"{\"json\":$(mock_calls c2 execute '{"command":"wc -c notes.md"}'),\"delay_ms\":2000}" '{}'
	ai-loop -n --file "$W/notes.md" "x" > out 2> err 3>&- & pid=$!
	local srv="" i
	for i in $(seq 50); do
		[ "$(mock_count)" -ge 2 ] && srv=$(pgrep -P "$pid" -f 'ai-exec --serve' || true)
		[ -n "$srv" ] && break
		sleep 0.1
	done
	[ -n "$srv" ]
	kill -9 "$srv"
	wait "$pid"
	[ "$(cat out)" = "pong" ]
	[ "$(cat err)" = "ai-loop: warning: 'ai-exec' was killed by signal 9 (Killed); starting it again" ]
	input 3 | jq -e '[.[] | select(.type == "function_call_output") | .output | fromjson | .ok] == [true,true]'

	steps "{\"json\":$(text 'late'),\"delay_ms\":5000}"
	ai-loop -n --file "$W/notes.md" "x" > out 2> err 3>&- & pid=$!
	local ask=""
	for i in $(seq 50); do
		ask=$(pgrep -P "$pid" -f 'ai-ask' || true)
		[ -n "$ask" ] && [ "$(mock_count)" -ge 1 ] && break
		sleep 0.1
	done
	kill -9 "$ask"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 70 ]
	[ "$(cat err)" = "ai-loop: 'ai-ask' was killed by signal 9 (Killed)" ]
	[ ! -s out ]
	no_leftovers
}

@test "SIGINT: children stopped, transcript flushed and paired, exit 130; SIGTERM: 143" {
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}')" "{\"json\":$(text 'late'),\"delay_ms\":8000}"
	ai-loop -n --json --transcript t.ndjson --file "$W/notes.md" "x" > out 2> err 3>&- & pid=$!
	local i
	for i in $(seq 50); do [ "$(mock_count)" -ge 2 ] && break; sleep 0.1; done
	[ "$(mock_count)" -eq 2 ]
	sleep 0.2
	kill -INT "$pid"
	local rc=0 t0=$SECONDS
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	[ $((SECONDS - t0)) -lt 4 ]
	[ ! -s err ]
	no_leftovers
	jq -e -s '.[-1] | .type == "result" and .stop_reason == "interrupted" and .status == "error"' out
	[ "$(jq -r .type t.ndjson | tr '\n' ' ')" = "message tool_call usage tool_result " ]

	steps "{\"json\":$(text 'late'),\"delay_ms\":8000}"
	ai-loop -n "x" > out 2> err 3>&- & pid=$!
	for i in $(seq 50); do [ "$(mock_count)" -ge 1 ] && break; sleep 0.1; done
	sleep 0.2
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	[ ! -s out ]
}

@test "SIGINT during a step's tool calls: each call gets a result, so the transcript can be continued" {
	# a search that hangs (the mock waits 8 s before answering)
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$(mock_calls s1 web_search '{"query":"a"}')}],
		\"GET /customsearch/v1\":[{\"delay_ms\":8000}]}}"
	ai-loop -n --search --transcript t.ndjson "x" > out 2> err 3>&- & pid=$!
	local i
	for i in $(seq 50); do [ "$(route_count /customsearch/v1)" -ge 1 ] && break; sleep 0.1; done
	kill -INT "$pid"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	tail -n 1 t.ndjson | jq -e '. == {"type":"tool_result","id":"s1","name":"web_search","ok":false,
		"error":"interrupted before the tool answered","error_kind":"unavailable"}'
	no_leftovers
}

@test "a child that outlives its time is stopped, with its group: exit 75, nothing left running" {
	mkdir -p lx
	cat > lx/ai-ask <<SH
#!/bin/sh
sleep 60 &
echo \$! > "$W/grandchild"
echo \$\$ > "$W/child"
wait
SH
	chmod +x lx/ai-ask
	local t0=$SECONDS
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --timeout 0.5 "x"
	[ "$status" -eq 75 ]
	[ "$stderr" = "ai-loop: 'ai-ask' did not finish in time and was stopped" ]
	[ $((SECONDS - t0)) -lt 8 ]
	gone "$(cat child)"
	gone "$(cat grandchild)"
}

@test "a tool child that outlives its time: an error result, and the loop goes on" {
	mkdir -p lx
	ln -s "$ROOT/bin/ai-ask" lx/ai-ask
	printf '#!/bin/sh\nexec sleep 60\n' > lx/ai-search
	chmod +x lx/ai-search
	steps "$(mock_calls s1 web_search '{"query":"a"}')" '{}'
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --search --tool-timeout 0.2 "x"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	[ "$stderr" = "ai-loop: warning: web_search: 'ai-search' did not finish in time and was stopped" ]
	input 2 | jq -e '.[-1].output | fromjson | .ok == false and .error_kind == "timeout"'
	no_leftovers
}

@test "malformed records from a child: an error naming the child and the line, exit 76" {
	mkdir -p lx
	printf '%s\n' '#!/bin/sh' 'cat >/dev/null' \
		"echo '{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"hi\"}'" "echo 'not a record'" > lx/ai-ask
	chmod +x lx/ai-ask
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n "x"
	[ "$status" -eq 76 ]
	[ "$stderr" = "ai-loop: 'ai-ask' wrote a malformed record: line 2: column 1: unexpected character" ]
	[ -z "$output" ]
	# a tool call without a name is malformed too (what the model gets wrong otherwise is
	# answered with an error result: see "malformed calls")
	printf '%s\n' '#!/bin/sh' 'cat >/dev/null' \
		"echo '{\"type\":\"tool_call\",\"id\":\"c\",\"arguments\":{}}'" > lx/ai-ask
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n "x"
	[ "$status" -eq 76 ]
	[ "$stderr" = "ai-loop: 'ai-ask' wrote a tool call without a name (line 1)" ]
}

@test "malformed calls: oversized or non-object arguments, an empty or repeated id: error results, and the loop goes on" {
	# the first step's answer built by python: its arguments are larger than a command line
	python3 - "$MOCK_FIXTURES/openai/responses_nonstream_function_call.json" \
		"$(mock_calls c6 execute '{"command":"wc -l notes.md"}')" "$(text pong)" >script.json <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
def call(cid, args):
    return {"id": "fc_" + cid, "type": "function_call", "status": "completed", "arguments": args,
            "call_id": cid, "name": "execute"}
first = dict(base, output=[
    call("c1", json.dumps({"command": "wc -l notes.md", "reason": "x" * 300000})),
    call("c2", "[1,2]"), call("c3", '{"command": "wc'),
    call("", '{"command":"wc -l notes.md"}'),
    call("c5", '{"command":"wc -c notes.md"}'), call("c5", '{"command":"wc -w notes.md"}')])
print(json.dumps({"routes": {"POST /v1/responses": [{"json": first}, {"json": json.loads(sys.argv[2])},
                                                    {"json": json.loads(sys.argv[3])}]}}))
PY
	mock_script_file script.json
	run --separate-stderr ai-loop -n --max-actions 10 --json --transcript t.ndjson --file notes.md "x"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	local r
	r=$(input 2 | jq -c '[.[] | select(.type == "function_call_output") | {call_id, o: (.output | fromjson)}]')
	jq -e '.[0] | .call_id == "c1" and .o.ok == false and .o.error_kind == "usage" and
		.o.error == "the arguments are 300040 bytes: at most 262144; call the tool again with less"' <<<"$r"
	jq -e '.[1].o.error == "the arguments are not a JSON object: '"'[1,2]'"'; call the tool again with an object"' <<<"$r"
	jq -e '.[2].o.error | startswith("the arguments are not a JSON object: ") and contains("command")' <<<"$r"
	jq -e '.[3] | .call_id == "ai-loop-1-1" and .o.error == "the call has no id: each call needs one of its own (this one is now '"'ai-loop-1-1'"'); call the tool again"' <<<"$r"
	jq -e '.[4] | .call_id == "c5" and .o.ok' <<<"$r"
	jq -e '.[5] | .call_id == "ai-loop-1-2" and .o.error == "the call'"'"'s id '"'c5'"' is an earlier call'"'"'s: each call needs one of its own (this one is now '"'ai-loop-1-2'"'); call the tool again"' <<<"$r"
	# every call of the conversation has an id of its own, and its one result; the oversized
	# arguments are not carried on
	input 2 | jq -e '[.[] | select(.type == "function_call") | .call_id] == ["c1","c2","c3","ai-loop-1-1","c5","ai-loop-1-2"]'
	input 2 | jq -e '[.[] | select(.type == "function_call")][0].arguments == "{}"'
	[ "$(wc -c <t.ndjson)" -lt 100000 ]
	jq -s -e '[.[] | select(.type == "tool_call") | .id] | length == (unique | length)' t.ndjson
	jq -s -e '([.[] | select(.type == "tool_call") | .id] | sort) == ([.[] | select(.type == "tool_result") | .id] | sort)' t.ndjson
	# the model corrected itself; a call in a later step reusing an id is answered the same
	input 3 | jq -e '[.[] | select(.type == "function_call_output")][-1].output | fromjson | .ok'
	steps "$(mock_calls d1 execute '{"command":"wc -l notes.md"}')" "$(mock_calls d1 execute '{"command":"wc -l notes.md"}')" '{}'
	run --separate-stderr ai-loop -n --file notes.md "x"
	[ "$status" -eq 0 ]
	input 3 | jq -e '[.[] | select(.type == "function_call_output")][-1] | .call_id == "ai-loop-2-1" and (.output | fromjson | .ok == false)'
}

@test "secrets never reach the model, the stream or the transcript: every value the suite knows, whatever its shape" {
	local key=correct-horse-battery-staple-51 envkey=plain-env-value-987
	printf '{"openai_api_key": "%s"}\n' "$key" > "$AICLI_CONFIG"
	chmod 600 "$AICLI_CONFIG"
	printf 'the key is %s\nthe other %s\n' "$key" "$envkey" > keys.txt
	steps "$(mock_calls k1 execute '{"command":"cat keys.txt"}')" "$(text "it is $key and $envkey")"
	TAVILY_API_KEY=$envkey run --separate-stderr ai-loop -n --json --transcript t.ndjson --file keys.txt "is $key in keys.txt?"
	[ "$status" -eq 0 ]
	for where in "$output" "$stderr" "$(cat t.ndjson)" "$(mock_requests)"; do
		[[ "$where" != *"$key"* && "$where" != *"$envkey"* ]] || { echo "leaked: $where"; false; }
	done
	# what was redacted, and how it reads
	jq -s -e '.[0].content == "is [REDACTED] in keys.txt?"' t.ndjson
	jq -s -e '[.[] | select(.type == "tool_result")][0].stdout_text == "the key is [REDACTED]\nthe other [REDACTED]\n"' t.ndjson
	input 2 | jq -e '.[0].content | contains("[REDACTED]")'
	# the answer on standard output too
	steps "$(text "it is $key")"
	run --separate-stderr ai-loop -n "x"
	[ "$output" = "it is [REDACTED]" ]
}

@test "children are found in AICLI_LIBEXEC only when it is set, else next to ai-loop" {
	mkdir -p empty
	AICLI_LIBEXEC="$W/empty" run --separate-stderr ai-loop -n "x"
	[ "$status" -eq 69 ]
	[ "$stderr" = "ai-loop: cannot find 'ai-ask' (looked in \$AICLI_LIBEXEC)" ]
	printf '{"libexec": "%s"}\n' "$W/empty" > "$AICLI_CONFIG"
	run --separate-stderr ai-loop -n --search "x"
	[ "$status" -eq 69 ]
	[[ "$stderr" == *"looked in the directory \"libexec\" of the config file names)" ]]
	# with PATH holding nothing of the suite, the children next to ai-loop are used
	echo '{}' > "$AICLI_CONFIG"
	steps '{}'
	run --separate-stderr env PATH=/usr/bin:/bin "$ROOT/bin/ai-loop" -n --file notes.md "x"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
}

@test "a bad timeout setting: ai-ask's words and status (78), before any child runs; --timeout overrides it" {
	AICLI_TIMEOUT=soon run --separate-stderr ai-loop -n "x"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-loop: \$AICLI_TIMEOUT: 'soon' is not a number of seconds from 0.001 to 86400" ]
	echo '{"timeout": 0}' > "$AICLI_CONFIG"
	run --separate-stderr ai-loop -n "x"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-loop: config file '$AICLI_CONFIG': timeout: '0' is not a number of seconds from 0.001 to 86400" ]
	[ -z "$output" ]
	[ "$(mock_count)" -eq 0 ]
	steps '{}'
	run --separate-stderr ai-loop -n --timeout 5 "x"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
}

@test "compaction: over --context-budget, ai-context folds the old turns; its call counts; the files keep everything" {
	eight_turns > long.ndjson
	cp long.ndjson before.ndjson
	steps "$(text '{"content":"Eight questions were asked and answered.","key_facts":["k1"],"open_tasks":[]}')" \
		"$(text 'Done.')"
	run --separate-stderr ai-loop -n --json -v --context-budget 1000 --continue long.ndjson "and now?"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	# the summary call, by ai-context's ai-ask
	body 1 | jq -e '.text.format.type == "json_schema"'
	# the step: the summary in the system context, the old turns gone, the last turns kept
	body 2 | jq -e '.instructions | contains("Eight questions were asked and answered.")'
	body 2 | jq -e '[.input[].content] | map(select(startswith("question 1 "))) | length == 0'
	body 2 | jq -e '.input[-1].content == "and now?"'
	[[ "$stderr" == *"ai-loop: compacted the conversation: about "* ]]
	# the summarising call counts: a usage record without a model, and two calls in all
	jq -e -s '[.[] | select(.type == "usage")][0] | has("model") | not' <<<"$output"
	jq -e -s '.[-1] | .calls == 2 and (has("cost_usd") | not)' <<<"$output"
	# the --continue file keeps every record as it happened
	head -n 16 long.ndjson | cmp - before.ndjson
	[ "$(wc -l < long.ndjson)" -eq 19 ]
}

@test "compaction that cannot meet the budget: one warning, and not again until the conversation grows" {
	wrap ai-ask ai-exec ai-context
	jq -nc '{type:"message",role:"user",content:("a long question " * 400)}' > long.ndjson
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}')" "$(mock_calls c2 execute '{"command":"wc -c notes.md"}')" '{}'
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --context-budget 1000 --continue long.ndjson --file notes.md "go on"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	[ "$stderr" = "ai-loop: warning: the conversation is still larger than --context-budget 1000 after compacting" ]
	# ai-context ran before the first step only: its smallest is no smaller a step later
	[ "$(grep -c '^--budget$' "$W/dump/ai-context.argv")" -eq 1 ]
	[ "$(tr '\n' ' ' < "$W/dump/ai-context.argv")" = "$W/lx/ai-context --budget 1000 --stats -- " ]
	[ "$(mock_count)" -eq 3 ]
}

@test "run: offered only with --policy, passed to ai-exec with --approve" {
	# a stand-in ai-exec that answers every line, so that this part of ai-loop is
	# tested whatever the real ai-exec does
	mkdir -p lx
	ln -s "$ROOT/bin/ai-ask" lx/ai-ask
	cat > lx/ai-exec <<SH
#!/bin/sh
printf '%s\n' "\$@" > "$W/exec.argv"
exec jq -c --unbuffered '{type: "tool_result", id, name, ok: true, exitCode: 0, stdoutTail: "$W\n"}'
SH
	chmod +x lx/ai-exec
	echo '{}' > policy.json
	steps "$(mock_calls r1 run '{"program":"pwd","args":[],"reason":"where am I"}')" '{}'
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --policy policy.json --approve L1 "where?"
	[ "$status" -eq 0 ]
	body 1 | jq -e '[.tools[].name] == ["run"]'
	# the schema ai-exec(1) gives for run
	body 1 | jq -e '.tools[0].parameters | del(.properties[].description) == {"type":"object",
		"properties":{"program":{"type":"string"},"args":{"type":"array","items":{"type":"string"}},
		"cwd":{"type":["string","null"]},"reason":{"type":["string","null"]},
		"timeout":{"type":["number","null"]}},"required":["program","args"],
		"additionalProperties":false}'
	# ai-exec's --max-runs counts its whole life: ai-loop caps each step itself
	[ "$(tr '\n' ' ' < exec.argv)" = "--serve --timeout 30 --policy policy.json --approve L1 --max-runs 50 " ]
	# --unconfined, only when given, and only with --policy
	steps "$(mock_calls r1 run '{"program":"pwd","args":[]}')" '{}'
	AICLI_LIBEXEC="$W/lx" run --separate-stderr ai-loop -n --policy policy.json --unconfined "where?"
	[ "$status" -eq 0 ]
	[ "$(tr '\n' ' ' < exec.argv)" = "--serve --timeout 30 --policy policy.json --unconfined --max-runs 50 " ]
	run --separate-stderr ai-loop -n --unconfined --file notes.md "x"
	[ "$status" -eq 64 ]
	[ "$stderr" = "ai-loop: --unconfined needs --policy"$'\n'"ai-loop: try 'ai-loop --help' for more information" ]
	input 2 | jq -e '.[-1].output | fromjson | .ok and .exitCode == 0'
	# without --policy, run is not a tool
	steps "$(mock_calls r1 run '{"program":"pwd"}')" '{}'
	run --separate-stderr ai-loop -n --file notes.md "where?"
	[ "$status" -eq 0 ]
	body 1 | jq -e '[.tools[].name] == ["execute"]'
	input 2 | jq -e '.[-1].output | fromjson | .error_kind == "unavailable"'
}

@test "run through the real ai-exec: L0 runs, L2 is refused with the rule, no terminal prompt" {
	# the example policy ai-exec ships (ai-exec(1), POLICY)
	local policy="$ROOT/ai-exec/policy.json"
	[ -f "$policy" ]
	steps "$(mock_calls r1 run '{"program":"pwd","args":[]}' r2 run '{"program":"sudo","args":["true"]}')" '{}'
	run --separate-stderr ai-loop -n --policy "$policy" "where?"
	[ "$status" -eq 0 ]
	local r
	r=$(input 2 | jq -c '[.[] | select(.type == "function_call_output") | .output | fromjson]')
	jq -e '.[0].ok == true' <<<"$r"
	jq -e '.[1].ok == false and .[1].error_kind == "policy"' <<<"$r"
	# with a terminal, ai-exec still cannot prompt: its session has none
	steps "$(mock_calls r1 run '{"program":"git","args":["add","notes.md"]}')" '{}'
	run timeout 20 script -qec "$ROOT/bin/ai-loop -n --policy $policy x" /dev/null < /dev/null
	[ "$status" -eq 0 ]
	input 2 | jq -e '.[-1].output | fromjson | .ok == false'
}

@test "-v: each step and each call on stderr, sanitized; --usage: the totals" {
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}' c2 "$(printf 'evil\033[2Jname')" '{}')" '{}'
	run --separate-stderr ai-loop -n -v --file notes.md "x"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	[ "$(grep -c "$(printf '\033')" <<<"$stderr")" -eq 0 ]
	[ "$(sed -n 1p <<<"$stderr" | sed -E 's/\(.*\)$/(T)/')" = "ai-loop: step 1: 2 tool calls (T)" ]
	[ "$(sed -n 2p <<<"$stderr" | sed -E 's/\([^()]*\)$/(T)/')" = \
		'ai-loop: step 1: execute {"command":"wc -l notes.md"}: ok, 11 bytes (T)' ]
	[ "$(sed -n 3p <<<"$stderr" | sed -E 's/\([^()]*\)$/(T)/')" = \
		"ai-loop: step 1: evil^[[2Jname {}: unavailable: there is no tool 'evil^[[2Jname' (the tools are: execute) (T)" ]
	[ "$(sed -n 4p <<<"$stderr" | sed -E 's/\(.*\)$/(T)/')" = "ai-loop: step 2: answer (T)" ]
	[ "$(sed -n 5p <<<"$stderr" | sed -E 's/; [^;]*$/; T/')" = \
		'ai-loop: answer after 2 steps; 2 model calls; tokens: 69 input (0 cached), 28 output, 181 weighted; $0.000072; T' ]
	[ "$(wc -l <<<"$stderr")" -eq 5 ]
	steps '{}'
	run --separate-stderr ai-loop -n --usage "x"
	[ "$status" -eq 0 ]
	[ "$(sed -E 's/; [^;]*$/; T/' <<<"$stderr")" = \
		'ai-loop: answer after 1 step; 1 model call; tokens: 11 input (0 cached), 5 output, 31 weighted; $0.000012; T' ]
}

@test "the README's Makefile example makes its target, and a failed run leaves none" {
	awk '/^```make/ { on = 1; next } /^```/ { on = 0 } on' "$ROOT/README.md" > Makefile
	grep -q '^due.txt: notes.md$' Makefile
	mkdir -p "$HOME/.config/aicli"
	printf '{"openai_api_key": "sk-make-test-0123456789", "openai_base_url": "%s/v1"}\n' "$MOCK_URL" \
		> "$HOME/.config/aicli/config.json"
	chmod 600 "$HOME/.config/aicli/config.json"
	steps "$(mock_calls c1 execute '{"command":"grep -n TODO notes.md"}')" "$(text 'Due: the man page, the bench.')"
	run env -i HOME="$HOME" PATH="$ROOT/bin:/usr/bin:/bin" make -s due.txt </dev/null
	[ "$status" -eq 0 ]
	[ "$(cat due.txt)" = "Due: the man page, the bench." ]
	# up to date: no request
	mock_reset
	run env -i HOME="$HOME" PATH="$ROOT/bin:/usr/bin:/bin" make -s due.txt </dev/null
	[ "$(mock_count)" -eq 0 ]
	# a failing run fails the build and leaves no target
	rm due.txt
	mock_script '{"routes":{"POST /v1/responses":[{"status":401,"json":{"error":{"message":"bad key"}}}]}}'
	run env -i HOME="$HOME" PATH="$ROOT/bin:/usr/bin:/bin" make -s due.txt </dev/null
	[ "$status" -ne 0 ]
	[ ! -e due.txt ]
}

@test "the README's cron example: env -i, PATH=/usr/bin:/bin, no terminal, stdin /dev/null, the config file only" {
	local line cmd
	line=$(awk '/^```cron/ { on = 1; next } /^```/ { on = 0 } on && !/^#/' "$ROOT/README.md")
	[ -n "$line" ]
	# the command: the line without its five time fields, with ai-loop where this build is
	cmd=$(sed -E 's/^([^ ]+ +){5}//' <<<"$line")
	cmd=${cmd//\/usr\/local\/bin\/ai-loop/$ROOT/bin/ai-loop}
	mkdir -p "$HOME/project" "$HOME/.config/aicli"
	cp notes.md "$HOME/project/"
	printf '{"openai_api_key": "sk-cron-test-0123456789", "openai_base_url": "%s/v1"}\n' "$MOCK_URL" \
		> "$HOME/.config/aicli/config.json"
	chmod 600 "$HOME/.config/aicli/config.json"
	steps "$(mock_calls c1 execute '{"command":"grep -n TODO notes.md"}')" "$(text 'Due: the man page.')"
	run --separate-stderr setsid -w env -i HOME="$HOME" PATH=/usr/bin:/bin sh -c "$cmd" </dev/null
	[ "$status" -eq 0 ]
	# cron mails whatever is written: nothing on success
	[ -z "$output" ]
	[ -z "$stderr" ]
	[ "$(cat "$HOME/project/due.txt")" = "Due: the man page." ]
	[ "$(mock_count)" -eq 2 ]
	mock_request 1 | jq -e '.headers.authorization == "Bearer sk-cron-test-0123456789"'
}

@test "valgrind: no error and no leak in a run with tools, a search and a transcript" {
	command -v valgrind >/dev/null || { echo "valgrind is needed (make deps)"; false; }
	if ldd "$(command -v ai-loop)" | grep -q libasan; then
		skip "an ASan build: ASan checks it instead"
	fi
	steps "$(mock_calls c1 execute '{"command":"wc -l notes.md"}' c2 web_search '{"query":"x","count":2}' c3 nope '{}')" '{}'
	run --separate-stderr valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 ai-loop -n --json --search --transcript t.ndjson --file notes.md "x"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"=="* ]]
	jq -e -s '.[-1].stop_reason == "answer"' <<<"$output"
}

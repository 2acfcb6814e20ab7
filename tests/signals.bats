#!/usr/bin/env bats
# SIGINT, SIGTERM and SIGHUP end every tool in every state: waiting on
# standard input, on the network, on a child, on a full pipe.  Each test
# puts a tool in one state, sends one signal, and asserts the end: the
# status the shell sees (130, 143, 129), no child left running, no temporary
# file left, a transcript still whole.  No timing is asserted beyond "it
# ended" (within a generous 10 s); the latency is measured in bench/.
# Each tool starts with SIGHUP at its default, as under a terminal, even when
# the suite itself runs under nohup(1).

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	export GOOGLE_API_KEY="AIza-sig-test" GOOGLE_CSE_CX="sig-cx" AICLI_SEARCH_BASE_URL="$MOCK_URL"
	export TMPDIR="$W/tmp"
	mkdir -p "$TMPDIR"
	mkfifo in.fifo out.fifo
	HOLDERS=()
}

teardown() {
	local p
	for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${HOLDERS[@]}"; do wait "$p" 2>/dev/null || true; done
}

# An input that never ends: a writer holds in.fifo open and writes nothing.
stdin_open() { sleep 1000 > in.fifo & HOLDERS+=($!); }
# An output nobody reads: a reader holds out.fifo open and reads nothing.
stdout_stuck() { sleep 1000 < out.fifo & HOLDERS+=($!); }

# until_ COND...: wait (at most 10 s) until the command succeeds.
until_() {
	local i
	for i in $(seq 100); do "$@" && return 0; sleep 0.1; done
	echo "never: $*"
	return 1
}

# requests N: the mock has logged at least N requests.
requests() { [ "$(mock_count)" -ge "$1" ]; }

# ends PID: wait (at most 10 s) for it to end; rc is its status.
ends() {
	local i
	for i in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		echo "still running 10 s after the signal"
		return 1
	fi
	rc=0
	wait "$1" || rc=$?
}

gone() {
	local state=""
	kill -0 "$1" 2>/dev/null || return 0
	[ -r "/proc/$1/stat" ] && read -r _ _ state _ < "/proc/$1/stat"
	[ "$state" = Z ]
}

# blocked PID: it is the tool by now (not the shell that starts it, which may
# wait to open a FIFO), and it sleeps in the kernel (a read, a write, a poll).
blocked() {
	local state="" comm=""
	read -r comm 2>/dev/null < "/proc/$1/comm" || return 1
	[[ "$comm" == ai-* ]] || return 1
	read -r _ _ state _ 2>/dev/null < "/proc/$1/stat" || return 1
	[ "$state" = S ]
}

# children PID: its child processes; has_children PID: it has some.
children() { pgrep -P "$1" || true; }
has_children() { pgrep -P "$1" > /dev/null; }

# An answer streamed in many pieces, more than a pipe holds (~200 KiB).
big_stream() {
	python3 - > "$W/big.sse" <<'PY'
import json
print("event: response.created\ndata: " + json.dumps({"type": "response.created"}) + "\n")
for i in range(2000):
    d = {"type": "response.output_text.delta", "output_index": 0, "delta": ("piece %d " % i) * 10}
    print("event: response.output_text.delta\ndata: " + json.dumps(d) + "\n")
done = {"type": "response.completed", "response": {"status": "completed", "output": []}}
print("event: response.completed\ndata: " + json.dumps(done) + "\n")
PY
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"file\":\"$W/big.sse\"}]}}"
}

# ---- ai-ask ----

@test "ai-ask waiting on standard input: SIGINT ends it, 130; a transcript it created is not left" {
	stdin_open
	env --default-signal=HUP ai-ask --continue chat.ndjson "go" < in.fifo > out 2> err 3>&- & pid=$!
	until_ test -e chat.ndjson
	until_ blocked "$pid"
	kill -INT "$pid"
	ends "$pid"
	[ "$rc" -eq 130 ]
	[ ! -e chat.ndjson ]
	[ ! -s out ]
	[ "$(mock_count)" -eq 0 ]
}

@test "ai-ask waiting on the network: SIGTERM ends it, 143; an existing transcript is untouched" {
	mock_script '{"routes":{"POST /v1/responses":[{"delay_ms":20000}]}}'
	echo '{"type":"message","role":"user","content":"before"}' > chat.ndjson
	cp chat.ndjson chat.before
	env --default-signal=HUP ai-ask -n --continue chat.ndjson "go" > out 2> err 3>&- & pid=$!
	until_ requests 1
	kill -TERM "$pid"
	ends "$pid"
	[ "$rc" -eq 143 ]
	cmp chat.ndjson chat.before
}

@test "ai-ask writing to a full pipe: SIGHUP ends it, 129" {
	big_stream
	stdout_stuck
	env --default-signal=HUP ai-ask -n "go" > out.fifo 2> err 3>&- & pid=$!
	until_ requests 1
	until_ blocked "$pid"
	kill -HUP "$pid"
	ends "$pid"
	[ "$rc" -eq 129 ]
}

# ---- ai-search ----

@test "ai-search waiting on standard input for queries: SIGHUP ends it, 129" {
	stdin_open
	env --default-signal=HUP ai-search < in.fifo > out 2> err 3>&- & pid=$!
	until_ blocked "$pid"
	kill -HUP "$pid"
	ends "$pid"
	[ "$rc" -eq 129 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "ai-search waiting on the network: SIGINT ends it, 130" {
	mock_script '{"routes":{"GET /customsearch/v1":[{"delay_ms":20000}]}}'
	env --default-signal=HUP ai-search "q" > out 2> err 3>&- & pid=$!
	until_ requests 1
	kill -INT "$pid"
	ends "$pid"
	[ "$rc" -eq 130 ]
	[ ! -s out ]
}

@test "ai-search writing to a full pipe: SIGTERM ends it, 143" {
	for i in $(seq 200); do echo "query $i"; done > queries
	stdout_stuck
	env --default-signal=HUP ai-search < queries > out.fifo 2> err 3>&- & pid=$!
	until_ requests 2
	until_ blocked "$pid"
	kill -TERM "$pid"
	ends "$pid"
	[ "$rc" -eq 143 ]
	[ "$(mock_count)" -lt 200 ]
}

# ---- ai-context ----

@test "ai-context waiting on standard input: SIGTERM ends it, 143" {
	stdin_open
	env --default-signal=HUP ai-context < in.fifo > out 2> err 3>&- & pid=$!
	until_ blocked "$pid"
	kill -TERM "$pid"
	ends "$pid"
	[ "$rc" -eq 143 ]
	[ ! -s out ]
}

@test "ai-context waiting on its summarising ai-ask: SIGINT ends both, 130, no schema file left" {
	for i in $(seq 1 40); do
		jq -nc --argjson i "$i" '{type:"message",role:"user",content:("question \($i) " * 30)}'
		jq -nc --argjson i "$i" '{type:"message",role:"assistant",content:("answer \($i) " * 30)}'
	done > chat.ndjson
	mock_script '{"routes":{"POST /v1/responses":[{"delay_ms":20000}]}}'
	env --default-signal=HUP ai-context -m gpt-4.1 --budget 500 --keep 1 < chat.ndjson > out 2> err 3>&- & pid=$!
	until_ requests 1
	kids=$(children "$pid")
	[ -n "$kids" ]
	[ -n "$(ls "$TMPDIR")" ]
	kill -INT "$pid"
	ends "$pid"
	[ "$rc" -eq 130 ]
	for k in $kids; do until_ gone "$k"; done
	[ -z "$(ls "$TMPDIR")" ]
	[ ! -s out ]
}

@test "ai-context writing to a full pipe: SIGHUP ends it, 129" {
	for i in $(seq 1 300); do
		jq -nc --argjson i "$i" '{type:"message",role:"user",content:("question \($i) " * 40)}'
	done > chat.ndjson
	stdout_stuck
	env --default-signal=HUP ai-context --budget 1000000 < chat.ndjson > out.fifo 2> err 3>&- & pid=$!
	until_ blocked "$pid"
	kill -HUP "$pid"
	ends "$pid"
	[ "$rc" -eq 129 ]
}

# ---- ai-exec ----

@test "ai-exec --serve waiting on standard input: SIGTERM ends it, 143" {
	echo hello > notes.md
	stdin_open
	env --default-signal=HUP ai-exec --serve --file notes.md < in.fifo > out 2> err 3>&- & pid=$!
	until_ blocked "$pid"
	kill -TERM "$pid"
	ends "$pid"
	[ "$rc" -eq 143 ]
}

@test "ai-exec waiting on the network (curl): SIGHUP ends it, 129" {
	mock_script '{"routes":{"GET /slow":[{"delay_ms":20000,"body":"late"}]}}'
	env --default-signal=HUP ai-exec --allow-url "$MOCK_URL/" "curl $MOCK_URL/slow" > out 2> err 3>&- & pid=$!
	until_ requests 1
	kill -HUP "$pid"
	ends "$pid"
	[ "$rc" -eq 129 ]
}

@test "ai-exec waiting on a program it runs: SIGINT stops the program too, 130" {
	printf '{"aicli_policy":1,"programs":{"sleep":{"level":"L0"}}}\n' > policy.json
	env --default-signal=HUP ai-exec --policy policy.json --run sleep 300 > out 2> err 3>&- & pid=$!
	until_ has_children "$pid"
	kids=$(children "$pid")
	kill -INT "$pid"
	ends "$pid"
	[ "$rc" -eq 130 ]
	for k in $kids; do until_ gone "$k"; done
}

@test "ai-exec writing to a full pipe: SIGTERM ends it, 143" {
	seq 1 200000 > big.txt
	stdout_stuck
	env --default-signal=HUP ai-exec --file big.txt --size 2000000 --max-size 16777216 "cat big.txt" > out.fifo 2> err 3>&- & pid=$!
	until_ blocked "$pid"
	kill -TERM "$pid"
	ends "$pid"
	[ "$rc" -eq 143 ]
}

# ---- ai-loop ----

@test "ai-loop with standard input open and silent: the first SIGTERM, SIGINT or SIGHUP ends it" {
	stdin_open
	for sig in TERM INT HUP; do
		env --default-signal=HUP ai-loop "go" < in.fifo > out 2> err 3>&- & pid=$!
		until_ blocked "$pid"
		kill -"$sig" "$pid"
		ends "$pid"
		case $sig in TERM) [ "$rc" -eq 143 ] ;; INT) [ "$rc" -eq 130 ] ;; HUP) [ "$rc" -eq 129 ] ;; esac
		[ ! -s out ]
		[ ! -s err ]
	done
	[ "$(mock_count)" -eq 0 ]
}

@test "ai-loop waiting on a model call: SIGHUP stops its ai-ask, 129; no transcript is left" {
	mock_script '{"routes":{"POST /v1/responses":[{"delay_ms":20000}]}}'
	env --default-signal=HUP ai-loop -n --transcript t.ndjson "go" > out 2> err 3>&- & pid=$!
	until_ requests 1
	kids=$(children "$pid")
	[ -n "$kids" ]
	kill -HUP "$pid"
	ends "$pid"
	[ "$rc" -eq 129 ]
	for k in $kids; do until_ gone "$k"; done
	# the model never answered: the transcript it created is not left behind
	[ ! -e t.ndjson ]
}

@test "ai-loop waiting on a tool: SIGTERM stops ai-exec, 143; the call gets a result in the transcript" {
	call=$(mock_calls c1 execute "$(jq -nc --arg u "$MOCK_URL/slow" '{command: ("curl " + $u)}')")
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$call}],\"GET /slow\":[{\"delay_ms\":20000}]}}"
	env --default-signal=HUP ai-loop -n --json --transcript t.ndjson --allow-url "$MOCK_URL/" "go" > out 2> err 3>&- & pid=$!
	until_ requests 2
	kids=$(children "$pid")
	kill -TERM "$pid"
	ends "$pid"
	[ "$rc" -eq 143 ]
	for k in $kids; do until_ gone "$k"; done
	[ "$(jq -r .type t.ndjson | tr '\n' ' ')" = "message tool_call usage tool_result " ]
	tail -n 1 t.ndjson | jq -e '.id == "c1" and .ok == false and
		.error == "interrupted before the tool answered"'
	jq -e -s '.[-1] | .type == "result" and .stop_reason == "interrupted"' out
}

@test "ai-loop --json writing to a full pipe: SIGINT ends it, 130, without a second signal" {
	seq 1 30000 > material.txt
	stdout_stuck
	env --default-signal=HUP ai-loop --json "summarize" < material.txt > out.fifo 2> err 3>&- & pid=$!
	until_ blocked "$pid"
	kill -INT "$pid"
	ends "$pid"
	[ "$rc" -eq 130 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "a SIGHUP ignored at the start (nohup) stays ignored; SIGTERM still ends the tool" {
	stdin_open
	env --ignore-signal=HUP ai-loop "go" < in.fifo > out 2> err 3>&- & pid=$!
	until_ blocked "$pid"
	kill -HUP "$pid"
	sleep 0.5
	kill -0 "$pid"
	kill -TERM "$pid"
	ends "$pid"
	[ "$rc" -eq 143 ]
}

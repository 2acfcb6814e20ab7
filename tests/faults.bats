#!/usr/bin/env bats
# ai-ask against a TCP server that answers badly (tests/mock/faults.py):
# random bytes, other protocols' banners, answers cut at random points,
# real recorded answers with bytes flipped, broken framing, wrong content
# types, resets.  Run many times (under ASan and UBSan with make SANITIZE=1
# check), every run must end with a status of the suite's table, no
# sanitizer report, and with --json a stream of valid records that ends, on
# a failure, with the error record of that status.
#
# FAULT_RUNS runs (default 40, a few seconds); `make faults` runs 2000.
# FAULT_SEED makes a run reproducible; a failure prints the seed, the run
# and the command.

bats_require_minimum_version 1.5.0
load helpers/env

setup_file() {
	local dir="$BATS_FILE_TMPDIR/faults"
	mkdir -p "$dir"
	export FAULT_SEED="${FAULT_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
	python3 "$BATS_TEST_DIRNAME/mock/faults.py" --port-file "$dir/port" --seed "$FAULT_SEED" \
		</dev/null >/dev/null 2>"$dir/stderr" 3>&- &
	echo $! > "$dir/pid"
	for i in $(seq 50); do [ -s "$dir/port" ] && break; sleep 0.1; done
	[ -s "$dir/port" ]
	export FAULT_URL="http://127.0.0.1:$(cat "$dir/port")"
}

teardown_file() {
	local pid
	pid=$(cat "$BATS_FILE_TMPDIR/faults/pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

setup() {
	clean_env
	W="$BATS_TEST_TMPDIR"
	export AICLI_CONFIG="$W/config.json"
	echo '{}' > "$AICLI_CONFIG"
	export OPENAI_API_KEY="sk-fault-test-0123456789abcdef" ANTHROPIC_API_KEY="sk-ant-fault-0123456789"
	# a sanitizer's report must not pass for one of the suite's statuses
	export ASAN_OPTIONS="exitcode=86:detect_leaks=1" UBSAN_OPTIONS="halt_on_error=1:exitcode=87"
	printf '%s\n' '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}' > "$W/schema.json"
	printf '%s\n' '[{"name":"multiply","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}]' > "$W/tools.json"
}

# check_run TOOL RC JSON ALLOWED...: the status is allowed, no sanitizer spoke, and
# with records out (JSON=1) they are records that end, on a failure, with its error record.
check_run() {
	local tool=$1 rc=$2 json=$3 ok=0 a
	shift 3
	why=""
	for a in "$@"; do [ "$rc" -eq "$a" ] && ok=1; done
	[ "$ok" -eq 1 ] || why="exit status $rc"
	if grep -q -e 'Sanitizer' -e 'runtime error' "$W/err"; then
		why="a sanitizer report"
	fi
	if [ -z "$why" ] && [ "$json" -eq 1 ] && [ -s "$W/out" ]; then
		if ! jq -e -s 'all(.[]; type == "object" and (.type | type) == "string")' "$W/out" >/dev/null 2>&1; then
			why="stdout is not records"
		elif [ "$rc" -ne 0 ] && ! tail -n 1 "$W/out" | jq -e --argjson s "$rc" \
			'.type == "error" and .exit == $s' >/dev/null 2>&1; then
			why="the records do not end with the error record of status $rc"
		fi
	fi
	[ -z "$why" ] && return 0
	echo "$tool, seed $FAULT_SEED: $why"
	echo "--- stdout"; head -c 2000 "$W/out"
	echo "--- stderr"; head -c 4000 "$W/err"
	return 1
}

@test "ai-ask meets a server that answers badly, ${FAULT_RUNS:-40} times: a status of the table, no sanitizer report, records whole" {
	local runs=${FAULT_RUNS:-40} i p mode rc
	local -a providers=(openai openai-chat anthropic ollama) bases=(/v1 /v1 "" "")
	local -a modes=("-n" "-n --json" "-n --json --stream" "-n --schema $W/schema.json" "-n --json --tools $W/tools.json")
	for ((i = 1; i <= runs; i++)); do
		p=$((i % 4))
		mode=${modes[$((i / 4 % 5))]}
		# shellcheck disable=SC2086
		timeout 30 ai-ask --provider "${providers[$p]}" --base-url "$FAULT_URL${bases[$p]}" \
			--timeout 5 --idle-timeout 0.5 --retries $((i % 20 == 0)) $mode "hi" \
			> "$W/out" 2> "$W/err" < /dev/null && rc=0 || rc=$?
		check_run "run $i: ai-ask --provider ${providers[$p]} $mode" "$rc" \
			$([[ "$mode" == *--json* ]] && echo 1 || echo 0) 0 1 3 4 65 69 75 76 78
	done
}

@test "ai-search and ai-exec's curl meet the same server: a status of their tables, no sanitizer report" {
	local runs=$(( (${FAULT_RUNS:-40} + 3) / 4 )) i rc p
	local -a providers=(google_cse brave tavily searxng)
	export GOOGLE_API_KEY=AIza-fault GOOGLE_CSE_CX=fault BRAVE_API_KEY=brave-fault TAVILY_API_KEY=tvly-fault
	export AICLI_SEARXNG_URL="$FAULT_URL"
	for ((i = 1; i <= runs; i++)); do
		p=${providers[$((i % 4))]}
		timeout 30 ai-search --json --provider "$p" --base-url "$FAULT_URL" --timeout 5 --retries 0 \
			-n 3 "q $i" > "$W/out" 2> "$W/err" < /dev/null && rc=0 || rc=$?
		check_run "run $i: ai-search --provider $p" "$rc" 1 0 1 65 69 75 76 78
		timeout 30 ai-exec --json --allow-url "$FAULT_URL/" --timeout 5 "curl $FAULT_URL/page$i" \
			> "$W/out" 2> "$W/err" < /dev/null && rc=0 || rc=$?
		check_run "run $i: ai-exec curl" "$rc" 1 0 1 3 65 69 75 76 77
	done
}

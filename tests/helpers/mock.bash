# Bats helpers for the loopback mock API server (tests/mock/mock.py).
#
#   load helpers/mock
#   setup_file()    { mock_start; }
#   teardown_file() { mock_stop; }
#   setup()         { mock_reset; }
#
# mock_start exports MOCK_PORT, MOCK_URL (http://127.0.0.1:PORT), MOCK_LOG (the NDJSON
# request log), MOCK_PID, MOCK_DIR (port file, log, the mock's stdout/stderr) and
# MOCK_FIXTURES (tests/fixtures).  See tests/mock/README.md for the script format.

_MOCK_HELPER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MOCK_PY="$_MOCK_HELPER_DIR/../mock/mock.py"
MOCK_FIXTURES="$(cd "$_MOCK_HELPER_DIR/../fixtures" && pwd)"
export MOCK_FIXTURES

# curl for the helpers' own control calls: never through a proxy, never for long.
_mock_curl() {
	env -u http_proxy -u https_proxy -u HTTP_PROXY -u HTTPS_PROXY -u ALL_PROXY -u all_proxy \
		curl --noproxy '*' --silent --show-error --max-time 10 --fail-with-body "$@"
}

_mock_need_started() {
	if [ -z "${MOCK_URL:-}" ]; then
		echo "${FUNCNAME[1]}: the mock is not running (call mock_start in setup_file)" >&2
		return 1
	fi
}

# mock_start [mock.py options...]
# Start the mock in the background and wait (up to 5 s) until it listens.
# Extra arguments go to mock.py (e.g. --verbose); MOCK_MAX_SECONDS (default 600) bounds its life.
mock_start() {
	local dir="${BATS_FILE_TMPDIR:-}"
	if [ -z "$dir" ]; then
		echo "mock_start: BATS_FILE_TMPDIR is not set; call mock_start from setup_file" >&2
		return 1
	fi
	[ -z "${MOCK_PID:-}" ] || mock_stop
	dir="$dir/mock"
	mkdir -p "$dir" || return 1
	rm -f "$dir/port"
	# 3>&- : bats reads its fd 3 until EOF; a background child holding it would hang the run.
	python3 "$MOCK_PY" --port-file "$dir/port" --log "$dir/requests.ndjson" \
		--max-seconds "${MOCK_MAX_SECONDS:-600}" "$@" \
		</dev/null >"$dir/stdout" 2>"$dir/stderr" 3>&- &
	MOCK_PID=$!
	export MOCK_PID MOCK_DIR="$dir" MOCK_LOG="$dir/requests.ndjson"

	local i
	for ((i = 0; i < 50; i++)); do
		[ -s "$dir/port" ] && break
		if ! kill -0 "$MOCK_PID" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	if [ ! -s "$dir/port" ]; then
		echo "mock_start: the mock did not start within 5 s; its stderr:" >&2
		cat "$dir/stderr" >&2
		mock_stop
		return 1
	fi
	MOCK_PORT="$(cat "$dir/port")"
	export MOCK_PORT MOCK_URL="http://127.0.0.1:$MOCK_PORT"
}

# mock_stop: stop the mock started by mock_start and reap it.  Safe to call twice,
# when mock_start failed, and under set -e.  Waits at most 5 s, then uses SIGKILL.
mock_stop() {
	local pid="${MOCK_PID:-}"
	unset MOCK_PID MOCK_PORT MOCK_URL
	[ -n "$pid" ] || return 0
	# Every step may fail harmlessly (already gone, not our child); bats runs this under set -e.
	kill -TERM "$pid" 2>/dev/null || true
	_mock_wait_gone "$pid" 5 || kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true   # reap it; 143 = ended by SIGTERM
	return 0
}

# _mock_wait_gone PID SECONDS: wait until PID has exited (a zombie counts as exited);
# fails if it is still running after SECONDS.
_mock_wait_gone() {
	local i state
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		state=""
		[ -r "/proc/$1/stat" ] && read -r _ _ state _ <"/proc/$1/stat" 2>/dev/null
		[ "$state" = Z ] && return 0
		sleep 0.1
	done
	return 1
}

# mock_script JSON: replace the mock's script; also zeroes the counters and empties the log.
mock_script() {
	_mock_need_started || return 1
	if [ $# -ne 1 ]; then
		echo "usage: mock_script JSON" >&2
		return 2
	fi
	local out
	if ! out="$(printf '%s' "$1" | _mock_curl -X POST -H 'Content-Type: application/json' \
		--data-binary @- "$MOCK_URL/__mock/script" 2>&1)"; then
		echo "mock_script: $out" >&2
		return 1
	fi
}

# mock_script_file FILE: like mock_script, the script read from FILE.
mock_script_file() {
	_mock_need_started || return 1
	if [ $# -ne 1 ] || [ ! -r "$1" ]; then
		echo "usage: mock_script_file FILE (a readable file)" >&2
		return 2
	fi
	local out
	if ! out="$(_mock_curl -X POST -H 'Content-Type: application/json' \
		--data-binary @"$1" "$MOCK_URL/__mock/script" 2>&1)"; then
		echo "mock_script_file: $out" >&2
		return 1
	fi
}

# mock_reset: no script (every route serves its default), counters zeroed, log emptied.
mock_reset() {
	_mock_need_started || return 1
	local out
	if ! out="$(_mock_curl -X POST "$MOCK_URL/__mock/reset" 2>&1)"; then
		echo "mock_reset: $out" >&2
		return 1
	fi
}

# mock_requests: print the request log (NDJSON, one request per line, oldest first).
mock_requests() {
	_mock_need_started || return 1
	cat "$MOCK_LOG"
}

# mock_request N: print the Nth logged request (1-based) as one JSON line; fails if there is none.
mock_request() {
	_mock_need_started || return 1
	case "${1:-}" in
	'' | *[!0-9]* | 0)
		echo "usage: mock_request N (N >= 1)" >&2
		return 2
		;;
	esac
	local line
	line="$(sed -n "${1}p" "$MOCK_LOG")"
	if [ -z "$line" ]; then
		echo "mock_request: no request $1 in the log ($(mock_count) logged)" >&2
		return 1
	fi
	printf '%s\n' "$line"
}

# mock_count: print the number of logged requests.
mock_count() {
	_mock_need_started || return 1
	local n
	n="$(wc -l <"$MOCK_LOG")"
	echo $((n))
}

# mock_calls ID NAME ARGS [ID NAME ARGS]...: a Responses API answer that calls
# tools, in the wire shape of the real capture
# openai/responses_nonstream_function_call.json (only its output items
# replaced: one function_call item per call, the arguments a JSON string).
mock_calls() {
	local items='[]'
	while [ $# -ge 3 ]; do
		items=$(jq -c --arg id "$1" --arg name "$2" --arg args "$3" '. + [{id: ("fc_" + $id),
			type: "function_call", status: "completed", arguments: $args, call_id: $id,
			name: $name}]' <<<"$items")
		shift 3
	done
	jq -c --argjson items "$items" '.output = $items' \
		"$MOCK_FIXTURES/openai/responses_nonstream_function_call.json"
}

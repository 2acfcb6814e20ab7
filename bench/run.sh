#!/bin/sh
# make bench: every case in bench/cases/*.sh, each timed side by side with its
# baseline in the same run, printed as one table.  BENCH_RUNS (default 9) runs
# per command after one warm-up; the median is reported.  No case asserts
# anything: targets are printed next to the measurements for a person to read.
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BENCH=$ROOT/bench
RUNS=${BENCH_RUNS:-9}
TMP=$(mktemp -d /tmp/aicli-bench.XXXXXX)
export ROOT BENCH RUNS TMP PATH="$ROOT/bin:$PATH"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy

MOCK_PID=
cleanup() {
	if [ -n "$MOCK_PID" ]; then
		kill "$MOCK_PID" 2>/dev/null || true
		wait "$MOCK_PID" 2>/dev/null || true
		MOCK_PID=
	fi
	rm -rf "$TMP"
}
trap 'cleanup; exit 1' INT TERM
trap cleanup EXIT

python3 tests/mock/mock.py --port-file "$TMP/port" --log "$TMP/requests.ndjson" --max-seconds 3600 \
	>/dev/null 2>&1 &
MOCK_PID=$!
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
MOCK_URL="http://127.0.0.1:$(cat "$TMP/port")"
export MOCK_URL

# measure NAME CMD...: prints "median min max rss fails"
m() { "$BENCH/measure" -n "$RUNS" -w 1 "$@"; }

# bench_case CASE TARGET -- OURS... -- BASELINE_NAME BASELINE...
# Runs ours and the baseline alternately in blocks, then prints one row.
bench_case() {
	name=$1 target=$2
	shift 2
	[ "$1" = "--" ] && shift
	ours=""
	while [ "$1" != "--" ]; do ours="$ours '$1'"; shift; done
	shift
	bname=$1
	shift
	base=""
	for a in "$@"; do base="$base '$a'"; done
	o=$(eval "m $ours")
	b=$(eval "m $base")
	echo "$name|$o|$bname|$b|$target" >> "$TMP/rows"
}

: > "$TMP/rows"
for c in "$BENCH"/cases/*.sh; do
	. "$c"
done

printf '%s\n' "bench: median of $RUNS runs after 1 warm-up; wall ms, peak RSS KiB"
awk -F'|' '
BEGIN {
	printf "%-34s %9s %8s   %-22s %9s %8s %7s   %s\n", "case", "ms", "RSS", "baseline", "ms", "RSS", "ratio", "target"
}
{
	split($2, o, " "); split($4, b, " ");
	ratio = b[1] > 0 ? o[1] / b[1] : 0;
	flag = (o[5] > 0 || b[5] > 0) ? "  (failed runs: " o[5] "/" b[5] ")" : "";
	printf "%-34s %9.2f %8d   %-22s %9.2f %8d %6.2fx   %s%s\n", $1, o[1], o[4], $3, b[1], b[4], ratio, $5, flag
}' "$TMP/rows"
cleanup
trap - EXIT

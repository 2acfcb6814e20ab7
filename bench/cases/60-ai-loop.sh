# ai-loop: a 10-step run against the mock (nine answers that call
# execute through ai-exec, then the answer), next to curl sending the very
# same ten request bodies in a shell loop.  Both post the mock's script
# first (one curl), so both pay for it.  Rows: the whole run, with the peak
# memory of the whole process tree (bench/treerss.py: ai-loop, ai-exec
# --serve and each ai-ask; sh and curl for the baseline); and the time per
# step above the mock's own latency ((ai-loop - curl loop) / 10), whose RSS
# column is the largest single process (bench/measure).

printf '{}\n' > "$TMP/loop-config.json"
chmod 600 "$TMP/loop-config.json"
export AICLI_CONFIG="$TMP/loop-config.json" OPENAI_BASE_URL="$MOCK_URL/v1" \
	OPENAI_API_KEY="sk-bench-0123456789abcdef"
unset AICLI_TIMEOUT AICLI_RETRIES AICLI_MODEL AICLI_PROVIDER AICLI_LIBEXEC
awk 'BEGIN { for (i = 1; i <= 200; i++) printf "line %d: %s\n", i, (i % 3 ? "done" : "TODO") }' \
	> "$TMP/loop-notes.txt"

# Nine calls of execute in the wire shape of the real capture
# openai/responses_nonstream_function_call.json, then its default text answer.
for i in 1 2 3 4 5 6 7 8 9; do
	jq -c --arg id "call_$i" --arg cmd "grep -c TODO $TMP/loop-notes.txt" \
		'{json: (.output = [{id: ("fc_" + $id), type: "function_call", status: "completed",
		  arguments: ({command: $cmd} | tojson), call_id: $id, name: "execute"}])}' \
		"$ROOT/tests/fixtures/openai/responses_nonstream_function_call.json"
done | jq -s -c '{routes: {"POST /v1/responses": (. + [{}])}}' > "$TMP/loop-script.json"

reset="curl -s -o /dev/null --data-binary @$TMP/loop-script.json $MOCK_URL/__mock/script"
loop="$reset && ai-loop -n --file $TMP/loop-notes.txt 'count the TODO lines'"

# the bodies ai-loop sends, for curl to send the same
sh -c "$loop" >/dev/null
curl -s "$MOCK_URL/__mock/requests" > "$TMP/loop-requests.ndjson"
i=0
while IFS= read -r req; do
	i=$((i + 1))
	printf '%s' "$req" | jq -j .body > "$TMP/loop-body.$i"
done < "$TMP/loop-requests.ndjson"
curls="$reset"
for i in $(seq 1 "$i"); do
	curls="$curls && curl -s -o /dev/null -H 'Authorization: Bearer $OPENAI_API_KEY' \
-H 'Content-Type: application/json' --data-binary @$TMP/loop-body.$i $MOCK_URL/v1/responses"
done

o=$(m sh -c "$loop")
b=$(m sh -c "$curls")
ot=$(python3 "$BENCH/treerss.py" sh -c "$loop")
bt=$(python3 "$BENCH/treerss.py" sh -c "$curls")
echo "$o|$b|$ot|$bt" | awk -F'|' -v n="$i" '{
	split($1, o, " "); split($2, b, " "); split($3, ot, " "); split($4, bt, " ")
	printf "ai-loop: %d steps (RSS: tree)|%s %s %s %d %d|curl x%d, same bodies|%s %s %s %d %d|%s\n",
	    n, o[1], o[2], o[3], ot[1], o[5], n, b[1], b[2], b[3], bt[1], b[5],
	    "tree RSS < 40 MiB (" ot[2] " processes at once)"
	printf "ai-loop: per step above the mock|%.2f 0 0 %d %d|mock latency, per step|%.2f 0 0 %d %d|< 15 ms per step\n",
	    (o[1] - b[1]) / n, o[4], o[5], b[1] / n, b[4], b[5]
}' >> "$TMP/rows"

rm -f "$TMP"/loop-*
unset AICLI_CONFIG OPENAI_BASE_URL OPENAI_API_KEY

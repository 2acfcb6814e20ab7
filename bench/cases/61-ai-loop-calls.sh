# ai-loop: the calls of one step run at the same time.  A step of two (and
# of four) execute calls that each fetch a URL the mock answers after 1 s,
# next to one curl of such a URL: about the same time means the calls
# overlapped (one after the other they would take 2 s, 4 s).

printf '{}\n' > "$TMP/calls-config.json"
chmod 600 "$TMP/calls-config.json"
export AICLI_CONFIG="$TMP/calls-config.json" OPENAI_BASE_URL="$MOCK_URL/v1" \
	OPENAI_API_KEY="sk-bench-0123456789abcdef"
unset AICLI_TIMEOUT AICLI_RETRIES AICLI_MODEL AICLI_PROVIDER AICLI_LIBEXEC

# calls_script N: the model calls execute N times (curl of /slowK), then answers.
calls_script() {
	k=0
	items='[]'
	while [ "$k" -lt "$1" ]; do
		k=$((k + 1))
		items=$(jq -c --arg id "c$k" --arg cmd "curl $MOCK_URL/slow$k" '. + [{id: ("fc_" + $id),
			type: "function_call", status: "completed", arguments: ({command: $cmd} | tojson),
			call_id: $id, name: "execute"}]' <<EOF2
$items
EOF2
)
	done
	jq -c --argjson items "$items" --argjson n "$1" '{routes: ({"POST /v1/responses":
		[{json: (.output = $items)}, {}]} + ([range(1; $n + 1) | {key: ("GET /slow\(.)"),
		value: [{body: "ok\n", delay_ms: 1000}]}] | from_entries))}' \
		"$ROOT/tests/fixtures/openai/responses_nonstream_function_call.json" > "$TMP/calls-$1.json"
}
calls_script 2
calls_script 4
printf '{"routes":{"GET /slow1":[{"body":"ok\\n","delay_ms":1000}]}}' > "$TMP/calls-curl.json"

post() { echo "curl -s -o /dev/null --data-binary @$1 $MOCK_URL/__mock/script"; }
two="$(post "$TMP/calls-2.json") && ai-loop -n --allow-url $MOCK_URL/ 'fetch them'"
four="$(post "$TMP/calls-4.json") && ai-loop -n --max-actions 4 --allow-url $MOCK_URL/ 'fetch them'"
one="$(post "$TMP/calls-curl.json") && curl -s -o /dev/null $MOCK_URL/slow1"

b=$(m sh -c "$one")
echo "ai-loop: a step of 2 calls of 1 s|$(m sh -c "$two")|curl: one request of 1 s|$b|about 1 s (2 s one by one)" >> "$TMP/rows"
echo "ai-loop: a step of 4 calls of 1 s|$(m sh -c "$four")|curl: one request of 1 s|$b|about 1 s (4 s one by one)" >> "$TMP/rows"

rm -f "$TMP"/calls-*
unset AICLI_CONFIG OPENAI_BASE_URL OPENAI_API_KEY

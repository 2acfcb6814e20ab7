#!/usr/bin/env bats
# ai-context: compaction of a transcript to a token budget, through the built
# binary.  The summarising tests run the real bin/ai-ask against the mock
# server; tests/ai-context/transcript.py generates transcripts and checks a
# compaction independently of ai-context's code.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	# no model, no configuration, no key unless a test gives one
	clean_env
	W="$BATS_TEST_TMPDIR"
	TR="$BATS_TEST_DIRNAME/ai-context/transcript.py"
	mkdir -p "$W/empty"
}

# A failed run writes one record, the error, and nothing else: its status,
# and the message its last line on stderr gives (so that the next tool in a
# pipe stops too).
only_error() {
	local last="${stderr##*$'\n'}"
	[ "${#lines[@]}" -eq 1 ] || { echo "stdout: $output"; return 1; }
	jq -e --argjson s "$1" --arg m "${last#ai-context: }" \
		'.type == "error" and .tool == "ai-context" and .exit == $s and .message == $m' <<<"$output"
}

# The estimate ai-context makes, computed independently.
tokens() { python3 "$TR" tokens "$1"; }

# A conversation: a big tool result, two search results, an unknown record,
# three turns (user messages at records 2, 6 and 11).
base_transcript() {
	{
		jq -nc '{type:"message",role:"system",content:"You are a careful assistant."}'
		jq -nc '{type:"message",role:"user",content:"Count the lines of notes.md"}'
		jq -nc '{type:"tool_call",id:"c1",name:"execute",arguments:{command:"wc -l notes.md"}}'
		jq -nc '{type:"tool_result",id:"c1",name:"execute",ok:true,
			stdout_text:([range(1;401)|"line \(.) of notes.md: some words here"]|join("\n")+"\n"),
			stderr_text:"warn 1\nwarn 2\nwarn 3\n",exit_code:0,total_bytes:16000,
			next_start:null,truncated:false,cache_hit:false}'
		jq -nc '{type:"message",role:"assistant",content:"notes.md has 400 lines."}'
		jq -nc '{type:"message",role:"user",content:"Search the web for mandoc lint"}'
		jq -nc '{type:"search_result",query:"mandoc lint",rank:1,title:"mandoc(1)",
			url:"https://man.openbsd.org/mandoc.1",snippet:("format and display manuals " * 12),
			provider:"brave",date:"2024-01-01"}'
		jq -nc '{type:"search_result",query:"mandoc lint",rank:2,title:"mandoc lint howto",
			url:"https://example.org/lint",snippet:("run mandoc -Tlint " * 12),provider:"brave"}'
		jq -nc '{type:"message",role:"assistant",content:"mandoc -Tlint checks pages."}'
		jq -nc '{type:"x_note",text:"kept as is"}'
		jq -nc '{type:"message",role:"user",content:"Thanks. What next?"}'
		jq -nc '{type:"message",role:"assistant",content:"Write the man page."}'
	} > "$1"
}

# turns N: N turns of a question and its answer, about 60 tokens each
turns() {
	local i
	for i in $(seq 1 "$1"); do
		jq -nc --argjson i "$i" '{type:"message",role:"user",content:("question \($i) " * 20)}'
		jq -nc --argjson i "$i" '{type:"message",role:"assistant",content:("answer \($i) " * 20)}'
	done
}

# ---- no compaction -------------------------------------------------------------

@test "at or under 80% of the budget the output is the input, byte for byte" {
	base_transcript "$W/in"
	# CR LF, a blank line, spacing and escapes that a rewrite would change
	printf '{ "type" : "message", "role":"user", "content":"caf\\u00e9"}\r\n\n' >> "$W/in"
	t=$(tokens "$W/in")
	budget=$(( (t * 5 + 3) / 4 ))
	run --separate-stderr ai-context --budget "$budget" --keep 0 < "$W/in"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# $output loses the final newline; compare the bytes through a file
	ai-context --budget "$budget" --keep 0 < "$W/in" > "$W/out"
	cmp "$W/in" "$W/out"
}

@test "one token over 80% of the budget, it compacts" {
	base_transcript "$W/in"
	t=$(tokens "$W/in")
	budget=$(( (t * 5 + 3) / 4 - 1 ))
	[ $(( t * 5 )) -gt $(( budget * 4 )) ]
	ai-context --no-summarize --budget "$budget" --keep 1 < "$W/in" > "$W/out"
	! cmp -s "$W/in" "$W/out"
	[ "$(tokens "$W/out")" -le $(( budget * 4 / 5 )) ]
}

@test "an empty transcript comes out empty" {
	run --separate-stderr ai-context --budget 100 < /dev/null
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
}

# ---- the estimate --------------------------------------------------------------

@test "tokens are characters / 4, a multibyte character counting once" {
	jq -nc '{type:"message",role:"user",content:("é" * 400)}' > "$W/in"
	# 45 characters of JSON around 400 é (800 bytes): 445 / 4, rounded up, is 112
	[ "$(wc -c < "$W/in")" -eq 846 ]
	run --separate-stderr ai-context --stats < "$W/in"
	[ "$status" -eq 0 ]
	[ "${stderr_lines[0]}" = "ai-context: tokens: 112 before, 112 after (budget 32000, compacts above 25600)" ]
	[ "${stderr_lines[2]}" = "ai-context: estimate: characters / 4" ]
}

@test "a usage record calibrates the estimate: input_tokens against the records before its answer" {
	# the question is 400 characters (100 by the estimate); the model counted 200
	q=$(printf 'x%.0s' $(seq 1 355))
	{
		jq -nc --arg q "$q" '{type:"message",role:"user",content:$q}'
		jq -nc '{type:"message",role:"assistant",content:"an answer that is not counted in the calibration"}'
		jq -nc '{type:"usage",model:"m",input_tokens:200,cached_tokens:0,output_tokens:9,calls:1,weighted_tokens:236}'
	} > "$W/in"
	[ "$(head -1 "$W/in" | tr -d '\n' | wc -c)" -eq 400 ]
	run --separate-stderr ai-context --stats < "$W/in"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"estimate: characters / 4 x 2.000 (the usage record on line 3)"* ]]
	# all visible characters times 2 / 4
	chars=$(head -2 "$W/in" | tr -d '\n' | wc -m)
	[[ "$stderr" == *"tokens: $(( (chars * 2 + 3) / 4 )) before"* ]]
	# the calibrated estimate decides: 80% of this budget holds the raw estimate, not the calibrated one
	budget=$(( chars / 4 * 5 / 4 + 10 ))
	ai-context --no-summarize --keep 0 --budget "$budget" < "$W/in" > "$W/out" || true
	! cmp -s "$W/in" "$W/out"
}

@test "a usage record of several calls (a total) or of estimated counts does not calibrate; the factor is bounded" {
	jq -nc '{type:"message",role:"user",content:("y" * 400)}' > "$W/in"
	jq -nc '{type:"usage",model:"m",input_tokens:5000,output_tokens:1,calls:4}' >> "$W/in"
	run --separate-stderr ai-context --stats < "$W/in"
	[ "${stderr_lines[2]}" = "ai-context: estimate: characters / 4" ]
	# counts a server did not report but ai-ask estimated measure nothing
	jq -nc '{type:"usage",model:"m",input_tokens:50,output_tokens:1,calls:1,estimated:true}' >> "$W/in"
	run --separate-stderr ai-context --stats < "$W/in"
	[ "${stderr_lines[2]}" = "ai-context: estimate: characters / 4" ]
	jq -nc '{type:"usage",model:"m",input_tokens:100000,output_tokens:1,calls:1}' >> "$W/in"
	run --separate-stderr ai-context --stats < "$W/in"
	[[ "$stderr" == *"estimate: characters / 4 x 4.000 (the usage record on line 4)"* ]]
}

# ---- digests and trimmed search results -----------------------------------------

@test "a tool result outside the window becomes a digest: last lines of stdout and stderr, exit code, truncated" {
	base_transcript "$W/in"
	run --separate-stderr ai-context --no-summarize --budget 2000 --keep 1 < "$W/in"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$W/out"
	# only the tool result changed: same number of records, everything else verbatim
	[ "$(wc -l < "$W/out")" -eq 12 ]
	diff <(sed 4d "$W/in") <(sed 4d "$W/out")
	d=$(sed -n 4p "$W/out")
	[ "$(jq -j '.stdout_text' <<<"$d" | wc -l)" -eq 10 ]
	jq -e '.stdout_text | startswith("line 391 of notes.md") and endswith("line 400 of notes.md: some words here\n")' <<<"$d"
	jq -e '.stderr_text == "warn 1\nwarn 2\nwarn 3\n"' <<<"$d"
	jq -e '.type == "tool_result" and .id == "c1" and .name == "execute" and .ok == true' <<<"$d"
	jq -e '.exit_code == 0 and .truncated == true and .total_bytes == 16000' <<<"$d"
	# members keep their order
	[ "$(jq -c 'keys_unsorted' <<<"$d")" = '["type","id","name","ok","stdout_text","stderr_text","exit_code","total_bytes","next_start","truncated","cache_hit"]' ]
}

@test "--tail-lines sets the lines a digest keeps; 0 keeps none" {
	base_transcript "$W/in"
	ai-context --no-summarize --budget 2000 --keep 1 --tail-lines 3 < "$W/in" > "$W/out"
	sed -n 4p "$W/out" | jq -e '.stdout_text == "line 398 of notes.md: some words here\nline 399 of notes.md: some words here\nline 400 of notes.md: some words here\n"'
	ai-context --no-summarize --budget 2000 --keep 1 --tail-lines 0 < "$W/in" > "$W/out"
	sed -n 4p "$W/out" | jq -e '.stdout_text == "" and .stderr_text == "" and .truncated == true'
}

@test "a digest keeps at most 4 KiB of one long line and never cuts a character" {
	{
		jq -nc '{type:"message",role:"user",content:"go"}'
		jq -nc '{type:"tool_call",id:"c1",name:"execute",arguments:{}}'
		jq -nc '{type:"tool_result",id:"c1",name:"execute",ok:true,stdout_text:("aé" * 5000),exit_code:0}'
		jq -nc '{type:"message",role:"user",content:"next"}'
	} > "$W/in"
	ai-context --no-summarize --budget 1000 --keep 1 < "$W/in" > "$W/out"
	d=$(sed -n 3p "$W/out")
	n=$(jq -j '.stdout_text' <<<"$d" | wc -c)
	[ "$n" -le 4096 ] && [ "$n" -ge 4090 ]
	jq -e '(.stdout_text | endswith("aéaé")) and .truncated == true' <<<"$d"
	# still strict UTF-8: ai-context reads its own output
	ai-context --budget 1000 --keep 1 < "$W/out" > /dev/null
}

@test "search results outside the window keep only query, rank, title and url" {
	{
		jq -nc '{type:"message",role:"user",content:"find it"}'
		for i in 1 2 3 4 5 6; do
			jq -nc --argjson i "$i" '{type:"search_result",query:"q",rank:$i,title:"T\($i)",
				url:"https://example.com/\($i)",snippet:("words " * 80),provider:"brave",date:"2024"}'
		done
		jq -nc '{type:"message",role:"assistant",content:"found"}'
		jq -nc '{type:"message",role:"user",content:"thanks"}'
	} > "$W/in"
	# trimming all six is just enough
	ai-context --no-summarize --budget 250 --keep 1 < "$W/in" > "$W/out"
	[ "$(wc -l < "$W/out")" -eq 9 ]
	sed -n 2,7p "$W/out" | jq -se 'all(keys_unsorted == ["type","query","rank","title","url"])'
	sed -n 2,7p "$W/out" | jq -se 'map(.rank) == [1,2,3,4,5,6]'
	diff <(sed -n '1p;8,9p' "$W/in") <(sed -n '1p;8,9p' "$W/out")
}

@test "secret-looking strings in tool output are redacted in digests, configured keys too" {
	{
		jq -nc '{type:"message",role:"user",content:"show env"}'
		jq -nc '{type:"tool_call",id:"c1",name:"execute",arguments:{command:"cat .env"}}'
		jq -nc '{type:"tool_result",id:"c1",name:"execute",ok:true,exit_code:0,
			stdout_text:(([range(1;200)|"filler line \(.)"]|join("\n")) +
			"\nOPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123\nAuthorization: Bearer abcdefghijklmnop1234\nurl https://bob:hunter22@example.com/x\nghp_0123456789abcdefghijABCDEFGHIJ\nmy own odd value: zq-odd-key-value-42\nsession eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk\n"),
			stderr_text:"password=swordfish99\n"}'
		jq -nc '{type:"message",role:"user",content:"next"}'
	} > "$W/in"
	OPENAI_API_KEY=zq-odd-key-value-42 ai-context --no-summarize --budget 500 --keep 1 < "$W/in" > "$W/out"
	d=$(sed -n 3p "$W/out")
	for s in sk-proj-abcdefghijklmnopqrstuvwxyz0123 abcdefghijklmnop1234 hunter22 \
		ghp_0123456789abcdefghijABCDEFGHIJ swordfish99 zq-odd-key-value-42 \
		dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk; do
		! grep -q -- "$s" "$W/out" || { echo "leaked: $s"; false; }
	done
	jq -e '.stdout_text | contains("OPENAI_API_KEY=[REDACTED]") and contains("my own odd value: [REDACTED]")' <<<"$d"
	jq -e '.stderr_text == "password=[REDACTED]\n"' <<<"$d"
}

# ---- what is always kept --------------------------------------------------------

@test "system messages, unknown record types and result records pass through unchanged, in order" {
	{
		jq -nc '{type:"message",role:"system",content:"rule one"}'
		for i in $(seq 1 30); do
			jq -nc --argjson i "$i" '{type:"message",role:"user",content:("question \($i) " * 20)}'
			jq -nc --argjson i "$i" '{type:"message",role:"assistant",content:("answer \($i) " * 20)}'
			if [ $((i % 10)) -eq 0 ]; then
				jq -nc --argjson i "$i" '{type:"message",role:"system",content:"rule \($i)"}'
				jq -nc --argjson i "$i" '{type:"x_future",payload:{n:$i,deep:[1,{"a":"b"}]}}'
				jq -nc '{type:"result",status:"ok",stop_reason:"answer",steps:1,calls:1}'
			fi
		done
	} > "$W/in"
	ai-context --no-summarize --budget 500 --keep 2 < "$W/in" > "$W/out"
	diff <(grep -E '"role":"system"|"type":"(x_future|result)"' "$W/in") \
		<(grep -E '"role":"system"|"type":"(x_future|result)"' "$W/out")
	python3 "$TR" check "$W/in" "$W/out" --budget 500 --keep 2
}

@test "the recent window is verbatim: --keep counts turns" {
	turns 12 > "$W/in"
	ai-context --no-summarize --budget 1000 --keep 3 < "$W/in" > "$W/out"
	diff <(tail -6 "$W/in") <(tail -6 "$W/out")
	ai-context --no-summarize --budget 100 --keep 3 < "$W/in" > "$W/out" || true
	diff <(tail -6 "$W/in") <(tail -6 "$W/out")
	# the default is the last 5 turns
	ai-context --no-summarize --budget 100 < "$W/in" > "$W/out" || true
	diff <(tail -10 "$W/in") <(tail -10 "$W/out")
	[ "$(wc -l < "$W/out")" -eq 11 ]
	# --keep 0: nothing is protected
	ai-context --no-summarize --budget 100 --keep 0 < "$W/in" > "$W/out"
	[ "$(wc -l < "$W/out")" -lt 10 ]
}

@test "in an agent loop a turn is one step: the window keeps the last tool rounds" {
	{
		jq -nc '{type:"message",role:"user",content:"What is open in notes.md?"}'
		for i in $(seq 1 8); do
			jq -nc --argjson i "$i" '{type:"tool_call",id:"c\($i)",name:"execute",arguments:{command:"step \($i)"}}'
			jq -nc --argjson i "$i" '{type:"tool_result",id:"c\($i)",name:"execute",ok:true,exit_code:0,
				stdout_text:([range(0;60)|"out \($i) \(.)"]|join("\n"))}'
		done
		jq -nc '{type:"message",role:"assistant",content:"Two tasks are open."}'
	} > "$W/in"
	ai-context --no-summarize --budget 1000 --keep 2 < "$W/in" > "$W/out"
	# the last step (c8 and its result) and the answer are verbatim
	diff <(tail -3 "$W/in") <(tail -3 "$W/out")
	# the earlier results are digests
	grep '"id":"c1"' "$W/out" | grep -q tool_result && \
		grep '"type":"tool_result","id":"c1"' "$W/out" | jq -e '.truncated == true'
}

# ---- dropping ----------------------------------------------------------------------

@test "--no-summarize drops the oldest records behind a note saying how many, only as many as needed" {
	base_transcript "$W/in"
	run --separate-stderr ai-context --no-summarize --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	printf '%s\n' "$output" > "$W/out"
	[ "$(sed -n 1p "$W/out")" = "$(sed -n 1p "$W/in")" ]
	[ "$(sed -n 2p "$W/out")" = '{"type":"summary","content":"6 earlier records were dropped to fit the token budget.","key_facts":[],"open_tasks":[],"replaces":6}' ]
	# the second search result survives, trimmed, then the rest verbatim
	sed -n 3p "$W/out" | jq -e '.rank == 2 and (has("snippet") | not)'
	diff <(sed -n '9,12p' "$W/in") <(sed -n '4,7p' "$W/out")
	[ "$(wc -l < "$W/out")" -eq 7 ]
	# a smaller budget drops everything it may
	ai-context --no-summarize --budget 100 --keep 1 < "$W/in" > "$W/out"
	sed -n 2p "$W/out" | jq -e '.replaces == 8'
	diff <(sed -n '10,12p' "$W/in") <(sed -n '3,5p' "$W/out")
}

@test "a tool call and its results are dropped together, parallel calls too" {
	{
		jq -nc '{type:"message",role:"user",content:"go"}'
		for i in $(seq 1 6); do
			jq -nc --argjson i "$i" '{type:"tool_call",id:"a\($i)",name:"execute",arguments:{n:$i}}'
			jq -nc --argjson i "$i" '{type:"tool_call",id:"b\($i)",name:"execute",arguments:{n:$i}}'
			jq -nc --argjson i "$i" '{type:"tool_result",id:"a\($i)",name:"execute",ok:true,stdout_text:("a" * 300)}'
			jq -nc --argjson i "$i" '{type:"tool_result",id:"b\($i)",name:"execute",ok:true,stdout_text:("b" * 300)}'
		done
		jq -nc '{type:"message",role:"assistant",content:"done"}'
	} > "$W/in"
	for b in 300 500 700 900; do
		ai-context --no-summarize --budget "$b" --keep 1 --tail-lines 1 < "$W/in" > "$W/out" || true
		calls=$(jq -r 'select(.type == "tool_call") | .id' "$W/out" | sort)
		results=$(jq -r 'select(.type == "tool_result") | .id' "$W/out" | sort)
		[ "$calls" = "$results" ]
		python3 "$TR" check "$W/in" "$W/out" --budget "$b" --keep 1 --tail-lines 1
	done
}

@test "a tool call outside the window whose result is inside it stays, with its result" {
	{
		jq -nc '{type:"message",role:"user",content:("old question " * 40)}'
		jq -nc '{type:"tool_call",id:"x1",name:"execute",arguments:{command:"slow"}}'
		jq -nc '{type:"message",role:"user",content:"new question"}'
		jq -nc '{type:"tool_result",id:"x1",name:"execute",ok:true,stdout_text:"late"}'
		jq -nc '{type:"message",role:"assistant",content:"ok"}'
	} > "$W/in"
	# --keep 2: the window starts at the new question, the result is inside
	ai-context --no-summarize --budget 100 --keep 2 < "$W/in" > "$W/out"
	diff <(sed -n '2,5p' "$W/in") <(sed -n '2,5p' "$W/out")
	sed -n 1p "$W/out" | jq -e '.type == "summary" and .replaces == 1'
}

@test "an earlier drop note is merged into the new one; an earlier summary is kept" {
	{
		jq -nc '{type:"summary",content:"We chose make.",key_facts:["make"],open_tasks:["docs"],replaces:12}'
		jq -nc '{type:"summary",content:"7 earlier records were dropped to fit the token budget.",key_facts:[],open_tasks:[],replaces:7}'
		turns 10
	} > "$W/in"
	ai-context --no-summarize --budget 300 --keep 1 < "$W/in" > "$W/out"
	[ "$(sed -n 1p "$W/out")" = "$(sed -n 1p "$W/in")" ]
	[ "$(sed -n 2p "$W/out")" = '{"type":"summary","content":"25 earlier records were dropped to fit the token budget.","key_facts":[],"open_tasks":[],"replaces":25}' ]
	[ "$(grep -c '"type":"summary"' "$W/out")" -eq 2 ]
}

@test "with no ai-ask to run, records are dropped with a warning" {
	base_transcript "$W/in"
	AICLI_LIBEXEC="$W/empty" run --separate-stderr ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ai-context: warning: no model is configured ('ai-ask' not found); dropping the oldest records instead of summarising them" ]
	[[ "$output" == *'"content":"6 earlier records were dropped to fit the token budget."'* ]]
}

@test "-m with no ai-ask to run is an error: exit 69, only the error record written" {
	base_transcript "$W/in"
	AICLI_LIBEXEC="$W/empty" run --separate-stderr ai-context -m gpt-4.1 --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 69 ]
	only_error "$status"
	[ "$stderr" = "ai-context: cannot summarise: 'ai-ask' not found (looked in \$AICLI_LIBEXEC)" ]
}

# ---- the budget cannot be met ----------------------------------------------------

@test "a budget the kept part alone exceeds: the smallest transcript, a warning, exit 3" {
	{
		jq -nc '{type:"message",role:"system",content:("a long system prompt " * 40)}'
		jq -nc '{type:"message",role:"user",content:"old"}'
		jq -nc '{type:"message",role:"assistant",content:"old answer"}'
		jq -nc '{type:"message",role:"user",content:"now"}'
	} > "$W/in"
	run --separate-stderr ai-context --no-summarize --budget 100 --keep 1 < "$W/in"
	[ "$status" -eq 3 ]
	[[ "$stderr" == "ai-context: warning: the transcript needs about "*" tokens, more than the budget of 100, even with only the system messages, the last 1 turns and what cannot be removed" ]]
	printf '%s\n' "$output" > "$W/out"
	[ "$(wc -l < "$W/out")" -eq 3 ]
	diff <(sed -n '1p;4p' "$W/in") <(sed -n '1p;3p' "$W/out")
	# again: the same transcript, the same status
	run --separate-stderr ai-context --no-summarize --budget 100 --keep 1 < "$W/out"
	[ "$status" -eq 3 ]
	[ "$output" = "$(cat "$W/out")" ]
}

# ---- idempotence and generated transcripts ----------------------------------------------

@test "compacting a compacted transcript changes nothing" {
	base_transcript "$W/in"
	for b in 100 200 500 1000 2000 5000; do
		for k in 0 1 2 5; do
			s1=0; s2=0
			ai-context --no-summarize --budget "$b" --keep "$k" < "$W/in" > "$W/o1" || s1=$?
			ai-context --no-summarize --budget "$b" --keep "$k" < "$W/o1" > "$W/o2" || s2=$?
			cmp "$W/o1" "$W/o2"
			[ "$s1" -eq "$s2" ]
		done
	done
}

@test "generated transcripts of many shapes: budget met, pairs intact, window and system messages verbatim, order kept, idempotent" {
	for shape in chat agent mixed summaries cjk secrets; do
		python3 "$TR" gen --shape "$shape" --seed 3 --turns 40 > "$W/in"
		for b in 300 2000 8000 40000; do
			for k in 1 4; do
				s=0
				ai-context --no-summarize --budget "$b" --keep "$k" < "$W/in" > "$W/out" || s=$?
				[ "$s" -eq 0 ] || [ "$s" -eq 3 ]
				python3 "$TR" check "$W/in" "$W/out" --budget "$b" --keep "$k" --status "$s" >/dev/null ||
					{ echo "shape $shape budget $b keep $k"; false; }
				s2=0
				ai-context --no-summarize --budget "$b" --keep "$k" < "$W/out" > "$W/out2" || s2=$?
				cmp "$W/out" "$W/out2" && [ "$s" -eq "$s2" ] ||
					{ echo "not idempotent: shape $shape budget $b keep $k"; false; }
			done
		done
	done
}

@test "secrets in generated tool output do not survive compaction" {
	python3 "$TR" gen --shape secrets --seed 5 --turns 30 > "$W/in"
	grep -q sk-proj-abcdefghijklmnopqrstuvwxyz012345 "$W/in"
	ai-context --no-summarize --budget 3000 --keep 0 < "$W/in" > "$W/out"
	! grep -Eq 'sk-proj-abcdefghijklmnopqrstuvwxyz012345|ghp_0123456789abcdefghijABCDEFGHIJ|AKIAABCDEFGHIJKLMNOP' "$W/out"
}

# ---- --stats ----------------------------------------------------------------------------

@test "--stats reports tokens and records before and after on stderr, and changes nothing on stdout" {
	base_transcript "$W/in"
	ai-context --no-summarize --budget 200 --keep 1 < "$W/in" > "$W/plain"
	run --separate-stderr ai-context --no-summarize --budget 200 --keep 1 --stats < "$W/in"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$W/plain")" ]
	before=$(tokens "$W/in")
	[ "${stderr_lines[0]}" = "ai-context: tokens: $before before, $(tokens "$W/plain") after (budget 200, compacts above 160)" ]
	[ "${stderr_lines[1]}" = "ai-context: records: 12 before, 7 after (digested 0, trimmed 1, folded 0, dropped 6, stale usage 0)" ]
	[ "${stderr_lines[2]}" = "ai-context: estimate: characters / 4" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
}

# ---- bad input, bad command lines, output errors ------------------------------------------

@test "a malformed line: exit 65, the line named, only the error record on stdout" {
	base_transcript "$W/good"
	while IFS='|' read -r bad want; do
		{ head -3 "$W/good"; printf '%s\n' "$bad"; tail -2 "$W/good"; } > "$W/in"
		run --separate-stderr ai-context --no-summarize --budget 100 < "$W/in"
		[ "$status" -eq 65 ] || { echo "$bad: exit $status"; false; }
		only_error "$status"
		[[ "$stderr" == "ai-context: line 4: $want"* ]] || { echo "$bad: $stderr"; false; }
	done <<'EOF'
{"type":"message","role":"user","content":"x"|column 46: unexpected end of input
["not","an","object"]|a record must be a JSON object
{"role":"user","content":"no type"}|a record needs a string "type"
{"type":1}|a record needs a string "type"
{"type":"message","type":"message"}|duplicate key 'type'
{"type":"message","content":"x"} trailing|column 34: trailing data after the JSON value
{"type":"message","content":01}|column 30: leading zero in number
{"type":"message","content":"tab	in string"}|column 33: control character in string
{"type":"message","content":"\u0000"}|column 36: \u0000 in a string is not supported
EOF
}

@test "invalid UTF-8 in a record: exit 65 naming the line" {
	{ printf '{"type":"message","role":"user","content":"ok"}\n'; printf '{"type":"message","role":"user","content":"\xff"}\n'; } > "$W/in"
	run --separate-stderr ai-context --budget 100 < "$W/in"
	[ "$status" -eq 65 ]
	only_error "$status"
	[ "$stderr" = "ai-context: standard input is not UTF-8 text: byte 0xff at offset 91 (line 2); convert it to UTF-8 first (iconv)" ]
}

@test "plain text is not a transcript: exit 65 naming line 1" {
	run --separate-stderr ai-context < "$BATS_TEST_DIRNAME/readme/notes.md"
	[ "$status" -eq 65 ]
	only_error "$status"
	[[ "$stderr" == "ai-context: line 1: "* ]]
}

@test "a line longer than 16 MiB: exit 65 naming it" {
	{ echo '{"type":"message","role":"user","content":"a"}'
	  printf '{"type":"message","role":"user","content":"'; head -c 17000000 /dev/zero | tr '\0' a; echo '"}'; } > "$W/in"
	run --separate-stderr ai-context < "$W/in"
	[ "$status" -eq 65 ]
	only_error "$status"
	[ "$stderr" = "ai-context: line 2 is longer than the limit of 16777216 bytes" ]
}

@test "bad command lines: exit 64, the reason, nothing on stdout" {
	while IFS='|' read -r args want; do
		run --separate-stderr ai-context $args < /dev/null
		[ "$status" -eq 64 ] || { echo "$args: exit $status"; false; }
		[ -z "$output" ]
		[[ "$stderr" == *"$want"* ]] || { echo "$args: $stderr"; false; }
		[[ "$stderr" == *"try 'ai-context --help'"* ]]
	done <<'EOF'
chat.ndjson|unexpected argument 'chat.ndjson'
--budget 0|budget
--budget 12k|budget
--budget 99|budget
--keep -1|keep
--tail-lines x|tail-lines
--timeout 0|timeout
EOF
}

@test "a bad setting is a configuration error: exit 78, only the error record on stdout" {
	base_transcript "$W/in"
	AICLI_TIMEOUT=soon run --separate-stderr ai-context --budget 100 < "$W/in"
	[ "$status" -eq 78 ]
	only_error "$status"
	[ "$stderr" = "ai-context: \$AICLI_TIMEOUT: 'soon' is not a number of seconds from 0.001 to 86400" ]
	printf '{"timeout": "0"}\n' > "$W/config.json"
	AICLI_CONFIG="$W/config.json" run --separate-stderr ai-context --budget 100 < "$W/in"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-context: config file '$W/config.json': timeout: '0' is not a number of seconds from 0.001 to 86400" ]
	printf '{"nonsense": 1}\n' > "$W/config.json"
	AICLI_CONFIG="$W/config.json" run --separate-stderr ai-context --budget 100 < "$W/in"
	[ "$status" -eq 78 ]
	only_error "$status"
	[[ "$stderr" == *"unknown key 'nonsense'"* ]]
	# the config file's "libexec" is named when ai-ask is not there
	printf '{"libexec": "%s"}\n' "$W/empty" > "$W/config.json"
	AICLI_CONFIG="$W/config.json" run --separate-stderr ai-context -m x --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 69 ]
	[ "$stderr" = "ai-context: cannot summarise: 'ai-ask' not found (looked in the directory \"libexec\" of the config file names)" ]
}

@test "a transcript is not waited for on a terminal" {
	run timeout 5 script -qec "$BATS_TEST_DIRNAME/../bin/ai-context" /dev/null
	[ "$status" -eq 64 ]
	[[ "$output" == *"standard input is a terminal"* ]]
}

@test "an output that cannot be written: exit 74" {
	python3 "$TR" gen --shape chat --seed 1 --turns 200 > "$W/in"
	run --separate-stderr bash -c 'ai-context --no-summarize --budget 1000000 < "$1" > /dev/full' _ "$W/in"
	[ "$status" -eq 74 ]
	[ -z "$output" ]
	[ "$stderr" = "ai-context: write error: No space left on device" ]
}

@test "the reader of stdout going away ends it quietly" {
	python3 "$TR" gen --shape chat --seed 1 --turns 3000 > "$W/in"
	run bash -c 'ai-context --budget 100000000 < "$1" 2>"$2" | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$W/in" "$W/err"
	[ "$output" = 141 ]
	[ ! -s "$W/err" ]
}

# ---- summaries, by the real bin/ai-ask against the mock -----------------------------

# model_env: ai-ask talks to the mock, without retries (a failure is final at once)
model_env() {
	export OPENAI_API_KEY=sk-test-0123456789abcdefghij OPENAI_BASE_URL="$MOCK_URL/v1" AICLI_RETRIES=0
}

# answer_with JSON: the next Responses request gets the recorded capture with
# JSON as the answer's text
answer_with() {
	jq --arg t "$1" '.output[0].content[0].text = $t' \
		"$MOCK_FIXTURES/openai/responses_nonstream_text.json" > "$W/answer.json"
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"file\":\"$W/answer.json\"}]}}"
}

SUMMARY='{"content":"The user counted the lines of notes.md (400) and looked up mandoc -Tlint.","key_facts":["notes.md has 400 lines","mandoc -Tlint checks man pages"],"open_tasks":["write the man page"]}'

@test "summary: the request carries the folded records, not the recent window" {
	base_transcript "$W/in"
	model_env
	answer_with "$SUMMARY"
	ai-context --budget 200 --keep 1 < "$W/in" > "$W/out"
	[ "$(mock_count)" -eq 1 ]
	req=$(mock_request 1)
	jq -e '.path == "/v1/responses"' <<<"$req"
	text=$(jq -r '.json.input[0].content' <<<"$req")
	for folded in "user:"$'\n'"Count the lines of notes.md" \
		'tool call execute (id c1): {"command":"wc -l notes.md"}' \
		"line 400 of notes.md: some words here" "warn 3" \
		"user:"$'\n'"Search the web for mandoc lint" \
		'search result 1 for "mandoc lint": mandoc(1) <https://man.openbsd.org/mandoc.1>' \
		"assistant:"$'\n'"mandoc -Tlint checks pages."; do
		[[ "$text" == *"$folded"* ]] || { echo "missing: $folded"; false; }
	done
	# the window, the system message and the unknown record are not summarised
	for kept in "Thanks. What next?" "Write the man page." "You are a careful assistant." "kept as is"; do
		[[ "$text" != *"$kept"* ]] || { echo "sent: $kept"; false; }
	done
	# tool output goes as its digest: the last 10 lines, not the 400
	[[ "$text" == *"line 391 of notes.md"* ]]
	[[ "$text" != *"line 390 of notes.md"* ]]
	# the instruction, the system prompt and the schema
	[[ "$text" == *"Summarise the conversation above so that the summary can replace it."* ]]
	jq -e '.json.instructions | startswith("You compact conversations")' <<<"$req"
	jq -e '.json.text.format.type == "json_schema" and
		.json.text.format.schema.required == ["content","key_facts","open_tasks"]' <<<"$req"
}

@test "summary: the summary record carries the model's answer and what it replaces" {
	base_transcript "$W/in"
	model_env
	answer_with "$SUMMARY"
	run --separate-stderr ai-context --budget 200 --keep 1 --stats < "$W/in"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$W/out"
	[ "$(wc -l < "$W/out")" -eq 5 ]
	[ "$(sed -n 1p "$W/out")" = "$(sed -n 1p "$W/in")" ]
	sed -n 2p "$W/out" | jq -e --argjson s "$SUMMARY" \
		'. == {type:"summary",content:$s.content,key_facts:$s.key_facts,open_tasks:$s.open_tasks,replaces:8}'
	# keys in the protocol's order
	[ "$(sed -n 2p "$W/out" | jq -c keys_unsorted)" = '["type","content","key_facts","open_tasks","replaces"]' ]
	diff <(sed -n '10,12p' "$W/in") <(sed -n '3,5p' "$W/out")
	[ "${stderr_lines[1]}" = "ai-context: records: 12 before, 5 after (digested 0, trimmed 0, folded 8, dropped 0, stale usage 0)" ]
	[ "${stderr_lines[3]}" = "ai-context: summary: 11 input tokens, 5 output tokens, 1 call" ]
	python3 "$TR" check "$W/in" "$W/out" --budget 200 --keep 1
}

@test "summary: an earlier summary goes to the model and its count is carried on" {
	{
		jq -nc '{type:"summary",content:"We chose make over cmake.",key_facts:["the build uses make"],open_tasks:["write docs"],replaces:12}'
		turns 8
	} > "$W/in"
	model_env
	answer_with '{"content":"merged","key_facts":["the build uses make"],"open_tasks":["write docs"]}'
	ai-context --budget 300 --keep 1 < "$W/in" > "$W/out"
	text=$(mock_request 1 | jq -r '.json.input[0].content')
	[[ "$text" == "Earlier summary:"$'\n'"We chose make over cmake."$'\n'"Key facts:"$'\n'"- the build uses make"$'\n'"Open tasks:"$'\n'"- write docs"* ]]
	# 12 from the earlier summary and 14 messages
	sed -n 1p "$W/out" | jq -e '.type == "summary" and .content == "merged" and .replaces == 26'
	[ "$(grep -c '"type":"summary"' "$W/out")" -eq 1 ]
	diff <(tail -2 "$W/in") <(tail -2 "$W/out")
}

@test "summary: compacting the summarised transcript again asks nothing and changes nothing" {
	base_transcript "$W/in"
	model_env
	answer_with "$SUMMARY"
	ai-context --budget 200 --keep 1 < "$W/in" > "$W/o1"
	ai-context --budget 200 --keep 1 < "$W/o1" > "$W/o2"
	cmp "$W/o1" "$W/o2"
	[ "$(mock_count)" -eq 1 ]
	# also when the smallest transcript is over 80%: the lone summary is not summarised again
	ai-context --budget 120 --keep 1 < "$W/o1" > "$W/o3"
	cmp "$W/o1" "$W/o3"
	[ "$(mock_count)" -eq 1 ]
}

@test "summary: secrets in folded records never reach the model or the summary" {
	{
		jq -nc '{type:"message",role:"user",content:"my key is sk-proj-abcdefghijklmnopqrstuvwxyz0123, check it"}'
		jq -nc '{type:"tool_call",id:"c1",name:"execute",arguments:{command:"cat .env"}}'
		jq -nc '{type:"tool_result",id:"c1",name:"execute",ok:true,stdout_text:"GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ\nzq-odd-key-value-42\n"}'
		jq -nc '{type:"message",role:"assistant",content:("checked " * 100)}'
		jq -nc '{type:"message",role:"user",content:"next"}'
	} > "$W/in"
	model_env
	export OPENAI_API_KEY=zq-odd-key-value-42
	answer_with '{"content":"The key sk-proj-abcdefghijklmnopqrstuvwxyz0123 was checked.","key_facts":["token ghp_0123456789abcdefghijABCDEFGHIJ"],"open_tasks":[]}'
	ai-context --budget 150 --keep 1 < "$W/in" > "$W/out"
	req=$(mock_request 1 | jq -r '.json.input[0].content')
	for s in sk-proj-abcdefghijklmnopqrstuvwxyz0123 ghp_0123456789abcdefghijABCDEFGHIJ zq-odd-key-value-42; do
		[[ "$req" != *"$s"* ]] || { echo "sent: $s"; false; }
		! grep -q -- "$s" "$W/out" || { echo "written: $s"; false; }
	done
	sed -n 1p "$W/out" | jq -e '.content == "The key [REDACTED] was checked." and .key_facts == ["token [REDACTED]"]'
}

@test "summary: material larger than one call takes is summarised in parts; nothing is left out" {
	{
		jq -nc '{type:"summary",content:"EARLIER SUMMARY",key_facts:["fact zero"],open_tasks:[],replaces:3}'
		for i in $(seq 1 120); do
			jq -nc --argjson i "$i" '{type:"message",role:"user",content:("question \($i) " + ("x" * 400))}'
		done
	} > "$W/in"
	model_env
	# each part's summary names its part, so that the next part can be seen to merge it
	for k in 1 2 3 4 5 6; do
		jq -c --arg t "{\"content\":\"SUMMARY OF PART $k\",\"key_facts\":[\"fact $k\"],\"open_tasks\":[]}" \
			'.output[0].content[0].text = $t' "$MOCK_FIXTURES/openai/responses_nonstream_text.json"
	done | jq -s -c '{routes: {"POST /v1/responses": [.[] | {json: .}]}}' > "$W/script.json"
	mock_script_file "$W/script.json"
	# budget 100: at most 32 KiB of material a call
	ai-context --budget 100 --keep 1 --stats < "$W/in" > "$W/out" 2> "$W/err" || true
	n=$(mock_count)
	[ "$n" -ge 2 ]
	all=""
	for k in $(seq 1 "$n"); do
		text=$(mock_request "$k" | jq -r '.json.input[0].content')
		[ "${#text}" -le 33500 ]
		all="$all$text"
		# every part after the first starts with the summary of the parts before it
		if [ "$k" -gt 1 ]; then
			[[ "$text" == "Earlier summary:"$'\n'"SUMMARY OF PART $((k - 1))"$'\n'"Key facts:"$'\n'"- fact $((k - 1))"* ]]
		fi
	done
	# the first question, the last folded one, and the earlier summary all reached the model
	[[ "$(mock_request 1 | jq -r '.json.input[0].content')" == "Earlier summary:"$'\n'"EARLIER SUMMARY"* ]]
	for i in $(seq 1 119); do
		[[ "$all" == *"question $i x"* ]] || { echo "question $i left out"; false; }
	done
	[[ "$all" != *"left out]"* ]]
	# the last summary stands for everything folded
	sed -n 1p "$W/out" | jq -e --arg t "SUMMARY OF PART $n" '.content == $t and .replaces == 122'
	grep -q "ai-context: summary: .* output tokens, $n calls" "$W/err"
}

@test "summary: a 2 MB transcript: its first question reaches the summariser" {
	python3 - "$W/in" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(1, 601):
        f.write(json.dumps({"type": "message", "role": "user",
                            "content": "QUESTION-%d: %s" % (i, "why " * 700)}) + "\n")
        f.write(json.dumps({"type": "message", "role": "assistant",
                            "content": "answer %d: %s" % (i, "because " * 60)}) + "\n")
PY
	[ "$(stat -c %s "$W/in")" -gt 2000000 ]
	model_env
	jq -c --arg t "$SUMMARY" '.output[0].content[0].text = $t' \
		"$MOCK_FIXTURES/openai/responses_nonstream_text.json" > "$W/answer.json"
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"file\":\"$W/answer.json\"}]},\"repeat_last\":true}"
	run --separate-stderr ai-context --keep 2 < "$W/in"
	[ "$status" -eq 0 ]
	mock_request 1 | jq -e '.json.input[0].content | startswith("user:\nQUESTION-1: why why")'
	# and the last question before the kept turns reaches it too
	mock_requests | jq -s -e 'map(.json.input[0].content) | join("") | contains("QUESTION-598: why")'
	[ "$(mock_count)" -ge 2 ]
	[ "$(mock_count)" -le 32 ]
}

@test "summary: more parts than --max-calls is refused before any call: exit 3" {
	{
		for i in $(seq 1 120); do
			jq -nc --argjson i "$i" '{type:"message",role:"user",content:("question \($i) " + ("x" * 400))}'
		done
	} > "$W/in"
	model_env
	answer_with "$SUMMARY"
	run --separate-stderr ai-context --budget 100 --keep 1 --max-calls 1 < "$W/in"
	[ "$status" -eq 3 ]
	[[ "$stderr" == "ai-context: cannot summarise: the 119 records to fold need "*" summarising calls, more than --max-calls 1 (a larger --budget gives each call more)" ]]
	[ "$(mock_count)" -eq 0 ]
	only_error 3
}

@test "summary: -m and --provider go to ai-ask" {
	base_transcript "$W/in"
	model_env
	answer_with "$SUMMARY"
	ai-context -m gpt-test-model --budget 200 --keep 1 < "$W/in" > "$W/out"
	mock_request 1 | jq -e '.json.model == "gpt-test-model"'
	jq --arg t "$SUMMARY" '.choices[0].message.content = $t' \
		"$MOCK_FIXTURES/openai/chat_completions_nonstream_text.json" > "$W/chat.json"
	mock_script "{\"routes\":{\"POST /v1/chat/completions\":[{\"file\":\"$W/chat.json\"}]}}"
	ai-context --provider openai-chat --budget 200 --keep 1 < "$W/in" > "$W/out2"
	mock_request 1 | jq -e '.path == "/v1/chat/completions" and .json.response_format.type == "json_schema"'
	cmp "$W/out" "$W/out2"
}

@test "summary: a failing model: its message, its exit status, only the error record written" {
	base_transcript "$W/in"
	model_env
	mock_script '{"routes":{"POST /v1/responses":[{"status":500,"json":{"error":{"message":"boom"}}}]}}'
	run --separate-stderr ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 69 ]
	only_error "$status"
	[[ "${stderr_lines[0]}" == "ai-ask: "*"boom"* ]]
	[ "${stderr_lines[-1]}" = "ai-context: cannot summarise: 'ai-ask' failed (exit status 69)" ]
	# a request the provider rejects
	mock_script '{"routes":{"POST /v1/responses":[{"status":400,"json":{"error":{"message":"bad request"}}}]}}'
	run --separate-stderr ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 65 ]
	only_error "$status"
}

@test "summary: an answer that is not JSON, or not a summary: exit 4, only the error record written" {
	base_transcript "$W/in"
	model_env
	# the recorded answer is "pong"
	run --separate-stderr ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 4 ]
	only_error "$status"
	[[ "$stderr" == *"ai-ask: "*"not a JSON object"* ]]
	# ai-ask checks the answer against the schema it was given
	answer_with '{"summary":"wrong shape"}'
	run --separate-stderr ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 4 ]
	only_error "$status"
	[ "${stderr_lines[0]}" = 'ai-ask: the answer does not follow the schema: $.content: is required and missing' ]
	[ "${stderr_lines[1]}" = "ai-context: cannot summarise: 'ai-ask' failed (exit status 4)" ]
	answer_with '{"content":"ok","key_facts":"one fact","open_tasks":[]}'
	run --separate-stderr ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 4 ]
	[ "${stderr_lines[0]}" = 'ai-ask: the answer does not follow the schema: $.key_facts: is a string, not of type array' ]
}

@test "summary: an answer cut at the maximum length is no summary: exit 76, only the error record written" {
	base_transcript "$W/in"
	model_env
	jq --arg t '{"content":"cut sh' '.choices[0].message.content = $t | .choices[0].finish_reason = "length"' \
		"$MOCK_FIXTURES/openai/chat_completions_nonstream_text.json" > "$W/chat.json"
	mock_script "{\"routes\":{\"POST /v1/chat/completions\":[{\"file\":\"$W/chat.json\"}]}}"
	run --separate-stderr ai-context --provider openai-chat --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 76 ]
	only_error "$status"
	[[ "${stderr_lines[0]}" == "ai-ask: the answer is incomplete: it reached the maximum length"* ]]
}

@test "summary: no API key means no model: the oldest records are dropped, with a warning" {
	base_transcript "$W/in"
	export OPENAI_BASE_URL="$MOCK_URL/v1"
	run --separate-stderr ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ai-context: warning: no model is configured ('ai-ask' has no API key); dropping the oldest records instead of summarising them" ]
	[ "$output" = "$(ai-context --no-summarize --budget 200 --keep 1 < "$W/in")" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "summary: no API key with -m is an error: exit 78, only the error record written" {
	base_transcript "$W/in"
	run --separate-stderr ai-context -m gpt-4.1 --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 78 ]
	only_error "$status"
	[[ "${stderr_lines[0]}" == "ai-ask: no API key for openai: set OPENAI_API_KEY"* ]]
	[ "${stderr_lines[-1]}" = "ai-context: cannot summarise: 'ai-ask' failed (exit status 78)" ]
}

@test "summary: a key the service refuses is an error, not a missing model: exit 78, only the error record written" {
	base_transcript "$W/in"
	model_env
	mock_script '{"routes":{"POST /v1/responses":[{"status":401,"file":"openai/responses_error_401_invalid_api_key.json"}]}}'
	run --separate-stderr ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 78 ]
	only_error "$status"
	[ "$(mock_count)" -eq 1 ]
	[[ "$stderr" != *sk-test-0123456789abcdefghij* ]]
}

@test "summary: a model slower than --timeout: exit 75, without waiting for it" {
	base_transcript "$W/in"
	model_env
	mock_script '{"routes":{"POST /v1/responses":[{"delay_ms":8000}]}}'
	start=$(date +%s)
	run --separate-stderr ai-context --timeout 1 --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 75 ]
	only_error "$status"
	[ $(( $(date +%s) - start )) -lt 6 ]
}

@test "summary: ai-ask is looked for in AICLI_LIBEXEC only, else next to ai-context, else in PATH" {
	base_transcript "$W/in"
	model_env
	answer_with "$SUMMARY"
	mkdir -p "$W/libexec"
	ln -s "$BATS_TEST_DIRNAME/../bin/ai-ask" "$W/libexec/ai-ask"
	AICLI_LIBEXEC="$W/libexec" ai-context --budget 200 --keep 1 < "$W/in" > "$W/out"
	[ "$(mock_count)" -eq 1 ]
	# a directory without it: no model, although one is next to ai-context
	run --separate-stderr env AICLI_LIBEXEC="$W/empty" ai-context --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"('ai-ask' not found)"* ]]
	[ "$(mock_count)" -eq 1 ]
	# the configuration key "libexec" does the same
	printf '{"libexec": "%s"}\n' "$W/empty" > "$W/config.json"
	run --separate-stderr env AICLI_CONFIG="$W/config.json" ai-context --budget 200 --keep 1 < "$W/in"
	[[ "$stderr" == *"('ai-ask' not found)"* ]]
	# next to ai-context, with nothing in PATH
	answer_with "$SUMMARY"
	env PATH=/usr/bin:/bin "$BATS_TEST_DIRNAME/../bin/ai-context" --budget 200 --keep 1 < "$W/in" > "$W/out2"
	[ "$(mock_count)" -eq 1 ]
	cmp "$W/out" "$W/out2"
	# in PATH, when ai-context stands alone
	mkdir -p "$W/alone"
	cp "$BATS_TEST_DIRNAME/../bin/ai-context" "$W/alone/"
	answer_with "$SUMMARY"
	env PATH="$W/libexec:/usr/bin:/bin" "$W/alone/ai-context" --budget 200 --keep 1 < "$W/in" > "$W/out3"
	[ "$(mock_count)" -eq 1 ]
	cmp "$W/out" "$W/out3"
}

@test "summary: the schema file exists only while ai-ask runs" {
	base_transcript "$W/in"
	model_env
	mkdir -p "$W/tmp"
	answer_with "$SUMMARY"
	TMPDIR="$W/tmp" ai-context --budget 200 --keep 1 < "$W/in" > "$W/out"
	[ -z "$(ls -A "$W/tmp")" ]
	mock_script '{"routes":{"POST /v1/responses":[{"status":500,"json":{"error":{"message":"boom"}}}]}}'
	TMPDIR="$W/tmp" ai-context --budget 200 --keep 1 < "$W/in" > "$W/out" 2>/dev/null || true
	[ -z "$(ls -A "$W/tmp")" ]
	# and a signal does not leave it behind
	mock_script '{"routes":{"POST /v1/responses":[{"delay_ms":8000}]}}'
	TMPDIR="$W/tmp" ai-context --budget 200 --keep 1 < "$W/in" > "$W/out" 2>/dev/null &
	pid=$!
	for i in $(seq 1 50); do [ -n "$(ls -A "$W/tmp")" ] && break; sleep 0.1; done
	[ -n "$(ls -A "$W/tmp")" ]
	kill -TERM "$pid"
	wait "$pid" || true
	[ -z "$(ls -A "$W/tmp")" ]
	[ ! -s "$W/out" ]
}

@test "summary: -v says what is summarised and shows ai-ask's own diagnostics" {
	base_transcript "$W/in"
	model_env
	answer_with "$SUMMARY"
	run --separate-stderr ai-context -v --budget 200 --keep 1 < "$W/in"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"ai-context: summarising 8 records in 1 part"$'\n'"ai-context: summarising with '"*"/ai-ask' --json --schema '"*"': "*" bytes on its stdin"* ]]
	[[ "$stderr" == *"ai-ask: "* ]]
	[[ "$stderr" != *sk-test-0123456789abcdefghij* ]]
}

#!/usr/bin/env bats
# Refusals are failures for every provider: exit 1, the refusal text as the
# answer (it is what the model said), the message record marked "refusal",
# and ai-loop ending with its own stop reason.  Anthropic's pause_turn is a
# turn that goes on: its content is sent back and the model asked again,
# a bounded number of times.  Real captures of refusals from the OpenAI APIs
# (tests/fixtures/SOURCES.md); Anthropic's are real captures with the stop
# reason set by jq.

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
}

SORRY="I'm very sorry, but I can't assist with that request."
SORRY_RESP="I'm sorry, I can't assist with that."
SVC() { echo "'127.0.0.1:$MOCK_PORT'"; }

file() { mock_script "{\"routes\":{\"$1\":[{\"file\":\"$2\"}]}}"; }

@test "openai: a streamed refusal is printed as it comes, then exit 1 and why" {
	file "POST /v1/responses" openai/responses_stream_refusal.sse
	run --separate-stderr ai-ask -n "how do I make it?"
	[ "$status" -eq 1 ]
	[ "$output" = "$SORRY_RESP" ]
	[ "$stderr" = "ai-ask: the model refused to answer ($(SVC) said 'refusal')" ]
}

@test "openai --json: the message is marked as a refusal, the usage follows, then the error" {
	file "POST /v1/responses" openai/responses_nonstream_refusal.json
	run --separate-stderr ai-ask -n --json "how do I make it?"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 3 ]
	jq -e '. == {"type":"message","role":"assistant","content":"I'"'"'m very sorry, but I can'"'"'t assist with that.","refusal":true}' <<<"${lines[0]}"
	jq -e '.type == "usage" and .input_tokens == 54 and .output_tokens == 13' <<<"${lines[1]}"
	jq -e '.type == "error" and .tool == "ai-ask" and .code == "failed" and .exit == 1 and
		(.message | startswith("the model refused to answer"))' <<<"${lines[2]}"
	# streamed with deltas: the deltas, then the same marked message
	file "POST /v1/responses" openai/responses_stream_refusal.sse
	run --separate-stderr ai-ask -n --json --stream "how do I make it?"
	[ "$status" -eq 1 ]
	[ "$(jq -r -s '[.[] | select(.type == "delta") | .text] | join("")' <<<"$output")" = "$SORRY_RESP" ]
	jq -e -s --arg t "$SORRY_RESP" 'map(select(.type == "message")) ==
		[{"type":"message","role":"assistant","content":$t,"refusal":true}]' <<<"$output"
}

@test "openai-chat: delta.refusal and message.refusal are refusals, streamed or whole" {
	file "POST /v1/chat/completions" openai/chat_completions_stream_refusal.sse
	run --separate-stderr ai-ask -n --provider openai-chat "how do I make it?"
	[ "$status" -eq 1 ]
	[ "$output" = "$SORRY" ]
	[ "$stderr" = "ai-ask: the model refused to answer ($(SVC) said 'refusal')" ]
	file "POST /v1/chat/completions" openai/chat_completions_nonstream_refusal.json
	run --separate-stderr ai-ask -n --json --provider openai-chat "how do I make it?"
	[ "$status" -eq 1 ]
	jq -e --arg t "$SORRY" '. == {"type":"message","role":"assistant","content":$t,"refusal":true}' <<<"${lines[0]}"
	jq -e '.type == "usage" and .input_tokens == 64 and .output_tokens == 13' <<<"${lines[1]}"
}

@test "a null or empty refusal refuses nothing" {
	# the recorded answer carries "refusal": null; a stream's first chunk carries ""
	run --separate-stderr ai-ask -n --json --provider openai-chat "hi"
	[ "$status" -eq 0 ]
	jq -e '.type == "message" and (has("refusal") | not)' <<<"${lines[0]}"
	jq -c '.choices[0].message.refusal = ""' "$MOCK_FIXTURES/openai/chat_completions_nonstream_text.json" > empty.json
	mock_script "{\"routes\":{\"POST /v1/chat/completions\":[{\"file\":\"$W/empty.json\"}]}}"
	run --separate-stderr ai-ask -n --provider openai-chat "hi"
	[ "$status" -eq 0 ]
	[ "$output" = YES ]
}

@test "anthropic: stop_reason refusal is a refusal: the text, the mark, exit 1" {
	jq -c '.stop_reason = "refusal" | .content[0].text = "I can'"'"'t help with that."' \
		"$MOCK_FIXTURES/anthropic/messages_nonstream_text.json" > refusal.json
	mock_script "{\"routes\":{\"POST /v1/messages\":[{\"file\":\"$W/refusal.json\"}]}}"
	run --separate-stderr ai-ask -n --json --provider anthropic "how?"
	[ "$status" -eq 1 ]
	jq -e '. == {"type":"message","role":"assistant","content":"I can'"'"'t help with that.","refusal":true}' <<<"${lines[0]}"
	jq -e '.type == "error" and .exit == 1 and .message == "the model refused to answer ('"$(SVC)"' said '"'refusal'"')"' <<<"${lines[2]}"
}

@test "a safety filter that stops the answer: a refusal, and what arrived is marked cut" {
	jq -c '.choices[0].finish_reason = "content_filter"' \
		"$MOCK_FIXTURES/openai/chat_completions_nonstream_text.json" > filtered.json
	mock_script "{\"routes\":{\"POST /v1/chat/completions\":[{\"file\":\"$W/filtered.json\"}]}}"
	run --separate-stderr ai-ask -n --json --provider openai-chat "hi"
	[ "$status" -eq 1 ]
	jq -e '. == {"type":"message","role":"assistant","content":"YES","refusal":true,"truncated":true}' <<<"${lines[0]}"
	[ "$stderr" = "ai-ask: $(SVC) stopped the answer: a refusal ('content_filter')" ]
}

@test "ai-loop: a refused step ends the loop with its own stop reason, the refusal on stdout, exit 1" {
	file "POST /v1/responses" openai/responses_nonstream_refusal.json
	run --separate-stderr ai-loop -n "how do I make it?"
	[ "$status" -eq 1 ]
	[ "$output" = "I'm very sorry, but I can't assist with that." ]
	[[ "$stderr" == "ai-loop: ai-ask: the model refused to answer"* ]]
	file "POST /v1/responses" openai/responses_nonstream_refusal.json
	run --separate-stderr ai-loop -n --json --transcript t.ndjson "how do I make it?"
	[ "$status" -eq 1 ]
	jq -e -s '.[0].type == "message" and .[0].role == "user"' <<<"$output"
	jq -e -s 'map(select(.type == "message" and .role == "assistant")) | .[0].refusal == true' <<<"$output"
	jq -e -s '.[-2].type == "error" and .[-2].exit == 1' <<<"$output"
	jq -e -s '.[-1] | .type == "result" and .stop_reason == "refusal" and .status == "error"' <<<"$output"
	# a run that failed at its first model call leaves no transcript behind
	[ ! -e t.ndjson ]
}

# ---- pause_turn ----

# pause BODY: a non-streamed Anthropic answer (the real capture) paused, with this content.
pause() {
	jq -c --argjson c "$1" '.stop_reason = "pause_turn" | .content = $c' \
		"$MOCK_FIXTURES/anthropic/messages_nonstream_text.json"
}

@test "anthropic pause_turn: the content goes back as it is, the turn goes on, one answer" {
	content='[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},{"type":"text","text":"Looking it up. "}]'
	done=$(jq -c '.stop_reason = "end_turn" | .content[0].text = "Found it."' \
		"$MOCK_FIXTURES/anthropic/messages_nonstream_text.json")
	mock_script "{\"routes\":{\"POST /v1/messages\":[{\"json\":$(pause "$content")},{\"json\":$done}]}}"
	run --separate-stderr ai-ask -n --json --provider anthropic "what is new?"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	# the second request is the first, then the paused content as the assistant's
	mock_request 2 | jq -e --argjson c "$content" '.json.messages[-1] == {"role":"assistant","content":$c}'
	mock_request 2 | jq -e '.json.messages[0] == {"role":"user","content":[{"type":"text","text":"what is new?"}]}'
	jq -e '. == {"type":"message","role":"assistant","content":"Looking it up. Found it."}' <<<"${lines[0]}"
	jq -e '.type == "usage" and .calls == 2 and .input_tokens == 44 and .output_tokens == 30' <<<"${lines[1]}"
	[ "${#lines[@]}" -eq 2 ]
}

@test "anthropic pause_turn in a stream: the blocks are rebuilt, thinking and signature included" {
	sed 's/"stop_reason":"end_turn"/"stop_reason":"pause_turn"/' \
		"$MOCK_FIXTURES/anthropic/messages_stream_thinking.sse" > paused.sse
	mock_script "{\"routes\":{\"POST /v1/messages\":[{\"file\":\"$W/paused.sse\"},{\"file\":\"anthropic/messages_stream_text.sse\"}]}}"
	run --separate-stderr ai-ask -n --provider anthropic "two names for a pelican"
	[ "$status" -eq 0 ]
	[ "$(mock_count)" -eq 2 ]
	# what the stream said, block by block, from the capture itself
	want=$(python3 - paused.sse <<'PY'
import json, sys
blocks, parts = {}, {}
for ev in open(sys.argv[1]).read().split("\n\n"):
    for line in ev.split("\n"):
        if not line.startswith("data: "):
            continue
        d = json.loads(line[6:])
        t = d.get("type")
        if t == "content_block_start":
            blocks[d["index"]] = d["content_block"]
        elif t == "content_block_delta":
            dl, b = d["delta"], blocks[d["index"]]
            if dl["type"] == "thinking_delta":
                b["thinking"] += dl["thinking"]
            elif dl["type"] == "text_delta":
                b["text"] += dl["text"]
            elif dl["type"] == "signature_delta":
                b["signature"] = dl["signature"]
print(json.dumps([blocks[i] for i in sorted(blocks)]))
PY
)
	mock_request 2 | jq -e --argjson c "$want" '.json.messages[-1] == {"role":"assistant","content":$c}'
	mock_request 2 | jq -e '.json.messages[-1].content[0] | .type == "thinking" and (.signature | length) > 100'
	# the text of both parts, as one answer
	text1=$(jq -r '.[] | select(.type == "text") | .text' <<<"$want")
	[ "$output" = "${text1}Hello" ]
}

@test "pause_turn is continued at most --max-pauses times: then the limit, what arrived marked cut" {
	one=$(pause '[{"type":"text","text":"part "}]')
	mock_script "{\"routes\":{\"POST /v1/messages\":[{\"json\":$one}]},\"repeat_last\":true}"
	run --separate-stderr ai-ask -n --json --provider anthropic --max-pauses 2 "go"
	[ "$status" -eq 3 ]
	[ "$(mock_count)" -eq 3 ]
	jq -e '. == {"type":"message","role":"assistant","content":"part part part ","truncated":true}' <<<"${lines[0]}"
	jq -e '.type == "error" and .code == "limit" and .message == "the answer is incomplete: '"$(SVC)"' paused the turn 3 times (--max-pauses 2)"' <<<"${lines[2]}"
	# the default is 8
	mock_script "{\"routes\":{\"POST /v1/messages\":[{\"json\":$one}]},\"repeat_last\":true}"
	run --separate-stderr ai-ask -n --provider anthropic "go"
	[ "$status" -eq 3 ]
	[ "$(mock_count)" -eq 9 ]
	run --separate-stderr ai-ask --max-pauses 101 "go"
	[ "$status" -eq 64 ]
}

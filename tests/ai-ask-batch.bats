#!/usr/bin/env bats
# ai-ask --batch: the prompts of --each as one provider batch (OpenAI's Batch
# API, Anthropic's Message Batches) against the mock, which stores the
# upload, reports the batch unfinished for batch_polls status calls, then
# answers each request with its echo answer ("[status N]" in a prompt makes
# that request fail).

bats_require_minimum_version 1.5.0
load helpers/suite

setup() {
	suite_setup
	T="$W"
	printf 'alpha\nbeta [status 400]\ngamma\n' > "$T/in"
}

polls() { mock_script "{\"batch_polls\":${1:-0}}"; }

@test "submit (OpenAI): the JSONL upload, the batch, the id on stdout, the state file" {
	polls 0
	run --separate-stderr ai-ask --batch submit --batch-state "$T/st" "translate" < "$T/in"
	[ "$status" -eq 0 ]
	[ "$output" = "batch_mock1" ]
	[ -z "$stderr" ]
	[ "$(mock_count)" -eq 2 ]
	mock_request 1 > "$T/up"
	[ "$(jq -r .path "$T/up")" = "/v1/files" ]
	jq -r '.headers["content-type"]' "$T/up" | grep -q '^multipart/form-data; boundary='
	jq -r .body "$T/up" | grep -q 'name="purpose"'
	jq -r .body "$T/up" | grep -q 'filename="batch.jsonl"'
	jq -r .body "$T/up" | grep '^{' > "$T/jsonl"
	[ "$(jq -r '[.custom_id, .method, .url, .body.model, .body.input] | @json' "$T/jsonl" | head -1)" = \
		'["1","POST","/v1/responses","gpt-4o-mini","alpha\n\ntranslate"]' ] ||
		[ "$(jq -r '[.custom_id, .method, .url] | @json' "$T/jsonl" | head -1)" = '["1","POST","/v1/responses"]' ]
	[ "$(jq -r .custom_id "$T/jsonl" | tr '\n' ' ')" = "1 2 3 " ]
	[ "$(mock_request 2 | jq -c '[.path, .json.endpoint, .json.completion_window, .json.input_file_id]')" = \
		'["/v1/batches","/v1/responses","24h","file-mock1"]' ]
	[ "$(jq -c '[.batch, .provider, .endpoint, .ids]' "$T/st")" = '["batch_mock1","openai","/v1/responses",[1,2,3]]' ]
	jq -e '.model and (.submitted | test("^[0-9-]+T[0-9:]+Z$"))' "$T/st"
}

@test "the request body is the one --each sends" {
	polls 0
	ai-ask --batch submit "translate" <<<"alpha" > /dev/null
	mock_request 1 | jq -r .body | grep '^{' | jq -c .body > "$T/batched"
	mock_reset
	ai-ask --each "translate" <<<"alpha" > /dev/null
	mock_request 1 | jq -c .json > "$T/normal"
	diff "$T/batched" "$T/normal"
}

@test "status: text, and a record with --json; not ended, then ended" {
	polls 1
	ai-ask --batch submit --batch-state "$T/st" < "$T/in" > /dev/null
	run --separate-stderr ai-ask --batch status batch_mock1
	[ "$status" -eq 0 ]
	[ "$output" = "batch_mock1 in_progress: 0 of 3 done, 0 failed" ]
	run --separate-stderr ai-ask --batch status --batch-state "$T/st" --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.type, .id, .status, .ended, .total, .completed, .failed]' <<<"$output")" = \
		'["batch","batch_mock1","completed",true,3,2,1]' ]
	[ "$(mock_request 3 | jq -r .path)" = "/v1/batches/batch_mock1" ]
}

@test "results: the records of --each, in submitted order, the errored one an error record" {
	polls 0
	ai-ask --batch submit --batch-state "$T/st" "translate" < "$T/in" > /dev/null
	run --separate-stderr ai-ask --batch results --batch-state "$T/st"
	[ "$status" -eq 65 ]
	[ "$(jq -c 'select(.type == "message") | [.id, .content]' <<<"$output")" = \
'[1,"echo: alpha\n\ntranslate"]
[3,"echo: gamma\n\ntranslate"]' ]
	[ "$(jq -c 'select(.type == "error") | [.id, .exit]' <<<"$output")" = '[2,65]' ]
	jq -r 'select(.type == "error") | .message' <<<"$output" | grep -q 'status 400 asked for by the prompt'
	[ "$(jq -c 'select(.type != "usage" or .total != true) | .id' <<<"$output" | tr '\n' ' ')" = "1 1 2 3 3 " ]
	[ "$(jq -c 'select(.total == true) | [.prompts, .failed]' <<<"$output")" = '[3,1]' ]
	grep -q 'prompt 2: ' <<<"$stderr"
	grep -q '1 of 3 prompts failed' <<<"$stderr"
	mock_requests | jq -r .path | grep -q '^/v1/files/file-mock2/content$'
	mock_requests | jq -r .path | grep -q '^/v1/files/file-mock3/content$'
}

@test "results of a batch all answered: exit 0" {
	polls 0
	printf 'one\ntwo\n' | ai-ask --batch submit --batch-state "$T/st" > /dev/null
	run --separate-stderr ai-ask --batch results --batch-state "$T/st"
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.type == "message") | .id' <<<"$output" | tr '\n' ' ')" = "1 2 " ]
}

@test "results of a batch not ended: exit 75, a clear message, nothing written" {
	polls 3
	ai-ask --batch submit --batch-state "$T/st" < "$T/in" > /dev/null
	run --separate-stderr ai-ask --batch results --batch-state "$T/st"
	[ "$status" -eq 75 ]
	[ -z "$output" ]
	grep -q 'the batch batch_mock1 has not ended (in_progress: 0 of 3 done); ask again later' <<<"$stderr"
}

@test "Anthropic: one Message Batch, custom_ids the record ids, results in order" {
	polls 1
	printf '%s\n' '{"type":"query","id":"q-a","query":"first"}' \
		'{"type":"query","id":"q-b","query":"second [status 529]"}' > "$T/q"
	run --separate-stderr ai-ask --provider anthropic --batch submit --batch-state "$T/st" < "$T/q"
	[ "$status" -eq 0 ]
	[ "$output" = "msgbatch_mock1" ]
	[ "$(mock_request 1 | jq -c '[.path, [.json.requests[].custom_id], .json.requests[0].params.messages[0].content[0].text]')" = \
		'["/v1/messages/batches",["q-a","q-b"],"first"]' ]
	mock_request 1 | jq -e '.headers["x-api-key"] and .headers["anthropic-version"]'
	run --separate-stderr ai-ask --batch status --batch-state "$T/st"
	[ "$output" = "msgbatch_mock1 in_progress: 0 of 2 done, 0 failed" ]
	run --separate-stderr ai-ask --batch results --batch-state "$T/st"
	[ "$status" -eq 75 ]
	[ "$(jq -c 'select(.type != "usage" or .total != true) | [.type, .id]' <<<"$output" | tr '\n' ' ')" = \
		'["message","q-a"] ["usage","q-a"] ["error","q-b"] ' ]
	[ "$(mock_requests | jq -r .path | tail -1)" = "/v1/messages/batches/msgbatch_mock1/results" ]
}

@test "bad flags: 64 with the reason" {
	run --separate-stderr ai-ask --batch send
	[ "$status" -eq 64 ]
	grep -q "takes submit, status or results, not 'send'" <<<"$stderr"
	run --separate-stderr ai-ask --batch status
	[ "$status" -eq 64 ]
	grep -q -- "--batch status takes the batch's ID or --batch-state FILE" <<<"$stderr"
	run --separate-stderr ai-ask --batch results --batch-state "$T/st" extra
	[ "$status" -eq 64 ]
	run --separate-stderr ai-ask --batch submit -n
	[ "$status" -eq 64 ]
	grep -q -- "--batch takes no --each" <<<"$stderr"
	run --separate-stderr ai-ask --batch-state "$T/st" hi
	[ "$status" -eq 64 ]
	grep -q -- "--batch-state goes with --batch" <<<"$stderr"
	run --separate-stderr ai-ask --provider ollama --batch status x
	[ "$status" -eq 64 ]
	grep -q -- "--batch works with the openai, openai-chat and anthropic adapters" <<<"$stderr"
	[ "$(mock_count)" -eq 0 ]
}

@test "a missing key: 78, nothing sent" {
	run --separate-stderr env -u OPENAI_API_KEY ai-ask --batch submit <<<"alpha"
	[ "$status" -eq 78 ]
	grep -q 'no API key for openai' <<<"$stderr"
	[ "$(mock_count)" -eq 0 ]
}

@test "an HTTP error: its message and status; no state file" {
	mock_script '{"routes":{"POST /v1/files":[{"status":401,"json":{"error":{"message":"Incorrect API key provided"}}}]}}'
	run --separate-stderr ai-ask --batch submit --batch-state "$T/st" <<<"alpha"
	[ "$status" -eq 78 ]
	grep -q 'Incorrect API key provided' <<<"$stderr"
	[ ! -e "$T/st" ]
	run --separate-stderr ai-ask --batch status batch_nope
	[ "$status" -eq 65 ]
	grep -q 'No such Batch: batch_nope' <<<"$stderr"
}

@test "a state file that is not one: 65" {
	echo '{"batch":1}' > "$T/st"
	run --separate-stderr ai-ask --batch results --batch-state "$T/st"
	[ "$status" -eq 65 ]
	grep -q "is not a batch state file" <<<"$stderr"
	run --separate-stderr ai-ask --batch results --batch-state "$T/none"
	[ "$status" -eq 66 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "the chat adapter's batch names /v1/chat/completions" {
	polls 0
	run --separate-stderr ai-ask --provider openai-chat --batch submit --batch-state "$T/st" <<<"alpha"
	[ "$status" -eq 0 ]
	[ "$(mock_request 2 | jq -r .json.endpoint)" = "/v1/chat/completions" ]
	run --separate-stderr ai-ask --batch results --batch-state "$T/st"
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.type == "message") | [.id, .content]' <<<"$output")" = '[1,"echo: alpha"]' ]
}

@test "a batch that expired: each prompt an error record, status 75" {
	polls 0
	ai-ask --batch submit --batch-state "$T/st" <<<"alpha" > /dev/null
	mock_script '{"routes":{"GET /v1/batches/batch_mock1":[{"json":{"id":"batch_mock1","object":"batch","status":"expired","output_file_id":null,"error_file_id":null,"request_counts":{"total":1,"completed":0,"failed":0}}}]}}'
	run --separate-stderr ai-ask --batch results --batch-state "$T/st"
	[ "$status" -eq 75 ]
	[ "$(jq -c 'select(.type == "error") | [.id, .exit, .message]' <<<"$output")" = \
		'[1,75,"the batch did not answer it: expired"]' ]
}

@test "a prompt that cannot be sent fails the submission before any request" {
	printf '%s\n' '{"type":"query","id":"a","query":"x"}' '{"type":"query","id":"b","query":""}' > "$T/q"
	run --separate-stderr ai-ask --batch submit --batch-state "$T/st" < "$T/q"
	[ "$status" -eq 65 ]
	grep -q 'prompt "b": standard input: line 2: a query record needs a non-empty "query" string' <<<"$stderr"
	[ ! -e "$T/st" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "ids a batch cannot take fail the submission before any request: twice the same, or not Anthropic's" {
	printf '%s\n' '{"type":"query","id":"a","query":"x"}' '{"type":"query","id":"a","query":"y"}' > "$T/q"
	for p in openai anthropic; do
		run --separate-stderr ai-ask --provider "$p" --batch submit --batch-state "$T/st" < "$T/q"
		[ "$status" -eq 65 ]
		[ "$stderr" = "ai-ask: the id 'a' is given to two prompts: a batch needs each once" ]
	done
	printf '%s\n' '{"type":"query","id":"ticket 7","query":"x"}' > "$T/q"
	run --separate-stderr ai-ask --provider anthropic --batch submit --batch-state "$T/st" < "$T/q"
	[ "$status" -eq 65 ]
	[ "$stderr" = "ai-ask: the id 'ticket 7' cannot name a request of an Anthropic batch: 1 to 64 letters, digits, '_' or '-'" ]
	[ ! -e "$T/st" ]
	[ "$(mock_count)" -eq 0 ]
	# OpenAI takes it
	run --separate-stderr ai-ask --provider openai --batch submit --batch-state "$T/st" < "$T/q"
	[ "$status" -eq 0 ]
}

@test "results by ID, without a state file: the custom_ids as ids" {
	polls 0
	printf 'one\ntwo\n' | ai-ask --batch submit > /dev/null
	run --separate-stderr ai-ask --batch results batch_mock1
	[ "$status" -eq 0 ]
	[ "$(jq -c 'select(.type == "message") | .id' <<<"$output" | tr '\n' ' ')" = '"1" "2" ' ]
}

@test "submit --json: a batch record; empty input: 65, nothing sent" {
	polls 0
	run --separate-stderr ai-ask --batch submit --json <<<"alpha"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.type, .id, .provider, .status, .total]' <<<"$output")" = '["batch","batch_mock1","openai","validating",1]' ]
	mock_reset
	run --separate-stderr ai-ask --batch submit < /dev/null
	[ "$status" -eq 65 ]
	grep -q 'standard input holds no prompt' <<<"$stderr"
	[ "$(mock_count)" -eq 0 ]
}

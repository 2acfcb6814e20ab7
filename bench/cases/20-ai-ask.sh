# ai-ask: start-up, and one prompt against the mock next to curl
# making the same request.

printf '{}\n' > "$TMP/ask-config.json"
chmod 600 "$TMP/ask-config.json"
export AICLI_CONFIG="$TMP/ask-config.json" OPENAI_BASE_URL="$MOCK_URL/v1" \
	OPENAI_API_KEY="sk-bench-0123456789abcdef"

bench_case "start-up: ai-ask --version" "< 2 ms median" -- \
	"$ROOT/bin/ai-ask" --version -- \
	"true" /bin/true

bench_case "ai-ask: one prompt, streamed" "<= 1.5x curl, RSS <= curl" -- \
	"$ROOT/bin/ai-ask" -n "hi" -- \
	"curl -N, same request" curl -sN -H "Authorization: Bearer $OPENAI_API_KEY" \
	-H "Content-Type: application/json" \
	-d '{"model":"gpt-4.1-mini","input":[{"role":"user","content":"hi"}],"store":false,"stream":true}' \
	"$MOCK_URL/v1/responses"

bench_case "ai-ask --json: one prompt, whole" "<= 1.5x curl, RSS <= curl" -- \
	"$ROOT/bin/ai-ask" -n --json --provider openai-chat "hi" -- \
	"curl, same request" curl -s -H "Authorization: Bearer $OPENAI_API_KEY" \
	-H "Content-Type: application/json" \
	-d '{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"hi"}],"stream":false}' \
	"$MOCK_URL/v1/chat/completions"

unset AICLI_CONFIG OPENAI_BASE_URL OPENAI_API_KEY

# Gemini: the same prompt streamed over SSE, next to curl making the same request.
export AICLI_CONFIG="$TMP/ask-config.json" GEMINI_BASE_URL="$MOCK_URL" \
	GEMINI_API_KEY="gm-bench-0123456789abcdef"
bench_case "ai-ask gemini: one prompt, streamed" "<= 1.5x curl, RSS <= curl" -- \
	"$ROOT/bin/ai-ask" -n --provider gemini "hi" -- \
	"curl -N, same request" curl -sN -H "x-goog-api-key: $GEMINI_API_KEY" \
	-H "Content-Type: application/json" \
	-d '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}' \
	"$MOCK_URL/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
unset AICLI_CONFIG GEMINI_BASE_URL GEMINI_API_KEY

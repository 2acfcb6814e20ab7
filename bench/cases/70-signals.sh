# Signals: the time from SIGTERM (or SIGINT) to the end of the process and
# of every child it had, for each tool in a waiting state, next to a
# baseline in the same state (bench/siglat.py): cat waiting on standard
# input, curl waiting on a slow answer.  The target is 100 ms.

printf '{}\n' > "$TMP/sig-config.json"
chmod 600 "$TMP/sig-config.json"
export AICLI_CONFIG="$TMP/sig-config.json" OPENAI_BASE_URL="$MOCK_URL/v1" \
	OPENAI_API_KEY="sk-bench-0123456789abcdef" GOOGLE_API_KEY="AIza-bench" GOOGLE_CSE_CX="bench" \
	AICLI_SEARCH_BASE_URL="$MOCK_URL"
unset AICLI_TIMEOUT AICLI_RETRIES AICLI_MODEL AICLI_PROVIDER AICLI_LIBEXEC

s() { python3 "$BENCH/siglat.py" -n "$RUNS" "$@"; }
slow='{"routes":{"POST /v1/responses":[{"delay_ms":30000}],"GET /customsearch/v1":[{"delay_ms":30000}]},"repeat_last":true}'
script="curl -s -o /dev/null --data-binary '$slow' $MOCK_URL/__mock/script"
logged="test \$(curl -s $MOCK_URL/__mock/requests | wc -l) -ge 1"
base_stdin=$(s cat)
base_net=$(s --ready "$logged" sh -c "$script; exec curl -s $MOCK_URL/v1/responses -d '{}'")

row() { echo "$1|$2|$3|$4|< 100 ms" >> "$TMP/rows"; }
row "SIGTERM: ai-loop on stdin" "$(s ai-loop go)" "cat on stdin" "$base_stdin"
row "SIGINT: ai-loop on stdin" "$(s -s INT ai-loop go)" "cat on stdin" "$base_stdin"
row "SIGTERM: ai-ask on stdin" "$(s ai-ask go)" "cat on stdin" "$base_stdin"
row "SIGTERM: ai-search on stdin" "$(s ai-search)" "cat on stdin" "$base_stdin"
row "SIGTERM: ai-context on stdin" "$(s ai-context)" "cat on stdin" "$base_stdin"
row "SIGTERM: ai-exec --serve on stdin" "$(s ai-exec --serve --allow-url "$MOCK_URL/")" \
	"cat on stdin" "$base_stdin"
row "SIGTERM: ai-ask on the network" \
	"$(s --ready "$logged" sh -c "$script; exec ai-ask -n go")" "curl on the network" "$base_net"
row "SIGTERM: ai-loop on a model call" \
	"$(s --children --ready "$logged" sh -c "$script; exec ai-loop -n go")" \
	"curl on the network" "$base_net"
row "SIGINT: ai-loop on a model call" \
	"$(s -s INT --children --ready "$logged" sh -c "$script; exec ai-loop -n go")" \
	"curl on the network" "$base_net"

curl -s -o /dev/null -X POST "$MOCK_URL/__mock/reset"
unset AICLI_CONFIG OPENAI_BASE_URL OPENAI_API_KEY GOOGLE_API_KEY GOOGLE_CSE_CX AICLI_SEARCH_BASE_URL

# What the first hour adds to a run: a template (-t) read and applied before
# the command line, the search provider chosen by the keys that are set
# (Exa's documented answer), the wrapped --help.  Each next to the same work
# without it.

export XDG_CONFIG_HOME="$TMP/xdg" OPENAI_BASE_URL="$MOCK_URL/v1" \
	OPENAI_API_KEY="sk-bench-0123456789abcdef" EXA_API_KEY="exa-bench-0123456789"
printf '{}\n' > "$TMP/setup-config.json"
chmod 600 "$TMP/setup-config.json"
export AICLI_CONFIG="$TMP/setup-config.json"
mkdir -p "$XDG_CONFIG_HOME/aicli/templates"
cat > "$XDG_CONFIG_HOME/aicli/templates/bench.json" <<'JSON'
{"description": "a bench template", "system": "Answer in one line.", "model": "gpt-4.1-mini",
 "options": ["--temperature", "0.2", "--max-tokens", "300"]}
JSON

bench_case "ai-ask -t: a prompt, with a template" "<= 1.05x the same flags" -- \
	"$ROOT/bin/ai-ask" -n -t bench "hi" -- \
	"ai-ask, the same flags" "$ROOT/bin/ai-ask" -n -s "Answer in one line." -m gpt-4.1-mini \
	--temperature 0.2 --max-tokens 300 "hi"

bench_case "ai-search: Exa, chosen by its key" "<= 1.05x --provider exa" -- \
	"$ROOT/bin/ai-search" --base-url "$MOCK_URL" --json -n 3 q -- \
	"ai-search --provider exa" "$ROOT/bin/ai-search" --provider exa --base-url "$MOCK_URL" --json -n 3 q

bench_case "ai-loop --help, wrapped to 80" "within 2 ms of true" -- \
	"$ROOT/bin/ai-loop" --help -- \
	"true" /bin/true

unset XDG_CONFIG_HOME OPENAI_BASE_URL OPENAI_API_KEY EXA_API_KEY AICLI_CONFIG

#!/usr/bin/env bats
# Templates (-t NAME, --templates) in ai-ask and ai-loop, against the mock:
# a template's settings reach the request, a flag on the command line wins,
# and a template that is missing or malformed is an error naming it, with
# nothing sent.

bats_require_minimum_version 1.5.0
load helpers/mock
load helpers/env

setup_file() { mock_start; }
teardown_file() { mock_stop; }

setup() {
	mock_reset
	clean_env
	export XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/xdg"
	T="$XDG_CONFIG_HOME/aicli/templates"
	mkdir -p "$T"
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY="sk-template-test-0123456789"
	export ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY="sk-ant-template-0123456789"
	cat > "$T/review.json" <<'JSON'
{
  "//": "read a diff and list what is wrong",
  "description": "review a diff\nfor bugs",
  "system": "You are a careful reviewer.",
  "model": "gpt-4.1",
  "schema": {"type": "object", "properties": {"bugs": {"type": "array"}}, "required": ["bugs"]},
  "options": ["--temperature", "0.2", "--max-tokens", "300"]
}
JSON
	cat > "$T/claude.json" <<'JSON'
{"description": "Anthropic, briefly", "provider": "anthropic", "model": "claude-haiku-4-5",
 "system": "Answer in one line."}
JSON
	printf '{"type": "object", "properties": {"answer": {"type": "string"}}}\n' > "$T/answer.schema.json"
	printf '{"schema": "answer.schema.json"}\n' > "$T/file-schema.json"
}

ask() { ai-ask "$@" </dev/null; }
# the JSON body of logged request N
body() { mock_request "$1" | jq -c .json; }

@test "ai-ask -t: the template's system prompt, model, schema and options reach the request" {
	run --separate-stderr ask -n -t review "check this"
	body 1 | jq -e '.model == "gpt-4.1" and .instructions == "You are a careful reviewer."
		and .temperature == 0.2 and .max_output_tokens == 300
		and .text.format.type == "json_schema" and .text.format.schema.required == ["bugs"]'
	[ "$(mock_count)" -eq 1 ]
	# a provider too, and its own request shape
	run --separate-stderr ask -n -t claude "hi"
	[ "$status" -eq 0 ]
	mock_request 2 | jq -e '.path == "/v1/messages" and .json.model == "claude-haiku-4-5"
		and .json.system == "Answer in one line."'
	# a schema in a file beside the template
	run --separate-stderr ask -n -t file-schema "hi"
	body 3 | jq -e '.text.format.schema.properties.answer.type == "string"'
}

@test "ai-ask -t: a flag on the command line wins over the template, also when it comes first" {
	run --separate-stderr ask -n -m gpt-4.1-mini --temperature 1 -t review -s "Be brief." "check"
	body 1 | jq -e '.model == "gpt-4.1-mini" and .temperature == 1 and .instructions == "Be brief."
		and .max_output_tokens == 300'
	# the template wins over the environment and the config file, as a flag does
	run --separate-stderr env AICLI_MODEL=gpt-4o ai-ask -n -t review "check"
	body 2 | jq -e '.model == "gpt-4.1"'
	# the last -t is the one
	run --separate-stderr ask -n -t review -t claude "hi"
	mock_request 3 | jq -e '.path == "/v1/messages"'
}

@test "ai-loop -t: every model call of the loop gets the template's settings" {
	cat > "$T/loop.json" <<'JSON'
{"description": "terse", "system": "Use as few words as you can.", "model": "gpt-4.1",
 "options": ["--temperature", "0.3", "--max-steps", "2"]}
JSON
	run --separate-stderr ai-loop -n -t loop "hello"
	[ "$status" -eq 0 ]
	[ "$output" = "pong" ]
	body 1 | jq -e '.model == "gpt-4.1" and .temperature == 0.3
		and .instructions == "Use as few words as you can."'
	# a setting ai-loop does not have is an error
	run --separate-stderr ai-loop -n -t review "hello"
	[ "$status" -eq 78 ]
	[ "$stderr" = "ai-loop: template 'review' ($T/review.json): \"schema\" is not a setting of ai-loop" ]
	[ "$(mock_count)" -eq 1 ]
}

@test "--templates lists each template with its description, sorted, one line each, into a pipe with a tab" {
	printf '{}\n' > "$T/bare.json"
	printf 'not json' > "$T/notes.txt"
	run --separate-stderr ai-ask --templates
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(printf 'bare\nclaude\tAnthropic, briefly\nfile-schema\nreview\treview a diff for bugs')" ]
	# ai-loop lists the same
	run --separate-stderr ai-loop --templates
	[ "$output" = "$(printf 'bare\nclaude\tAnthropic, briefly\nfile-schema\nreview\treview a diff for bugs')" ]
	# on a terminal, in columns
	run python3 "$BATS_TEST_DIRNAME/helpers/on-tty.py" -- ai-ask --templates
	[ "$status" -eq 0 ]
	[[ "$output" == *"claude           Anthropic, briefly"* ]]
	# one that cannot be read is a warning; the others are still listed
	printf '{"model": 4}\n' > "$T/broken.json"
	run --separate-stderr ai-ask --templates
	[ "$status" -eq 0 ]
	[ "$stderr" = "ai-ask: warning: template 'broken' ($T/broken.json): \"model\" must be a string" ]
	[ "$(echo "$output" | wc -l)" -eq 4 ]
	# no templates at all: nothing, and no error
	rm -r "$T"
	run --separate-stderr ai-ask --templates
	[ "$status" -eq 0 ]
	[ -z "$output" ] && [ -z "$stderr" ]
	[ "$(mock_count)" -eq 0 ]
}

@test "without XDG_CONFIG_HOME, templates are in ~/.config/aicli/templates" {
	mkdir -p "$HOME/.config/aicli/templates"
	printf '{"description": "home", "model": "gpt-4.1-nano"}\n' > "$HOME/.config/aicli/templates/h.json"
	unset XDG_CONFIG_HOME
	run --separate-stderr ai-ask --templates
	[ "$output" = "$(printf 'h\thome')" ]
	run --separate-stderr ask -n -t h hi
	body 1 | jq -e '.model == "gpt-4.1-nano"'
}

@test "a missing template: the file it looked for, exit 78, nothing sent" {
	run --separate-stderr ask -n -t nope "hi"
	[ "$status" -eq 78 ]
	[ -z "$output" ]
	[ "$stderr" = "ai-ask: no template 'nope': there is no $T/nope.json (--templates lists the templates)" ]
	run --separate-stderr ask -n -t "../../config" "hi"
	[ "$status" -eq 64 ]
	[ "$stderr" = "ai-ask: option '--template': '../../config' is not a template name (letters, digits, '_' and '-')
ai-ask: try 'ai-ask --help' for more information" ]
	run --separate-stderr ask -n --template= "hi"
	[ "$status" -eq 64 ]
	[ "$(mock_count)" -eq 0 ]
}

@test "a malformed template: its name, its file and what is wrong, exit 78, nothing sent" {
	check() { # check CONTENT MESSAGE
		printf '%s' "$1" > "$T/bad.json"
		run --separate-stderr ask -n -t bad "hi"
		[ "$status" -eq 78 ] || { echo "exit $status for $1"; return 1; }
		[ -z "$output" ]
		[ "$stderr" = "ai-ask: template 'bad' ($T/bad.json): $2" ] || { echo "$stderr"; return 1; }
	}
	check '{"model": ' "column 11: unexpected end of input"
	check '["--temperature", "1"]' "it must hold a JSON object"
	check '{"modle": "x"}' "unknown key 'modle' (a template holds description, system, model, provider, schema and options)"
	check '{"model": 4}' '"model" must be a string'
	check '{"options": "--json"}' '"options" must be an array of strings, as on a command line'
	check '{"options": ["--max-tokens", 5]}' '"options" must be an array of strings, as on a command line'
	check '{"schema": ""}' '"schema" must be a JSON Schema object, or the name of a file beside the template'
	check '{"model": "a", "model": "b"}' "duplicate key 'model'"
	check '{"options": ["--temperature", "3"]}' "option '--temperature': '3' is out of range 0..2"
	check '{"options": ["--no-such"]}' "unknown option '--no-such'"
	check '{"options": ["explain", "this"]}' "\"options\" holds 'explain', which is not an option of ai-ask"
	check '{"options": ["--help"]}' '"options" may hold settings only, not --help, --version or --templates'
	check '{"options": ["-t", "review"]}' 'a template cannot name another template'
	# a schema file that is not there is ai-ask's own error, naming it
	printf '{"schema": "missing.json"}' > "$T/bad.json"
	run --separate-stderr ask -n -t bad "hi"
	[ "$status" -eq 66 ]
	[[ "$stderr" == *"$T/missing.json"* ]]
	[ "$(mock_count)" -eq 0 ]
}

@test "completion: -t completes the template names in bash, zsh and fish" {
	ROOT="$BATS_TEST_DIRNAME/.."
	[ "$(bash -c 'source "$1"; COMP_WORDS=(ai-ask -t ""); COMP_CWORD=2; _aicli_ai_ask; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$ROOT/completions/bash/ai-ask" | sort)" = "$(printf 'claude\nfile-schema\nreview')" ]
	[ "$(ZCOMPDUMP="$BATS_FILE_TMPDIR/zcompdump" zsh -f "$BATS_TEST_DIRNAME/helpers/zsh-complete.zsh" \
		"$ROOT/completions/zsh" "ai-loop -t ")" = "$(printf 'claude\nfile-schema\nreview')" ]
	fish -N -c 'source $argv[1]; complete -C "ai-ask --template "' "$ROOT/completions/fish/ai-ask.fish" \
		> "$BATS_TEST_TMPDIR/fish"
	grep -qx "$(printf 'claude\tAnthropic, briefly')" "$BATS_TEST_TMPDIR/fish"
	grep -qx "$(printf 'review\treview a diff for bugs')" "$BATS_TEST_TMPDIR/fish"
}

#!/usr/bin/env bats
# The README's examples run.  Every line of the ```sh blocks in the README's
# "## Examples" section is a command (a trailing backslash continues it;
# lines starting with # are comments).  Each runs in a scratch folder holding
# the files of tests/readme/, with bin/ first on PATH and every provider
# pointed at the mock server through a configuration file, and must exit 0
# with something on stdout.

bats_require_minimum_version 1.5.0
load helpers/mock

setup_file() { mock_start; }
teardown_file() { mock_stop; }

examples() {
	awk '/^## Examples/ { on = 1; next } /^## / { on = 0 }
		on && /^```sh/ { code = 1; next } on && /^```/ { code = 0; next }
		on && code' "$BATS_TEST_DIRNAME/../README.md" |
		awk '/^[ \t]*#/ || /^[ \t]*$/ { next }
			{ if (sub(/\\$/, "")) { cur = cur $0; next } print cur $0; cur = "" }'
}

@test "every README example runs against the mock and exits 0" {
	mock_reset
	have_tools=0
	for b in "$BATS_TEST_DIRNAME"/../bin/ai-*; do if [ -x "$b" ]; then have_tools=1; fi; done
	[ "$have_tools" -eq 1 ] || skip "no tool is built yet"
	n=$(examples | wc -l)
	[ "$n" -gt 0 ] || { echo "the README has no examples"; false; }

	work="$BATS_TEST_TMPDIR/work"
	mkdir -p "$work"
	cp -R "$BATS_TEST_DIRNAME"/readme/. "$work"/
	cfg="$BATS_TEST_TMPDIR/config.json"
	cat > "$cfg" <<JSON
{"openai_api_key": "sk-readme-test-0123456789abcdef", "openai_base_url": "$MOCK_URL/v1",
 "anthropic_api_key": "sk-ant-readme-0123456789abcdef", "anthropic_base_url": "$MOCK_URL",
 "ollama_host": "$MOCK_URL", "search_base_url": "$MOCK_URL",
 "gemini_api_key": "gm-readme-0123456789abcdef", "gemini_base_url": "$MOCK_URL",
 "deepseek_api_key": "sk-ds-readme-0123456789", "deepseek_base_url": "$MOCK_URL",
 "google_api_key": "AIza-readme-test-key", "google_cse_cx": "readme-cx",
 "brave_api_key": "brave-readme-key", "tavily_api_key": "tvly-readme-key", "exa_api_key": "exa-readme-key",
 "searxng_url": "$MOCK_URL"}
JSON
	chmod 600 "$cfg"
	while IFS= read -r cmd; do
		echo "example: $cmd"
		out=$(cd "$work" && env -i HOME="$BATS_TEST_TMPDIR" PATH="$BATS_TEST_DIRNAME/../bin:/usr/bin:/bin" \
			AICLI_CONFIG="$cfg" bash -o pipefail -c "$cmd" </dev/null 2>"$BATS_TEST_TMPDIR/err")
		rc=$?
		if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
			echo "exit $rc; stdout: $out"; cat "$BATS_TEST_TMPDIR/err"
			false
		fi
	done < <(examples)
}

# The README's Makefile rule and cron line, run as make and cron would run
# them, against the mock: a run that succeeds replaces the output, and one
# that fails keeps the previous output and leaves no temporary file.

# recipe_env: keys in ~/.config/aicli/config.json (mode 0600), as the README
# says, with no retries so that a failure is quick.
recipe_env() {
	mock_reset
	W="$BATS_TEST_TMPDIR/w"
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$W" "$HOME/.config/aicli"
	cp "$BATS_TEST_DIRNAME/readme/notes.md" "$W/"
	printf '{"openai_api_key": "sk-recipe-test-0123456789", "openai_base_url": "%s/v1", "retries": "0"}\n' \
		"$MOCK_URL" > "$HOME/.config/aicli/config.json"
	chmod 600 "$HOME/.config/aicli/config.json"
	BIN="$BATS_TEST_DIRNAME/../bin"
}

# answer TEXT: the model answers at once, in the shape of the real capture.
answer() {
	local body
	body=$(jq -c --arg t "$1" '.output[0].content[0].text = $t' \
		"$MOCK_FIXTURES/openai/responses_nonstream_text.json")
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$body}]}}"
}

# failing: the service answers 500 (exit 69 after no retries).
failing() { mock_script '{"routes":{"POST /v1/responses":[{"status":500,"json":{"error":{"message":"down"}}}]}}'; }

@test "the README's Makefile rule: a failed run keeps the previous target and leaves no temporary file" {
	recipe_env
	awk '/^```make/ { on = 1; next } /^```/ { on = 0 } on' "$BATS_TEST_DIRNAME/../README.md" > "$W/Makefile"
	grep -q '^due.txt: notes.md$' "$W/Makefile"
	mk() { (cd "$W" && env -i HOME="$HOME" PATH="$BIN:/usr/bin:/bin" make -s due.txt </dev/null); }
	answer "Due: the man page."
	run mk
	[ "$status" -eq 0 ]
	[ "$(cat "$W/due.txt")" = "Due: the man page." ]
	[ ! -e "$W/due.txt.tmp" ]
	# notes change; the service fails: the build fails, the target is the previous one
	touch -d '+2 seconds' "$W/notes.md"
	failing
	run mk
	[ "$status" -ne 0 ]
	[ "$(cat "$W/due.txt")" = "Due: the man page." ]
	[ ! -e "$W/due.txt.tmp" ]
	[ "$(mock_count)" -eq 1 ]
	# a limit (the step limit) is a failure too
	call=$(mock_calls c1 execute '{"command":"wc -l notes.md"}')
	mock_script "{\"routes\":{\"POST /v1/responses\":[{\"json\":$call}]},\"repeat_last\":true}"
	run mk
	[ "$status" -ne 0 ]
	[ "$(cat "$W/due.txt")" = "Due: the man page." ]
	[ ! -e "$W/due.txt.tmp" ]
	# and when it works again, the new answer replaces the old
	answer "Due: the bench."
	run mk
	[ "$status" -eq 0 ]
	[ "$(cat "$W/due.txt")" = "Due: the bench." ]
	[ ! -e "$W/due.txt.tmp" ]
}

@test "the README's Makefile rule: an interrupted run keeps the previous target and leaves no temporary file" {
	recipe_env
	awk '/^```make/ { on = 1; next } /^```/ { on = 0 } on' "$BATS_TEST_DIRNAME/../README.md" > "$W/Makefile"
	echo "Due: yesterday." > "$W/due.txt"
	touch -d '+2 seconds' "$W/notes.md"
	mock_script '{"routes":{"POST /v1/responses":[{"delay_ms":20000}]}}'
	(cd "$W" && exec setsid env -i HOME="$HOME" PATH="$BIN:/usr/bin:/bin" make -s due.txt </dev/null >/dev/null 2>&1 3>&-) &
	pid=$!
	for i in $(seq 100); do [ "$(mock_count)" -ge 1 ] && break; sleep 0.1; done
	[ -e "$W/due.txt.tmp" ]
	# ^C on a terminal reaches make and the whole job
	kill -INT -- "-$pid" 2>/dev/null || kill -INT "$pid"
	for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	wait "$pid" || true
	[ "$(cat "$W/due.txt")" = "Due: yesterday." ]
	[ ! -e "$W/due.txt.tmp" ]
}

@test "the README's cron line: a failed run keeps yesterday's output and leaves no temporary file" {
	recipe_env
	local line cmd
	line=$(awk '/^```cron/ { on = 1; next } /^```/ { on = 0 } on && !/^#/' "$BATS_TEST_DIRNAME/../README.md")
	cmd=$(sed -E 's/^([^ ]+ +){5}//' <<<"$line")
	cmd=${cmd//\/usr\/local\/bin\/ai-loop/$BIN/ai-loop}
	mkdir -p "$HOME/project"
	cp "$W/notes.md" "$HOME/project/"
	cron() { setsid -w env -i HOME="$HOME" PATH=/usr/bin:/bin sh -c "$cmd" </dev/null; }
	answer "Due: the man page."
	run --separate-stderr cron
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	[ "$(cat "$HOME/project/due.txt")" = "Due: the man page." ]
	failing
	run --separate-stderr cron
	# cron mails what the failure said
	[[ "$stderr" == "ai-loop: ai-ask: "*"answered HTTP 500"*"down"* ]]
	[ "$(cat "$HOME/project/due.txt")" = "Due: the man page." ]
	[ ! -e "$HOME/project/due.txt.tmp" ]
}

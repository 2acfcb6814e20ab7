#!/usr/bin/env bats
# The README's examples run.  Every line of the ```sh blocks in the README's
# "## Examples" section is a command (a trailing backslash continues it;
# lines starting with # are comments).  Each runs in a scratch folder holding
# the files of tests/readme/, with bin/ first on PATH and every provider
# pointed at the mock server through a configuration file, and must exit 0
# with something on stdout.

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

# Bats helper for a suite that runs the tools against the mock with a model set up.
#
#   bats_require_minimum_version 1.5.0
#   load helpers/suite
#   setup() { suite_setup; ...; }
#
# It starts the mock for the file (setup_file, teardown_file) and gives
# suite_setup, which every test calls first: the mock's script and log
# reset, an environment that says nothing else (env.bash), an empty
# configuration file, OpenAI and Anthropic pointed at the mock with test
# keys, and W, the test's own folder, as the current directory.

_SUITE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$_SUITE_DIR/mock.bash"
source "$_SUITE_DIR/env.bash"

setup_file() { mock_start; }
teardown_file() { mock_stop; }

suite_setup() {
	mock_reset
	clean_env
	W="$BATS_TEST_TMPDIR"
	export AICLI_CONFIG="$W/config.json"
	echo '{}' > "$AICLI_CONFIG"
	export OPENAI_BASE_URL="$MOCK_URL/v1" OPENAI_API_KEY="sk-suite-test-0123456789abcdef"
	export ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY="sk-ant-suite-0123456789abcdef"
	cd "$W"
}

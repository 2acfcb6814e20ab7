# Bats helper: start each test from an environment that says nothing.
#
#   load helpers/env
#   setup() { clean_env; export WHAT_THIS_TEST_NEEDS=...; }
#
# clean_env unsets every variable an aicli tool reads (each AICLI_* one, the
# providers' keys and base URLs, the search keys, XDG_CONFIG_HOME, NO_COLOR)
# and every proxy variable, and points HOME at an empty folder of the test's
# own, so that no setting of the machine running the tests reaches a tool.
# A test file then exports what it tests.

clean_env() {
	local v
	for v in $(compgen -v AICLI_); do
		unset "$v"
	done
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY
	unset OPENAI_API_KEY OPENAI_BASE_URL ANTHROPIC_API_KEY ANTHROPIC_BASE_URL OLLAMA_HOST
	unset GOOGLE_API_KEY GOOGLE_CSE_CX BRAVE_API_KEY TAVILY_API_KEY EXA_API_KEY
	unset XDG_CONFIG_HOME NO_COLOR
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$HOME"
}

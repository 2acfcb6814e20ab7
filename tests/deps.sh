#!/bin/sh
# Install the Debian packages aicli needs to build, test and benchmark.
# A no-op when they are all present.  Run by 'make deps'.
set -eu

# groff: the manuals are also rendered the way man(1) shows them; zsh and fish:
# the completions are tried in each shell; debhelper and lintian: make deb.
pkgs="build-essential pkg-config libcurl4-openssl-dev libcjson-dev libjq-dev
	bats jq curl python3 mandoc groff-base valgrind time clang libclang-rt-dev strace git ripgrep
	zsh fish debhelper lintian"

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all present"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "deps: need root to install:$missing" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! $sudo apt-get install -y --no-install-recommends $missing; then
	$sudo apt-get update
	$sudo apt-get install -y --no-install-recommends $missing
fi

#!/bin/sh
# make fuzz: build each tests/fuzz/fuzz_*.c with libFuzzer, ASan and UBSan
# (clang), then run each for SECONDS (default 60) over its seed corpus.
# A crash or a failed invariant fails the run; the input is left in build/.
set -eu

seconds=${1:-60}
cd "$(dirname "$0")/../.."
out=tests/fuzz/build
mkdir -p "$out"
CC=${FUZZ_CC:-clang}
version=$(sed -n 's/^VERSION *= *//p' Makefile)
flags="-std=c11 -Wall -Wextra -Werror -g -O1 -D_GNU_SOURCE -DAI_VERSION=\"$version\" -Ilib $(pkg-config --cflags libcjson) -fsanitize=fuzzer,address,undefined"
libs="$(pkg-config --libs libcjson)"
lib_src=$(ls lib/*.c)

for t in tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	echo "fuzz: building $name"
	# a target names the tool sources it needs on a " * fuzz-sources: ..." line;
	# without one, a target named fuzz_TOOL_*.c gets ai-TOOL's sources but main.c
	extra=$(sed -n 's/^ \* fuzz-sources: //p' "$t")
	tool=$(echo "$name" | sed -n 's/^fuzz_\([a-z]*\)_.*/ai-\1/p')
	if [ -z "$extra" ] && [ -n "$tool" ] && [ -d "$tool" ]; then
		extra=$(ls "$tool"/*.c | grep -v '/main\.c$')
	fi
	# shellcheck disable=SC2086
	$CC $flags -o "$out/$name" "$t" $extra $lib_src $libs
	corpus="$out/corpus-$name"
	mkdir -p "$corpus"
	seeds="tests/fuzz/seeds/${name#fuzz_}"
	[ -d "$seeds" ] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
	echo "fuzz: running $name for ${seconds}s"
	if ! (cd "$out" && "./$name" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
		-artifact_prefix="./$name-" "corpus-$name" > "$name.log" 2>&1); then
		tail -n 30 "$out/$name.log"
		echo "fuzz: $name failed; the input is in $out/" >&2
		exit 1
	fi
	tail -n 1 "$out/$name.log"
done
echo "fuzz: no crash"

#!/usr/bin/env bats
# What every tool in bin/ owes its users, checked for each one: --help that
# matches the man page's SYNOPSIS, --version, a usage error with exit 64 and
# nothing on stdout, a complete man page, and no libcurl at start-up.

setup() {
	ROOT="$BATS_TEST_DIRNAME/.."
	TOOLS=()
	for b in "$ROOT"/bin/ai-*; do
		if [ -x "$b" ]; then TOOLS+=("$(basename "$b")"); fi
	done
}

# The SYNOPSIS entries of a man page, one per line, whitespace normalized.
man_synopsis() {
	MANWIDTH=1000 mandoc -Tascii -O width=1000 "$1" | col -b |
		awk '/^SYNOPSIS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' |
		awk -v name="$2" '
			{ line = $0; sub(/^[ \t]+/, "", line) }
			line == "" { next }
			index(line, name " ") == 1 || line == name { if (cur != "") print cur; cur = line; next }
			{ cur = cur " " line }
			END { if (cur != "") print cur }' |
		tr -s ' \t' '  '
}

# The usage lines of --help, the same way: a line that does not start with
# the tool's name continues the one before (usage lines are wrapped).
help_synopsis() {
	"$1" --help | awk -v name="$(basename "$1")" '
		NR == 1 { sub(/^usage: /, ""); cur = $0; next }
		/^$/ { exit }
		{ line = $0; sub(/^[ \t]+/, "", line) }
		index(line, name " ") == 1 { print cur; cur = line; next }
		{ cur = cur " " line }
		END { if (cur != "") print cur }' | tr -s ' \t' '  '
}

@test "every tool folder has a built binary and a man page" {
	for d in "$ROOT"/ai-*/; do
		[ -d "$d" ] || continue
		t=$(basename "$d")
		[ -x "$ROOT/bin/$t" ] || { echo "no bin/$t"; false; }
		[ -f "$ROOT/man/$t.1" ] || { echo "no man/$t.1"; false; }
	done
}

@test "--help matches the man page SYNOPSIS, line for line" {
	for t in "${TOOLS[@]}"; do
		want=$(man_synopsis "$ROOT/man/$t.1" "$t")
		got=$(help_synopsis "$ROOT/bin/$t")
		if [ "$want" != "$got" ]; then
			echo "$t: man SYNOPSIS:"; echo "$want"; echo "$t: --help:"; echo "$got"
			false
		fi
	done
}

@test "--help fits in 80 columns, every tool; wrapped usage lines go under the tool's arguments" {
	for t in "${TOOLS[@]}"; do
		"$ROOT/bin/$t" --help > "$BATS_TEST_TMPDIR/help"
		long=$(awk 'length($0) > 80 { print FILENAME ":" NR ": " length($0) " columns: " $0 }' \
			"$BATS_TEST_TMPDIR/help")
		[ -z "$long" ] || { echo "$t --help: $long"; false; }
		# a continuation of a usage line starts under the first argument
		indent=$(printf 'usage: %s ' "$t" | wc -c)
		awk -v n="$indent" -v t="$t" 'NR == 1 { next } /^$/ { exit }
			/^       ai-/ { next }
			{ match($0, /^ +/); if (RLENGTH != n) { print t ": bad indent: " $0; bad = 1 } }
			END { exit bad }' "$BATS_TEST_TMPDIR/help"
		# descriptions too: every line of the option list is indented
		awk '/^Options:$/ { on = 1; next } on && /^$/ { exit } on && !/^  / { print; bad = 1 }
			END { exit bad }' "$BATS_TEST_TMPDIR/help"
	done
}

@test "-h is --help, on stdout, exit 0" {
	for t in "${TOOLS[@]}"; do
		run "$ROOT/bin/$t" -h
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "usage: $t"* ]]
	done
}

@test "--version prints the suite version, exit 0" {
	v=$(awk '/^VERSION/ { print $3 }' "$ROOT/Makefile")
	for t in "${TOOLS[@]}"; do
		run "$ROOT/bin/$t" --version
		[ "$status" -eq 0 ]
		[ "$output" = "$t (aicli) $v" ]
	done
}

@test "an unknown option: exit 64, the option named, a hint, nothing on stdout" {
	for t in "${TOOLS[@]}"; do
		out=$("$ROOT/bin/$t" --no-such-option 2>"$BATS_TEST_TMPDIR/err" </dev/null) && false
		rc=$?
		[ "$rc" -eq 64 ] || { echo "$t: exit $rc"; false; }
		[ -z "$out" ]
		grep -qx "$t: unknown option '--no-such-option'" "$BATS_TEST_TMPDIR/err"
		grep -qx "$t: try '$t --help' for more information" "$BATS_TEST_TMPDIR/err"
	done
}

@test "every man page has the sections a user looks for" {
	for t in "${TOOLS[@]}"; do
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT "EXIT STATUS" EXAMPLES "SEE ALSO"; do
			grep -q "^\.Sh $s\$" "$ROOT/man/$t.1" || { echo "$t.1 lacks $s"; false; }
		done
	done
}

@test "no tool links libcurl: it is loaded on first request, so start-up stays fast" {
	for t in "${TOOLS[@]}"; do
		! ldd "$ROOT/bin/$t" | grep -q libcurl || { echo "$t links libcurl"; false; }
	done
}

# One usage error of each tool that the option parser does not catch.
usage_error_args() {
	case "$1" in
	ai-ask) echo "--tools a --schema b" ;;
	ai-context) echo "unexpected-operand" ;;
	ai-exec) echo "" ;;
	ai-search) echo "--json --text q" ;;
	ai-loop) echo "--max-steps 0 task" ;;
	*) return 1 ;;
	esac
}

@test "a usage error found after option parsing: its message and the hint, once each, exit 64" {
	for t in "${TOOLS[@]}"; do
		args=$(usage_error_args "$t") || { echo "no usage error known for $t: add one"; false; }
		# shellcheck disable=SC2086
		out=$("$ROOT/bin/$t" $args 2>"$BATS_TEST_TMPDIR/err" </dev/null) && false
		rc=$?
		[ "$rc" -eq 64 ] || { echo "$t $args: exit $rc"; cat "$BATS_TEST_TMPDIR/err"; false; }
		[ -z "$out" ]
		[ "$(wc -l < "$BATS_TEST_TMPDIR/err")" -eq 2 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
		[ "$(sed -n 2p "$BATS_TEST_TMPDIR/err")" = "$t: try '$t --help' for more information" ]
	done
}

#!/bin/sh
# Run the C unit tests of lib/, under valgrind when it is installed
# (--valgrind insists on it; --no-valgrind skips it, as SANITIZE=1 builds must).
set -u

mode=auto
case "${1:-}" in
--valgrind) mode=yes; shift ;;
--no-valgrind) mode=no; shift ;;
esac
if [ "$mode" = auto ]; then
	if command -v valgrind >/dev/null 2>&1; then mode=yes; else mode=no; fi
fi

fail=0
for t in "$@"; do
	if [ "$mode" = yes ]; then
		out=$(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
			--errors-for-leak-kinds=definite,indirect,possible "$t" 2>&1)
	else
		out=$("$t" 2>&1)
	fi
	rc=$?
	if [ $rc -ne 0 ]; then
		printf '%s\n' "$out"
		echo "FAIL: $t (exit $rc)"
		fail=1
	else
		printf '%s\n' "$out" | tail -n 1
	fi
done
[ $fail -eq 0 ] && echo "unit tests: all passed${mode:+ (valgrind: $mode)}"
exit $fail

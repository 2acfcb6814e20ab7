#!/bin/sh
# product-text.sh [ROOT]: fail when the product cites design documents,
# seeds, sections or issue numbers.  The product is what a user reads: the
# manuals, README, NEWS, the example configuration, the packaging, the code
# and its comments (every tool's folder, lib/, the Makefiles), and each
# built tool's --help.  Tests and benchmarks are not the product.  Each
# reference found is printed as FILE:LINE: TEXT; the exit status is 1 if
# there was any.
set -u

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# "seed 004", "seeds/", "issue 16", "issue #16", "§10.4", the design notes by name
pattern='[Ss]eeds?[ -]?0*[0-9]|seeds/|(^|[^A-Za-z])issue ?#?[0-9]|§|DESIGN\.md|LIBNOTES|STYLE\.md|[Dd]esign doc'

files=$(ls -d man README.md NEWS Makefile examples debian lib ai-* 2>/dev/null)
found=0
# shellcheck disable=SC2086
if [ -n "$files" ] && grep -rnIE "$pattern" $files; then
	found=1
fi
for t in bin/ai-*; do
	[ -x "$t" ] || continue
	out=$("$t" --help | grep -nE "$pattern")
	if [ -n "$out" ]; then
		printf '%s\n' "$out" | sed "s|^|$t --help:|"
		found=1
	fi
done
if [ "$found" -ne 0 ]; then
	echo "product text: the lines above cite design documents, seeds, sections or issue numbers;" \
		"say what the program does instead" >&2
	exit 1
fi
echo "product text: no reference to design documents, seeds, sections or issues"

#!/usr/bin/env bats
# The checks "make check" runs on the manuals and the product's text, run on
# pages and trees made to fail them: each fault is found and named.  (The
# real pages and tree are checked by make check-man and make check-text.)

setup() {
	CHECK="$BATS_TEST_DIRNAME/man/check.py"
	W="$BATS_TEST_TMPDIR"
}

# page NAME: a clean mdoc page, section 1, with BODY (stdin) as its DESCRIPTION
page() {
	{
		printf '%s\n' '.Dd November 26, 2026' ".Dt $(echo "$1" | tr a-z A-Z) 1" \
			".ds doc-volume General Commands Manual" '.Os aicli' '.Sh NAME' ".Nm $1" \
			'.Nd a test page' '.Sh DESCRIPTION'
		cat
	} > "$W/$1.1"
}

@test "a clean page passes" {
	page good <<'EOF2'
Status is
.Pq Do ok Dc , Do limit Dc No or Do error Dc .
.Bl -column "a longer limit" "16 MiB" -offset indent
.It Em limit Ta Em default Ta Em when reached
.It a longer limit Ta 16 MiB Ta exit 65
.El
EOF2
	run python3 "$CHECK" "$W/good.1"
	[ "$status" -eq 0 ]
	[ "$output" = "man pages: 1 render the same under mandoc and groff, without a warning" ]
}

@test "nested quotes, a cell running into the next, an unbreakable line, the BSD header: each found" {
	page bad <<'EOF2'
Status is
.Pq Dq ok , Dq limit No or Dq error .
.Bl -column "HTTP response size" "32 MiB" -offset indent
.It HTTP redirects Ta none for APIs Ta exit 76
.El
.Dl {"type":"tool_call","id":"call_1","name":"multiply","arguments":{"a":2,"b":3}}
EOF2
	sed -i '/^\.ds doc-volume/d' "$W/bad.1"
	run python3 "$CHECK" "$W/bad.1"
	[ "$status" -eq 1 ]
	echo "$output"
	[[ "$output" == *"groff prints a quote inside a quote that is not closed: ...page DESCRIPTION Status is (“ok, “limit or “error”””)."* ]]
	[[ "$output" == *"mandoc prints a quote inside a quote"* ]]
	[[ "$output" == *"bad.1:11: the table cell 'none for APIs' (13 columns) does not fit its column"* ]]
	[[ "$output" == *"groff and mandoc print different text: groff '"*"none for APIsexit 76"* ]]
	[[ "$output" == *"groff: troff: $W/bad.1:13: warning"*"can't break line"* ]]
	[[ "$output" == *"groff prints the header 'BAD(1) BSD General Commands Manual BAD(1)'; the standard one is 'BAD(1) General Commands Manual BAD(1)'"* ]]
	[[ "$output" == *"man pages: "*" problems" ]]
}

@test "mandoc's own warnings fail the check too" {
	page lint <<'EOF2'
.Sh DESCRIPTION
twice
EOF2
	run python3 "$CHECK" "$W/lint.1"
	[ "$status" -eq 1 ]
	[[ "$output" == *"mandoc: "*"duplicate section title: Sh DESCRIPTION"* ]]
}

@test "product text: a seed, a section sign, an issue number or a design note's name is found, in files and --help" {
	T="$W/tree"
	mkdir -p "$T/man" "$T/lib" "$T/ai-x" "$T/bin"
	printf '.Sh NAME\nas seed 004 \302\24710.4 says\n' > "$T/man/ai-x.1"
	printf '/* fixed for issue 16 */\nint x;\n' > "$T/lib/a.c"
	printf '/* POSIX Issue 8 has strlcpy; see the manual */\n' > "$T/ai-x/ok.c"
	printf '#!/bin/sh\necho "usage: ai-x (see DESIGN.md)"\n' > "$T/bin/ai-x"
	chmod +x "$T/bin/ai-x"
	run sh "$BATS_TEST_DIRNAME/product-text.sh" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"man/ai-x.1:2:as seed 004 §10.4 says"* ]]
	[[ "$output" == *"lib/a.c:1:/* fixed for issue 16 */"* ]]
	[[ "$output" == *"bin/ai-x --help:1:usage: ai-x (see DESIGN.md)"* ]]
	[[ "$output" != *"ok.c"* ]]
	rm "$T/man/ai-x.1" "$T/lib/a.c" "$T/bin/ai-x"
	run sh "$BATS_TEST_DIRNAME/product-text.sh" "$T"
	[ "$status" -eq 0 ]
}

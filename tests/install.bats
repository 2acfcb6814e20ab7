#!/usr/bin/env bats
# make install into a scratch DESTDIR puts every file where its user looks
# for it, and make uninstall takes all of them away again.  The version is
# written once, in the Makefile; the Debian changelog and NEWS agree with it.

setup() {
	ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
	D="$BATS_TEST_TMPDIR/dest"
	VERSION=$(sed -n 's/^VERSION *= *//p' "$ROOT/Makefile")
	TOOLS=()
	for b in "$ROOT"/bin/ai-*; do
		if [ -x "$b" ]; then TOOLS+=("$(basename "$b")"); fi
	done
}

# make in the source tree, with the build flags of the build being tested
# (a SANITIZE=1 check must not rebuild the tools with other flags)
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" SANITIZE="${SANITIZE:-}" "$@"
}

@test "make install: programs, manuals, completions for three shells, the examples and NEWS" {
	run mk install DESTDIR="$D" PREFIX=/usr/local
	[ "$status" -eq 0 ]
	P="$D/usr/local"
	for t in "${TOOLS[@]}"; do
		[ -x "$P/bin/$t" ]
		[ -f "$P/share/man/man1/$t.1" ]
		cmp "$P/share/bash-completion/completions/$t" "$ROOT/completions/bash/$t"
		cmp "$P/share/zsh/site-functions/_$t" "$ROOT/completions/zsh/_$t"
		cmp "$P/share/fish/vendor_completions.d/$t.fish" "$ROOT/completions/fish/$t.fish"
	done
	[ -f "$P/share/man/man7/aicli.7" ]
	cmp "$P/share/aicli/policy.json" "$ROOT/ai-exec/policy.json"
	cmp "$P/share/doc/aicli/examples/config.json" "$ROOT/examples/config.json"
	cmp "$P/share/doc/aicli/NEWS" "$ROOT/NEWS"
	# a new user's first run names the file to create and the example to start from
	run env -i HOME="$BATS_TEST_TMPDIR/home" PATH=/usr/bin:/bin "$P/bin/ai-ask" -n hi
	[ "$status" -eq 78 ]
	[[ "$output" == *"\"openai_api_key\" in $BATS_TEST_TMPDIR/home/.config/aicli/config.json (not created yet; an example is $P/share/doc/aicli/examples/config.json)" ]]
	# a distribution can put zsh's completions where its zsh looks
	run mk install DESTDIR="$D.2" PREFIX=/usr ZSHCOMPDIR=/usr/share/zsh/vendor-completions
	[ -f "$D.2/usr/share/zsh/vendor-completions/_ai-ask" ]
}

@test "make uninstall removes every file make install put, and the folders of its own" {
	mk install DESTDIR="$D" PREFIX=/opt/aicli
	[ -n "$(find "$D" -type f)" ]
	run mk uninstall DESTDIR="$D" PREFIX=/opt/aicli
	[ "$status" -eq 0 ]
	left=$(find "$D" -type f)
	[ -z "$left" ] || { echo "left: $left"; false; }
	[ ! -e "$D/opt/aicli/share/aicli" ]
	[ ! -e "$D/opt/aicli/share/doc/aicli" ]
	# what is not ours stays, also in the folders we share
	mk install DESTDIR="$D" PREFIX=/opt/aicli
	echo mine > "$D/opt/aicli/bin/other-tool"
	echo mine > "$D/opt/aicli/share/bash-completion/completions/other-tool"
	mk uninstall DESTDIR="$D" PREFIX=/opt/aicli
	[ "$(find "$D" -type f | sort)" = "$D/opt/aicli/bin/other-tool
$D/opt/aicli/share/bash-completion/completions/other-tool" ]
}

@test "the version is the Makefile's everywhere: the tools, debian/changelog, NEWS" {
	[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	# the Makefile's line is the only place the version is written in the code
	! grep -rn --include='*.[ch]' -F "\"$VERSION\"" "$ROOT/lib" "$ROOT"/ai-*
	[ "$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)" = "$VERSION" ]
	[ "$(awk '/^Version / { print $2; exit }' "$ROOT/NEWS")" = "$VERSION" ]
	run "$ROOT/bin/ai-ask" --version
	[ "$output" = "ai-ask (aicli) $VERSION" ]
}

#!/usr/bin/env bats
# The Debian package "make deb" built (run by "make check-deb", after it):
# lintian-clean, the Makefile's version, the dependencies it needs, and
# installed with dpkg into a scratch root, every file where it belongs and
# working; removed, nothing of it left.

setup_file() {
	ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
	VERSION=$(sed -n 's/^VERSION *= *//p' "$ROOT/Makefile")
	DEB="$ROOT/build/deb/aicli_${VERSION}_$(dpkg --print-architecture).deb"
	CHANGES="${DEB%.deb}.changes"
	export ROOT VERSION DEB CHANGES
	[ -f "$DEB" ] || { echo "no $DEB: run 'make check-deb'" >&2; return 1; }
}

# dpkg on the scratch root R, with its own empty database
sdpkg() { dpkg --root="$R" --log=/dev/null "$@"; }

setup() {
	R="$BATS_TEST_TMPDIR/root"
	mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
	: > "$R/var/lib/dpkg/status"
}

@test "lintian finds nothing, not even at the pedantic and info levels" {
	run lintian --pedantic --info --fail-on error,warning,info,pedantic "$CHANGES"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$(echo "$output" | grep -v 'running with root privileges is not recommended')" ]
}

@test "the package has the Makefile's version and depends on libcurl, which the programs load at run time" {
	[ "$(dpkg-deb -f "$DEB" Package)" = aicli ]
	[ "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" ]
	deps=$(dpkg-deb -f "$DEB" Depends)
	[[ "$deps" == *"libcurl4 (>= 7.88)"* ]]
	[[ "$deps" == *libcjson1* && "$deps" == *libjq1* && "$deps" == *libc6* ]]
	# the run tool's sandbox: without it ai-exec --policy refuses, the rest works
	[ "$(dpkg-deb -f "$DEB" Recommends)" = bubblewrap ]
	# no program links libcurl: without the explicit dependency nothing would pull it in
	dpkg-deb -x "$DEB" "$BATS_TEST_TMPDIR/x"
	! ldd "$BATS_TEST_TMPDIR/x/usr/bin/ai-ask" | grep -q libcurl
}

@test "installed into a scratch root: programs, manuals, completions, examples, each where it belongs" {
	run sdpkg --force-depends -i "$DEB"
	[ "$status" -eq 0 ]
	for t in ai-ask ai-context ai-exec ai-loop ai-search; do
		[ -x "$R/usr/bin/$t" ]
		[ -f "$R/usr/share/man/man1/$t.1.gz" ]
		[ -f "$R/usr/share/bash-completion/completions/$t" ]
		[ -f "$R/usr/share/zsh/vendor-completions/_$t" ]
		[ -f "$R/usr/share/fish/vendor_completions.d/$t.fish" ]
		run "$R/usr/bin/$t" --version
		[ "$output" = "$t (aicli) $VERSION" ]
		# the completions are the installed program's own
		diff <("$R/usr/bin/$t" --aicli-completion bash) "$R/usr/share/bash-completion/completions/$t"
	done
	[ -f "$R/usr/share/man/man7/aicli.7.gz" ]
	zcat "$R/usr/share/man/man1/ai-ask.1.gz" | cmp - "$ROOT/man/ai-ask.1"
	cmp "$R/usr/share/aicli/policy.json" "$ROOT/ai-exec/policy.json"
	cmp "$R/usr/share/doc/aicli/examples/config.json" "$ROOT/examples/config.json"
	zcat "$R/usr/share/doc/aicli/NEWS.gz" | cmp - "$ROOT/NEWS"
	[ -f "$R/usr/share/doc/aicli/copyright" ]
	# dpkg knows every file
	sdpkg -L aicli | grep -qx /usr/share/doc/aicli/examples/config.json
}

@test "the installed ai-ask points a new user at the installed example configuration" {
	sdpkg --force-depends -i "$DEB" >/dev/null 2>&1
	run env -i HOME="$BATS_TEST_TMPDIR/home" PATH=/usr/bin:/bin "$R/usr/bin/ai-ask" -n hi
	[ "$status" -eq 78 ]
	[ "$output" = "ai-ask: no API key for openai: set OPENAI_API_KEY or AICLI_OPENAI_API_KEY, or \"openai_api_key\" in $BATS_TEST_TMPDIR/home/.config/aicli/config.json (not created yet; an example is $R/usr/share/doc/aicli/examples/config.json)" ]
}

@test "removed, nothing of the package is left" {
	sdpkg --force-depends -i "$DEB" >/dev/null 2>&1
	run sdpkg -r aicli
	[ "$status" -eq 0 ]
	left=$(cd "$R" && find . -path ./var -prune -o -print | grep -v '^\.$' || true)
	[ -z "$left" ] || { echo "left: $left"; false; }
}

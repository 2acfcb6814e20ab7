#!/usr/bin/env bats
# Shell completions: bash, zsh and fish, each through the shell itself.
# Every option a tool's --help lists must be offered by every shell (the
# scripts are made from the same option table, so an option someone adds is
# checked here without anyone touching this file); values complete to their
# choices, files, programs or template names.

bats_require_minimum_version 1.5.0
load helpers/env

setup() {
	clean_env
	ROOT="$BATS_TEST_DIRNAME/.."
	COMP="$ROOT/completions"
	TOOLS=()
	for b in "$ROOT"/bin/ai-*; do
		if [ -x "$b" ]; then TOOLS+=("$(basename "$b")"); fi
	done
	[ "${#TOOLS[@]}" -gt 0 ]
	W="$BATS_TEST_TMPDIR/work"
	mkdir -p "$W"
	cd "$W"
	: > notes.md
	: > build.log
	mkdir -p subdir
	export PATH="$ROOT/bin:$PATH"
}

# The options of a tool, from its --help, one per line (-m, --model, ...).
help_options() {
	"$ROOT/bin/$1" --help | awk '/^Options:$/ { on = 1; next } on && /^$/ { exit }
		on && /^  -/ {
			if (match($0, /^  -[^-,]/)) print substr($0, 3, 2)
			if (match($0, /--[a-z0-9-]+/)) print substr($0, RSTART, RLENGTH)
		}' | sort -u
}

# What bash offers for the command line (the last word being completed).
bash_complete() {
	bash -c 'source "$1"; shift; fn=$(complete -p "$1" | sed -n "s/.*-F \([^ ]*\).*/\1/p")
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "$fn"; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$COMP/bash/$1" "$@" | sort -u
}

zsh_complete() {
	ZCOMPDUMP="$BATS_FILE_TMPDIR/zcompdump" zsh -f "$BATS_TEST_DIRNAME/helpers/zsh-complete.zsh" \
		"$COMP/zsh" "$*"
}

fish_complete() {
	fish -N -c 'source $argv[1]; complete -C $argv[2]' "$COMP/fish/$1.fish" "$*" | cut -f1 | sort -u
}

# missing WANTED GOT: the lines of WANTED that are not in GOT
missing() { comm -23 <(printf '%s\n' "$1" | sort -u) <(printf '%s\n' "$2" | sort -u); }

@test "the scripts the build made are what each tool prints for its shell" {
	for t in "${TOOLS[@]}"; do
		diff <("$ROOT/bin/$t" --aicli-completion bash) "$COMP/bash/$t"
		diff <("$ROOT/bin/$t" --aicli-completion zsh) "$COMP/zsh/_$t"
		diff <("$ROOT/bin/$t" --aicli-completion=fish) "$COMP/fish/$t.fish"
		head -1 "$COMP/zsh/_$t" | grep -qx "#compdef $t"
	done
}

@test "bash offers every option of every tool" {
	for t in "${TOOLS[@]}"; do
		want=$(help_options "$t")
		[ "$(echo "$want" | wc -l)" -ge 4 ]
		got=$(bash_complete "$t" -)
		m=$(missing "$want" "$got")
		[ -z "$m" ] || { echo "bash does not offer for $t: $m"; false; }
		# and only options
		[ -z "$(echo "$got" | grep -v '^-')" ]
	done
}

@test "zsh offers every option of every tool" {
	for t in "${TOOLS[@]}"; do
		want=$(help_options "$t")
		got=$(zsh_complete "$t -")
		m=$(missing "$want" "$got")
		[ -z "$m" ] || { echo "zsh does not offer for $t: $m"; echo "it offers: $got"; false; }
	done
}

@test "fish offers every option of every tool" {
	for t in "${TOOLS[@]}"; do
		want=$(help_options "$t")
		got=$(fish_complete "$t" -)
		m=$(missing "$want" "$got")
		[ -z "$m" ] || { echo "fish does not offer for $t: $m"; false; }
	done
}

@test "a value with choices completes to them, in each shell" {
	want=$'anthropic\nollama\nopenai\nopenai-chat'
	[ "$(bash_complete ai-ask --provider '')" = "$want" ]
	[ "$(bash_complete ai-ask --provider = '')" = "$want" ]
	[ "$(bash_complete ai-ask --provider op)" = $'openai\nopenai-chat' ]
	[ "$(zsh_complete ai-ask --provider '')" = "$want" ]
	[ "$(fish_complete ai-ask --provider '')" = "$want" ]
	want=$'brave\nexa\ngoogle_cse\nsearxng\ntavily'
	[ "$(bash_complete ai-search --provider '')" = "$want" ]
	[ "$(zsh_complete ai-search --provider '')" = "$want" ]
	[ "$(fish_complete ai-search --provider '')" = "$want" ]
}

@test "a FILE or PATH value completes file names; free text completes nothing" {
	[ "$(bash_complete ai-loop --file '')" = $'build.log\nnotes.md\nsubdir' ]
	[ "$(bash_complete ai-ask --tools no)" = "notes.md" ]
	[ "$(zsh_complete ai-loop --file no)" = "notes.md" ]
	fish_complete ai-ask --schema '' | grep -qx notes.md
	fish_complete ai-ask --schema '' | grep -qx subdir/
	[ -z "$(bash_complete ai-ask --model '')" ]
	[ -z "$(fish_complete ai-ask --model '')" ]
}

@test "after ai-exec --run: a program, then that program's own words" {
	bash_complete ai-exec --policy p.json --run gi | grep -qx git
	[ "$(bash_complete ai-exec --run git no)" = "notes.md" ]
	zsh_complete ai-exec --policy p.json --run gi | grep -qx git
	fish_complete ai-exec --policy p.json --run gi | grep -qx git
}

@test "an unknown shell: a usage error naming the three, exit 64, nothing on stdout" {
	run --separate-stderr "$ROOT/bin/ai-ask" --aicli-completion tcsh
	[ "$status" -eq 64 ]
	[ -z "$output" ]
	[ "$stderr" = "ai-ask: option '--aicli-completion': 'tcsh' is not bash, zsh or fish
ai-ask: try 'ai-ask --help' for more information" ]
	# only alone on the command line: anywhere else it is an unknown option
	run --separate-stderr "$ROOT/bin/ai-ask" -n --aicli-completion bash
	[ "$status" -eq 64 ]
	[[ "$stderr" == "ai-ask: unknown option '--aicli-completion'"* ]]
}

# The words an option's --help names as its choices: "a, b or c (env ...)".
help_choices() {
	"$ROOT/bin/$1" --help | awk -v opt="^  (-., |    )--$2 " '
		$0 ~ opt { on = 1; sub(/^.*--[a-z-]+ [A-Z]+ +/, ""); text = $0; next }
		on && /^      +[^ -]/ { sub(/^ +/, ""); text = text " " $0; next }
		on { exit }
		END { print text }' | sed 's/ (.*//; s/, / /g; s/ or / /' | tr ' ' '\n' | sort
}

@test "--provider completes to exactly the choices its --help names, in every tool that has it" {
	n=0
	for t in "${TOOLS[@]}"; do
		"$ROOT/bin/$t" --help | grep -q -- '--provider NAME' || continue
		n=$((n + 1))
		want=$(help_choices "$t" provider)
		[ "$(echo "$want" | wc -l)" -ge 3 ]
		[ "$(bash_complete "$t" --provider '')" = "$want" ] || {
			echo "$t: --help names: $want"; echo "completion offers: $(bash_complete "$t" --provider '')"
			false
		}
	done
	[ "$n" -ge 3 ]
}

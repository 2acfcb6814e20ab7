#!/usr/bin/zsh -f
# zsh-complete.zsh DIR LINE: what zsh's own completion system offers at the
# end of the command line LINE, one word per line, sorted, with the
# completion functions in DIR first in fpath.  It runs an interactive zsh on
# a pseudo-terminal (zsh/zpty), types LINE and a Tab, and records every word
# compadd accepts.  Exit 3 when zsh does not start; nothing waits more
# than about 5 seconds.  With ZCOMPDUMP set to a file, compinit keeps its
# scan of the completion functions there, which makes further runs faster.
zmodload zsh/zpty || exit 2
dir=$1 line=$2
zpty z zsh -f -i
zpty -w z "PS1='' PROMPT_EOL_MARK='' LISTMAX=100000"
# $ZCOMPDUMP (when set) keeps compinit's scan of fpath from one run to the next
if [[ -n $ZCOMPDUMP ]]; then
	zpty -w z "fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -d ${(q)ZCOMPDUMP}"
else
	zpty -w z "fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -D"
fi
zpty -w z 'zstyle ":completion:*" list-grouped false; zstyle ":completion:*" format ""'
zpty -w z 'compadd() {
	if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
	local -a hits; builtin compadd -A hits "$@"
	(( $#hits )) || return 1
	print -r -- $'"'"'\n'"'"'@@${^hits}
	builtin compadd "$@"
}'
# Tab completes, then says it is done
zpty -w z '_aicli_tab() { zle complete-word; print -r -- $'"'"'\n'"'"'##DO""NE; }'
zpty -w z "zle -N _aicli_tab; bindkey '^I' _aicli_tab"
# the marker is split in the command so that only its output matches
zpty -w z "print -r -- @@RE\"\"ADY"
# read_until PATTERN: collect the terminal's output in $out until it matches
read_until() {
	local chunk
	integer i=0
	out=
	while (( ++i < 500 )); do
		zpty -r -t z chunk 2>/dev/null && out+=$chunk
		[[ $out == $~1 ]] && return 0
		sleep 0.01
	done
	return 1
}
read_until '*@@READY*' || exit 3
zpty -w -n z "$line"$'\t'
read_until '*##DONE*'
zpty -d z
for w in ${(M)${(f)out//$'\r'/}:#@@*}; do
	w=${w#@@}
	print -r -- ${w//[[:space:]]/}
done | sort -u

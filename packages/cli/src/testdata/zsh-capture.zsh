# Drives an interactive zsh in a pseudo-terminal, presses Tab after a command line, and prints each
# completion candidate on a line starting with <HIT>. Usage: zsh zsh-capture.zsh COMPLETION-SCRIPT "LINE" DUMP-DIR
# (compinit's dump in DUMP-DIR makes every run after the first fast).
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT=''; RPROMPT=''; autoload -U compinit; compinit -u -d ${3}/.zcompdump"
zpty -w z "source ${1}"
# compadd records what would be offered instead of showing it (the marker is split so its echo does not match).
zpty -w z 'compadd () { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; local -a __hits; builtin compadd -A __hits "$@"; local h; for h in $__hits; do print -r -- "<HI""T>$h"; done; }'
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false; zstyle ':completion:*' menu no"
zpty -w z "bindkey '^I' complete-word; null-line () { echo -E - \$'\0' }; compprefuncs=( null-line ); comppostfuncs=( null-line exit )"
zpty -n -w z "$2"$'\t'
integer seen=0
local line
while zpty -r z line; do
  [[ $line == *$'\0\r' ]] && (( seen++ )) && (( seen == 2 )) && break
  [[ $line == *'<HIT>'* ]] && print -r -- "${${line#*<HIT>}%$'\r'}"
done
zpty -d z

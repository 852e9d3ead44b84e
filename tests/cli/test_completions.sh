#!/bin/sh
# cli-run: long
# The zsh and fish completions against the binary: options (every one of
# --help, and the log options), the values of -f, files and directories,
# set names, and counter paths asked live from a --root fixture, quoted
# right for backslashes, spaces, parentheses and quotes; and the log options
# in the bash completion.
#
# zsh is driven for real: an interactive zsh in a zpty runs compinit with
# completions/ first in $fpath, the test types a line and Tab, and reads
# back the matches (a compadd wrapper records them) and the line as Tab
# left it (a widget writes $BUFFER). fish answers `complete -C LINE`; when
# zsh is here too, fish also runs interactively in a zpty, to check the line
# a Tab leaves. A shell that is not installed is skipped (exit 77 when any is).
set -eu
. "$(dirname "$0")/lib.sh"
# (printf: the messages hold backslashes, which dash's echo would eat)
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }

repo=$(cd "$(dirname "$0")/../.." && pwd)
zcomp=$repo/completions/_getcounter
fcomp=$repo/completions/getcounter.fish
F=$FIXTURES/cli-basic/t0
LD=$FIXTURES/ldisk-basic/t0
for f in "$zcomp" "$fcomp"; do
	[ -f "$f" ] || fail "missing $f"
done
[ -d "$F" ] && [ -d "$LD" ] || fail "missing fixtures $F or $LD"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT; [ -n "${KEEP-}" ] && trap - EXIT && echo "tmp=$tmp"
skipped=""

# The options: those of --help (long, short, the Windows spellings) and the
# binary-log options, which every completion offers.
expect_exit 0 "$GETCOUNTER" --help
help=$out
{
	printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]+'
	printf '%s\n' "$help" | sed -n 's/^  \(-[a-zA-Z]\),.*/\1/p'
	printf '%s\n' "$help" | sed -n '/^Windows spellings/,/^$/p' | grep -oE -- '-[A-Za-z]+'
	printf '%s\n' --log --input --begin --end --every --summary --max-size --circular \
		--append '-?'
} | sort -u >"$tmp/options"
[ "$(wc -l <"$tmp/options")" -ge 40 ] || fail "few options found: $(cat "$tmp/options")"

# A root with an interface whose name needs every kind of quoting.
odd=$tmp/odd/t0
mkdir -p "$odd/proc/net" "$odd/proc/sys/kernel"
echo fixture >"$odd/proc/sys/kernel/hostname"
echo '1000.00 1000.00' >"$odd/proc/uptime"
cat >"$odd/proc/net/dev" <<'EOF'
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0
we(ird)$x'q"b\k: 1000    10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0
EOF
files=$tmp/files
mkdir -p "$files/adir" "$files/logs"
: >"$files/afile"
: >"$files/logs/day1.gcl"
: >"$files/logs/day1.csv"
# a capture file of one frame, for --pcap's instances
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\001\000\000\000\144\000\000\000\000\000\000\000\074\000\000\000\074\000\000\000' >"$files/cap.pcap"
head -c 60 /dev/zero >>"$files/cap.pcap"
mkdir "$files/logs/old"
# The paths of the round trip: the instances that need quoting, and the
# first counter of every set of each root.
{
	"$GETCOUNTER" --root "$odd" -q -x | grep -F '(we(ird)'
	"$GETCOUNTER" --root "$LD" -q -x | grep -F '(/mnt/my'
	for r in "$odd" "$LD"; do
		"$GETCOUNTER" --root "$r" -q -x | awk -F'\\' '!seen[$2]++'
	done
} >"$tmp/paths"
# the root of each path: the odd one for its interface, else LD
[ "$(wc -l <"$tmp/paths")" -ge 80 ] || fail "few paths for the round trip: $(cat "$tmp/paths")"
# The round trips test the completion scripts, not the binary, and each
# completion starts the binary: a tenth of a second under ASan (make asan),
# where they took three minutes. There they take the paths that need
# quoting and every fourth other one, and ask for fewer trips.
rt_min=200
if grep -q __asan_init "$GETCOUNTER"; then
	awk '/\(we\(ird\)|\(\/mnt\/my/ || NR % 4 == 1' "$tmp/paths" >"$tmp/paths.asan"
	mv "$tmp/paths.asan" "$tmp/paths"
	rt_min=60
fi
"$GETCOUNTER" --root "$odd" -q -x >"$tmp/odd.paths"
"$GETCOUNTER" -l | sed -n 's/^CounterSetName : //p' >"$tmp/sets"
[ -s "$tmp/sets" ] || fail "-l printed no sets"
"$GETCOUNTER" -q Processor | sed 's/.*\\//' >"$tmp/proc.counters"

# The driver of an interactive shell in a zpty (zsh's module), for the
# zsh checks and for fish's line after Tab. The shell's setup binds ^X^T to
# a widget that appends "B:<the line>" and "E" to $ZLOG and clears the line.
cat >"$tmp/drive.zsh" <<'EOF'
zmodload zsh/zpty zsh/zselect
fails=0
bad() { print -r -- "FAIL: $*"; (( ++fails )); }
# press KEYS: type KEYS then ^X^T, and wait until the line is in $ZLOG
press() {
	local i l
	: >$ZLOG
	zpty -w -n $PTY "$1"$'\C-x\C-t'
	for ((i = 0; i < 3000; i++)); do
		[[ -s $ZLOG && $(<$ZLOG) == *$'\n'E ]] && break
		zselect -t 1 || :
	done
	while zpty -r -t $PTY l; do :; done
	if (( i == 3000 )); then
		print -r -- "FAIL: $PTY does not answer after ${(q+)1}"
		exit 1
	fi
}
# start NAME COMMAND SETUP: run COMMAND in a zpty, have it source SETUP,
# and wait until its line editor answers (keys typed ahead are kept)
start() {
	PTY=$1
	zpty -b $PTY "env TERM=xterm $2"
	zpty -w $PTY "source ${(q)3}"
	press ''
}
EOF

# ============================================================================
# zsh
# ============================================================================
if command -v zsh >/dev/null 2>&1 && zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
	zsh -n "$zcomp" || fail "zsh -n $zcomp"
	cat >"$tmp/setup.zsh" <<'EOF'
# sourced by the zsh under test, in its zpty
PS1='' PROMPT='' RPROMPT='' PS2=''
unsetopt autolist beep listbeep
bindkey -e
fpath=($ZCOMPDIR $fpath)
autoload -U compinit && compinit -u -D
# Record the words each compadd adds (as given, with -O), unless it only
# asks which words match (-O, -A, -D).
compadd() {
	if [[ " ${@[1,(i)(-|--)]} " == *\ -[A-Za-z]#[OAD]\ * ]]; then
		builtin compadd "$@"
		return
	fi
	local -a __hits
	builtin compadd -O __hits "$@"
	(( ${#__hits} )) && print -rl -- "${__hits[@]/#/M:}" >>$ZLOG
	builtin compadd "$@"
}
_zdump() { print -r -- "B:$BUFFER" >>$ZLOG; print E >>$ZLOG; BUFFER=""; }
zle -N _zdump
bindkey '^X^T' _zdump
EOF
	cat >"$tmp/test.zsh" <<'EOF'
# run by zsh: $1 the driver, $2 the setup file, $3 the checks
setopt extendedglob
source $1
start z 'zsh -f -i' $2

# comp LINE: type LINE and Tab; hits: the words offered, buf: the line after
comp() {
	local l
	press "$1"$'\t'
	hits=() buf=""
	for l in "${(@f)$(<$ZLOG)}"; do
		case $l in
		M:*) hits+=("${l#M:}") ;;
		B:*) buf=${l#B:} ;;
		esac
	done
	hits=(${(u)hits})
}
# is LINE WANT...: the words offered are exactly WANT (in any order)
is() {
	local line=$1
	shift
	comp "$line"
	[[ "${(oj:|:)hits}" == "${(oj:|:)@}" ]] || bad "'$line' => [${(j:|:)hits}], wanted [${(j:|:)@}]"
}
# has LINE WANT...: each WANT is offered
has() {
	local line=$1 w
	shift
	comp "$line"
	for w; do
		(( ${hits[(Ie)$w]} )) || bad "'$line' => [${(j:|:)hits}], wanted it to contain [$w]"
	done
}
# lacks LINE NOT...: no NOT is offered
lacks() {
	local line=$1 w
	shift
	comp "$line"
	for w; do
		(( ! ${hits[(Ie)$w]} )) || bad "'$line' => [${(j:|:)hits}], wanted no [$w]"
	done
}
# tab LINE WANT: Tab turns LINE into WANT
tab() {
	comp "$1"
	[[ $buf == "$2" ]] || bad "'$1' + Tab => [$buf], wanted [$2] (${(q+)buf} ${(q+)2})"
}
source $3
zpty -d z
exit $((fails > 0))
EOF
	cat >"$tmp/checks.zsh" <<'EOF'
# options
is 'getcounter --inter' --interval
is 'getcounter --counter-f' --counter-file
tab 'getcounter --vers' 'getcounter --version '
tab 'getcounter -Sample' 'getcounter -SampleInterval '
tab 'getcounter -sampleint' 'getcounter -SampleInterval '
tab 'getcounter -maxs' 'getcounter -MaxSamples '
tab 'getcounter -listS' 'getcounter -ListSet '
tab 'getcounter --max-s' 'getcounter --max-size '
has 'getcounter -' ${(f)"$(<$TMP/options)"}
is 'getcounter --c' --counter --counter-file --continuous --circular --capture-filter --capture-buffer
# -f values
is 'getcounter -f ' table list csv tsv json gcl BIN
is 'getcounter --format ' table list csv tsv json gcl BIN
is 'getcounter -f c' csv
is 'getcounter -F t' table tsv
tab 'getcounter -f b' 'getcounter -f BIN '
tab 'getcounter --format=j' 'getcounter --format=json '
tab 'getcounter -f g' 'getcounter -f gcl '
is 'getcounter -n 3 -i '
is 'getcounter --every '
# files and directories
tab "getcounter -o $FILES/af" "getcounter -o $FILES/afile "
tab "getcounter --output $FILES/af" "getcounter --output $FILES/afile "
tab "getcounter -cf $FILES/af" "getcounter -cf $FILES/afile "
tab "getcounter --counter-file $FILES/af" "getcounter --counter-file $FILES/afile "
tab "getcounter --output=$FILES/af" "getcounter --output=$FILES/afile "
tab "getcounter --root $FILES/ad" "getcounter --root $FILES/adir/"
lacks "getcounter --root $FILES/" afile
tab "getcounter --root=$FILES/ad" "getcounter --root=$FILES/adir/"
has "getcounter --log $FILES/logs/" day1.gcl old
lacks "getcounter --log $FILES/logs/" day1.csv
has "getcounter --input $FILES/logs/" day1.gcl old
lacks "getcounter --input $FILES/logs/" day1.csv
tab "getcounter --input=$FILES/logs/d" "getcounter --input=$FILES/logs/day1.gcl "
tab "getcounter --log $FILES/logs/d" "getcounter --log $FILES/logs/day1.gcl "
# set names after -l / -q
tab 'getcounter -l PhysicalD' 'getcounter -l PhysicalDisk '
is 'getcounter -l Phy' 'Physical Network Interface Card Activity' PhysicalDisk
tab 'getcounter -q Mem' 'getcounter -q Memory '
tab 'getcounter -ListSet Network\ A' 'getcounter -ListSet Network\ Adapter '
tab "getcounter -q 'Network A" "getcounter -q 'Network Adapter' "
tab "getcounter -qx 'proc" "getcounter -qx 'Processor"

# counter paths: sets first, then instances, then counters
tab "getcounter '\\Mem" "getcounter '\\Memory\\"
has "getcounter '\\Mem" '\Memory\Available MBytes'
tab 'getcounter \\Mem' 'getcounter \\Memory\\'
tab 'getcounter \Mem' 'getcounter \\Memory\\'
tab 'getcounter "\Mem' 'getcounter "\\Memory\\'
tab 'getcounter -c "\Mem' 'getcounter -c "\\Memory\\'
tab "getcounter -Counter '\\mem" "getcounter -Counter '\\Memory\\"
tab "getcounter -COUNTER '\\mem" "getcounter -COUNTER '\\Memory\\"
has "getcounter --counter='\\Mem" '\Memory\Available MBytes'
has 'getcounter --counter=\\Mem' '\Memory\Available MBytes'
tab "getcounter '\\\\localhost\\Mem" "getcounter '\\\\localhost\\Memory\\"
tab "getcounter '\\Memory\\Available MB" "getcounter '\\Memory\\Available MBytes' "
tab 'getcounter \\Memory\\Available\ MB' 'getcounter \\Memory\\Available\ MBytes '
tab 'getcounter "\Memory\Available MB' 'getcounter "\\Memory\\Available MBytes" '
for s in ${(f)"$(<$TMP/sets)"}; do
	comp "getcounter --root $ROOT '"
	w1="\\$s(" w2="\\$s\\"
	(( ${hits[(Ie)$w1]} || ${hits[(Ie)$w2]} )) || [[ $s == 'Network Interface' ]] ||
		bad "'getcounter --root $ROOT '' lacks set $s: ${(j:|:)hits}"
done
is "getcounter --root $ROOT '\\Processor(" '\Processor(*)\' '\Processor(0)\' '\Processor(1)\' \
	'\Processor(_Total)\'
# a unique instance goes on to the counters, as -q lists them
is "getcounter --root $ROOT '\\processor(_T" \
	${(f)"$(sed 's/^/\\processor(_Total)\\/' $TMP/proc.counters)"}
tab "getcounter --root $ROOT '\\processor(_T" "getcounter --root $ROOT '\\processor(_Total)\\"
is "getcounter '\\Processor(_Total)\\% P" '\Processor(_Total)\% Processor Time' \
	'\Processor(_Total)\% Privileged Time'
tab 'getcounter \\Processor\(_Total\)\\%\ Pro' \
	'getcounter \\Processor\(_Total\)\\%\ Processor\ Time '
is "getcounter '\\System\\Load Average (1" '\System\Load Average (1 min)' \
	'\System\Load Average (15 min)'
tab 'getcounter \\System\\Load\ Average\ \(5' 'getcounter \\System\\Load\ Average\ \(5\ min\) '
has "getcounter --root $ROOT '\\Network Adapter(eth" '\Network Adapter(eth0)\Bytes Total/sec'
has "getcounter --root $ROOT '\\Network Interface(eth" '\Network Interface(eth0)\Bytes Total/sec'
has "getcounter --root $ROOT '\\PhysicalDisk(s" '\PhysicalDisk(sda)\Disk Reads/sec'
# spaces and parentheses in instances
is "getcounter --root $LD '\\LogicalDisk(/mnt/my" '\LogicalDisk(/mnt/my disk)\' \
	'\LogicalDisk(/mnt/my (old) disk)\'
tab "getcounter --root $LD '\\LogicalDisk(/mnt/my" "getcounter --root $LD '\\LogicalDisk(/mnt/my "
tab "getcounter --root $LD \\\\LogicalDisk\\(/mnt/my\\ d" \
	"getcounter --root $LD \\\\LogicalDisk\\(/mnt/my\\ disk\\)\\\\"
tab "getcounter --root $LD \"\\LogicalDisk(/mnt/my (old) disk)\\% Free S" \
	"getcounter --root $LD \"\\\\LogicalDisk(/mnt/my (old) disk)\\\\% Free Space\" "
tab "getcounter --root $LD '\\LogicalDisk(/mnt/my (old) disk)\\% Free S" \
	"getcounter --root $LD '\\LogicalDisk(/mnt/my (old) disk)\\% Free Space' "
has "getcounter --pcap $FILES/cap.pcap '\\Network Capture(f" \
	'\Network Capture(file:cap.pcap)\Frames Received/sec'
has "getcounter --root $ODD '\\Network Adapter(we" \
	"\\Network Adapter(we(ird)\$x'q\"b\\k)\\Bytes Total/sec"
# A set that is not there completes nothing.
is "getcounter '\\Nope\\X"

# Round trip: each path, cut before its last character and typed unquoted,
# in single quotes or in double quotes, is offered; when it is the only
# word offered, the line after Tab holds it, quoted right.
sq() { local s=${1//\'/\'\\\'\'}; print -rn -- "'$s" }
dq() { print -rn -- "\"${1//(#m)[\\\$\`\"]/\\$MATCH}" }
uq() { print -rn -- "${(q)1}" }
n=0
oddpaths=(${(f)"$(<$TMP/odd.paths)"})
for p in ${(f)"$(<$TMP/paths)"}; do
	root=$LD
	(( ${oddpaths[(Ie)$p]} )) && root=$ODD
	for mode in sq dq uq; do
		word=$($mode "${p%?}")
		comp "getcounter --root $root $word"
		(( ++n ))
		if (( ! ${hits[(Ie)$p]} )); then
			bad "$mode: '$word' => [${(j:|:)hits}], not $p"
		elif (( ${#hits} == 1 )); then
			w=${${(z)buf}[-1]}
			[[ ${(Q)w} == "$p" && ${${(z)buf}[3]} == $root ]] ||
				bad "$mode: '$word' + Tab => [$buf], not $p"
		fi
	done
done
(( n > RT_MIN )) || bad "the round trip tried only $n paths"
EOF
	ZLOG=$tmp/zlog ZCOMPDIR=$repo/completions GETCOUNTER_BIN=$GETCOUNTER TMP=$tmp ROOT=$F LD=$LD \
		RT_MIN=$rt_min \
		ODD=$odd FILES=$files HOME=$tmp ZDOTDIR=$tmp \
		timeout 600 zsh -f "$tmp/test.zsh" "$tmp/drive.zsh" "$tmp/setup.zsh" "$tmp/checks.zsh" \
		>"$tmp/zsh.out" 2>&1 ||
		fail "zsh completion: $(head -40 "$tmp/zsh.out")"
	[ ! -s "$tmp/zsh.out" ] || fail "zsh completion printed: $(head -20 "$tmp/zsh.out")"
	echo "zsh: ok"
else
	echo "zsh (with its zpty module) is not installed: zsh completion not tested"
	skipped="$skipped zsh"
fi

# ============================================================================
# fish
# ============================================================================
if command -v fish >/dev/null 2>&1; then
	fish --no-config -n "$fcomp" || fail "fish -n $fcomp"
	fc() {
		GETCOUNTER_BIN=$GETCOUNTER HOME=$tmp XDG_CONFIG_HOME=$tmp fish --no-config \
			-c 'source $argv[1]; complete -C $argv[2]' "$fcomp" "$1" >"$tmp/fc.raw" 2>"$tmp/fc.err" ||
			fail "fish: '$1': $(cat "$tmp/fc.err")"
		[ ! -s "$tmp/fc.err" ] || fail "fish: '$1' printed: $(cat "$tmp/fc.err")"
		cut -f1 "$tmp/fc.raw" | sort -u >"$tmp/fc"
	}
	# f_is LINE WANT...: the candidates are exactly WANT
	f_is() {
		line=$1
		shift
		fc "$line"
		printf '%s\n' "$@" | sed '/^$/d' | sort -u >"$tmp/want"
		cmp -s "$tmp/fc" "$tmp/want" ||
			fail "fish: '$line' => [$(paste -sd'|' "$tmp/fc")], wanted [$(paste -sd'|' "$tmp/want")]"
	}
	# f_has LINE WANT...: each WANT is a candidate
	f_has() {
		line=$1
		shift
		fc "$line"
		for w; do
			grep -qxF -- "$w" "$tmp/fc" ||
				fail "fish: '$line' => [$(paste -sd'|' "$tmp/fc")], wanted it to contain [$w]"
		done
	}
	# f_lacks LINE NOT...
	f_lacks() {
		line=$1
		shift
		fc "$line"
		for w; do
			! grep -qxF -- "$w" "$tmp/fc" ||
				fail "fish: '$line' => [$(paste -sd'|' "$tmp/fc")], wanted no [$w]"
		done
	}

	# options
	f_is 'getcounter --inter' --interval
	f_is 'getcounter --counter-f' --counter-file
	f_is 'getcounter --vers' --version
	f_is 'getcounter -Sample' -SampleInterval
	f_is 'getcounter -sampleint' -SampleInterval
	f_is 'getcounter -List' -ListSet
	f_is 'getcounter -maxs' -MaxSamples
	f_is 'getcounter -C' -Continuous -Counter -cf
	f_has 'getcounter --max' --max-size
	fc 'getcounter -'
	while IFS= read -r o; do
		grep -qxF -- "$o" "$tmp/fc" ||
			fail "fish: 'getcounter -' lacks option $o: $(paste -sd' ' "$tmp/fc")"
	done <"$tmp/options"
	# -f values
	f_is 'getcounter -f ' table list csv tsv json gcl BIN
	f_is 'getcounter --format ' table list csv tsv json gcl BIN
	f_is 'getcounter -f c' csv
	f_is 'getcounter -F t' table tsv
	f_has 'getcounter -f b' BIN
	f_is 'getcounter --format=j' --format=json
	f_is 'getcounter -n 3 -i '
	f_is 'getcounter --every '
	# files and directories
	f_is "getcounter -o $files/af" "$files/afile"
	f_is "getcounter --output $files/af" "$files/afile"
	f_is "getcounter -cf $files/af" "$files/afile"
	f_is "getcounter -CF $files/af" "$files/afile"
	f_is "getcounter --counter-file $files/af" "$files/afile"
	f_is "getcounter --output=$files/af" "--output=$files/afile"
	f_is "getcounter --root $files/a" "$files/adir/"
	f_is "getcounter --root=$files/a" "--root=$files/adir/"
	f_is "getcounter --log $files/logs/" "$files/logs/day1.gcl" "$files/logs/old/"
	f_is "getcounter --input $files/logs/" "$files/logs/day1.gcl" "$files/logs/old/"
	f_is "getcounter --input=$files/logs/d" "--input=$files/logs/day1.gcl"
	# set names after -l / -q
	f_is 'getcounter -l PhysicalD' PhysicalDisk
	f_is 'getcounter -l Phy' 'Physical Network Interface Card Activity' PhysicalDisk
	f_is 'getcounter -q Mem' Memory
	f_is 'getcounter -ListSet Network\ A' 'Network Adapter'
	f_is "getcounter -q 'Network A" 'Network Adapter'

	# counter paths: sets first, then instances, then counters
	f_has "getcounter '\\Mem" '\Memory\Available MBytes'
	f_has 'getcounter \\Mem' '\Memory\Available MBytes'
	f_has 'getcounter \Mem' '\Memory\Available MBytes'
	f_has 'getcounter "\Mem' '\Memory\Available MBytes'
	f_has 'getcounter -c "\Mem' '\Memory\Available MBytes'
	f_has "getcounter -Counter '\\mem" '\Memory\Available MBytes'
	f_has "getcounter -COUNTER '\\mem" '\Memory\Available MBytes'
	f_has "getcounter --counter='\\Mem" '--counter=\Memory\Available MBytes'
	f_has "getcounter '\\\\\\localhost\\Mem" '\\localhost\Memory\Available MBytes'
	while IFS= read -r s; do
		fc "getcounter --root $F '"
		grep -qxF -- "\\$s(" "$tmp/fc" || grep -qxF -- "\\$s\\" "$tmp/fc" ||
			[ "$s" = 'Network Interface' ] || fail "fish: set $s not offered: $(paste -sd'|' "$tmp/fc")"
	done <"$tmp/sets"
	f_is "getcounter --root $F '\\Processor(" '\Processor(*)\' '\Processor(0)\' '\Processor(1)\' \
		'\Processor(_Total)\'
	# a unique instance goes on to the counters, as -q lists them
	fc "getcounter --root $F '\\processor(_T"
	sed 's/^/\\processor(_Total)\\/' "$tmp/proc.counters" | sort -u >"$tmp/want"
	cmp -s "$tmp/fc" "$tmp/want" || fail "fish: the counters of _Total: $(paste -sd'|' "$tmp/fc")"
	f_is "getcounter '\\Processor(_Total)\\% P" '\Processor(_Total)\% Processor Time' \
		'\Processor(_Total)\% Privileged Time'
	f_is "getcounter '\\System\\Load Average (1" '\System\Load Average (1 min)' \
		'\System\Load Average (15 min)'
	f_is 'getcounter \\System\\Load\ Average\ \(5' '\System\Load Average (5 min)'
	f_has "getcounter --root $F '\\Network Interface(eth" '\Network Interface(eth0)\Bytes Total/sec'
	f_is "getcounter --root $LD '\\LogicalDisk(/mnt/my" '\LogicalDisk(/mnt/my disk)\' \
		'\LogicalDisk(/mnt/my (old) disk)\'
	f_is "getcounter --root $LD \"\\LogicalDisk(/mnt/my (old) disk)\\% Free S" \
		'\LogicalDisk(/mnt/my (old) disk)\% Free Space'
	f_has "getcounter --pcap $files/cap.pcap '\\Network Capture(f" \
		'\Network Capture(file:cap.pcap)\Frames Received/sec'
	f_has "getcounter --root $odd '\\Network Adapter(we" \
		"\\Network Adapter(we(ird)\$x'q\"b\\k)\\Bytes Total/sec"
	f_is "getcounter '\\Nope\\X"

	# Round trip, in fish: each path cut before its last character, typed in
	# single quotes, double quotes or escaped, is offered.
	cat >"$tmp/roundtrip.fish" <<'EOF'
# $argv: completion file, odd root, ldisk root, paths file, odd paths file
source $argv[1]
set -l oddpaths (cat $argv[5])
set -l n 0
for p in (cat $argv[4])
    set -l root $argv[3]
    contains -- $p $oddpaths; and set root $argv[2]
    set -l cut (string sub -e -1 -- $p)
    set -l sq "'"(string replace -a -- \\ \\\\ $cut | string replace -a -- "'" "\\'")
    set -l dq '"'(string replace -a -- \\ \\\\ $cut | string replace -a -- '"' '\\"' |
        string replace -a -- '$' '\\$')
    set -l uq (string escape -- $cut)
    for word in $sq $dq $uq
        set n (math $n + 1)
        set -l line "getcounter --root "(string escape -- $root)" $word"
        set -l got (complete -C $line | string replace -r -- '\t.*' '')
        contains -- $p $got; or echo "FAIL: fish: [$word] => ["(string join '|' -- $got)"], not $p"
    end
end
test $n -gt $RT_MIN; or echo "FAIL: the fish round trip tried only $n paths"
EOF
	RT_MIN=$rt_min GETCOUNTER_BIN=$GETCOUNTER HOME=$tmp XDG_CONFIG_HOME=$tmp fish --no-config \
		"$tmp/roundtrip.fish" \
		"$fcomp" "$odd" "$LD" "$tmp/paths" "$tmp/odd.paths" >"$tmp/rt.out" 2>&1 ||
		fail "fish round trip: $(head -20 "$tmp/rt.out")"
	[ ! -s "$tmp/rt.out" ] || fail "fish round trip: $(head -20 "$tmp/rt.out")"

	# The line a Tab leaves in an interactive fish, driven from zsh's zpty.
	if command -v zsh >/dev/null 2>&1 && zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
		cat >"$tmp/fsetup.fish" <<'EOF'
function fish_prompt; end
function fish_right_prompt; end
function fish_greeting; end
set -g fish_autosuggestion_enabled 0
source $FCOMP
function __zdump
    printf 'B:%s\nE\n' (commandline) >>$ZLOG
    commandline ''
end
bind \cx\ct __zdump
EOF
		cat >"$tmp/ftab.zsh" <<'EOF'
# run by zsh: $1 the driver, $2 the fish setup file; then pairs LINE WANT
source $1
start f 'fish --no-config -i' $2
shift 2
while (( $# >= 2 )); do
	press "$1"$'\t'
	buf=${${(M)${(f)"$(<$ZLOG)"}:#B:*}#B:}
	# fish's own reading of the line's last word (closing a quote left open)
	val=""
	for close in '' "'" '"'; do
		val=$(fish --no-config -c 'eval "set -l -- w $argv[1]"; and printf "%s\n" $w[-1]' \
			"$buf$close" 2>/dev/null) && break
	done
	[[ $val == "$2" && ( $2 == *[\(\\] || $buf == *' ' ) ]] ||
		bad "fish: '$1' + Tab => [$buf], read as [$val], wanted [$2]"
	shift 2
done
zpty -d f
exit $((fails > 0))
EOF
		ZLOG=$tmp/flog FCOMP=$fcomp GETCOUNTER_BIN=$GETCOUNTER HOME=$tmp XDG_CONFIG_HOME=$tmp \
			timeout 300 zsh -f "$tmp/ftab.zsh" "$tmp/drive.zsh" "$tmp/fsetup.fish" \
			"getcounter '\\Mem" '\Memory\' \
			"getcounter '\\Memory\\Available MB" '\Memory\Available MBytes' \
			'getcounter \\Memory\\Available\ MB' '\Memory\Available MBytes' \
			'getcounter "\Memory\Available MB' '\Memory\Available MBytes' \
			"getcounter --root $LD '\\LogicalDisk(/mnt/my (old) disk)\\% Free S" \
			'\LogicalDisk(/mnt/my (old) disk)\% Free Space' \
			"getcounter --root $LD \\\\LogicalDisk\\(/mnt/my\\ d" '\LogicalDisk(/mnt/my disk)\' \
			"getcounter --root $odd '\\Network Adapter(we(ird)\$x\\'q\"b\\\\k)\\Bytes T" \
			"\\Network Adapter(we(ird)\$x'q\"b\\k)\\Bytes Total/sec" \
			"getcounter --root $odd \"\\Network Adapter(we(ird)\\\$x'q\\\"b\\\\k)\\Bytes T" \
			"\\Network Adapter(we(ird)\$x'q\"b\\k)\\Bytes Total/sec" \
			'getcounter --vers' --version \
			>"$tmp/ftab.out" 2>&1 || fail "fish, interactive: $(head -20 "$tmp/ftab.out")"
		[ ! -s "$tmp/ftab.out" ] || fail "fish, interactive: $(head -20 "$tmp/ftab.out")"
	else
		echo "zsh is not installed: the line fish leaves after Tab not tested"
	fi
	echo "fish: ok"
else
	echo "fish is not installed: fish completion not tested"
	skipped="$skipped fish"
fi

# ============================================================================
# bash: what this file adds to completions/getcounter.bash (test_docs.sh
# tests the rest): the log options, their .gcl files, -f gcl and BIN.
# ============================================================================
if command -v bash >/dev/null 2>&1; then
	cat >"$tmp/comp.bash" <<'EOF'
# run by bash: $1 the completion, $2 the files directory
. "$1"
comp() {
	COMP_LINE=$1
	COMP_POINT=${#1}
	read -ra COMP_WORDS <<<"$1"
	[[ $1 == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_getcounter
	printf '%s\n' "${COMPREPLY[*]-}"
}
comp 'getcounter --max'
comp 'getcounter --in'
comp "getcounter --log $2/logs/"
comp "getcounter --input=$2/logs/d"
comp 'getcounter -f g'
comp 'getcounter -F b'
comp 'getcounter --every '
EOF
	GETCOUNTER_BIN=$GETCOUNTER bash "$tmp/comp.bash" "$repo/completions/getcounter.bash" "$files" \
		>"$tmp/bash.out" 2>&1 || fail "bash completion: $(cat "$tmp/bash.out")"
	cat >"$tmp/bash.want" <<EOF
--max-size
--interval --instances --input
$files/logs/day1.gcl $files/logs/old
$files/logs/day1.gcl
gcl
BIN

EOF
	cmp -s "$tmp/bash.out" "$tmp/bash.want" ||
		fail "bash completion: $(diff "$tmp/bash.want" "$tmp/bash.out")"
fi

if [ -n "$skipped" ]; then
	skip "not installed, so not tested:$skipped (install zsh and fish to test them)"
fi
echo ok

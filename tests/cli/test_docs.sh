#!/bin/sh
# cli-run: long
# The user documentation against the binary: the man page renders without
# warnings and names every option, set and counter; the bash completion
# completes options, formats, files and counter paths (quoted right); the
# README names every set and each of its example commands runs.
set -eu
. "$(dirname "$0")/lib.sh"

repo=$(cd "$(dirname "$0")/../.." && pwd)
man=$repo/man/getcounter.1
comp=$repo/completions/getcounter.bash
readme=$repo/README.md
F=$FIXTURES/cli-basic
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$man" "$comp" "$readme"; do
	[ -f "$f" ] || fail "missing $f"
done

# --- the man page renders cleanly --------------------------------------------
if command -v groff >/dev/null 2>&1; then
	groff -ww -man -z "$man" 2>"$tmp/groff.err" || fail "groff failed: $(cat "$tmp/groff.err")"
	[ ! -s "$tmp/groff.err" ] || fail "groff -ww warns: $(cat "$tmp/groff.err")"
else
	echo "groff is not installed: not checking the page for warnings"
fi
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$man" >"$tmp/page.txt" 2>"$tmp/man.err" || fail "man -l: $(cat "$tmp/man.err")"
	[ ! -s "$tmp/man.err" ] || fail "man -l warns: $(cat "$tmp/man.err")"
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS 'COUNTER PATHS' 'COUNTER SETS' FORMATS STATUSES \
		'FIXTURE ROOTS' 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
		grep -qx "$s" "$tmp/page.txt" || fail "the man page has no $s section"
	done
else
	echo "man is not installed: not rendering the page"
fi
# The page's text with roff escapes undone and lines joined, for searching.
sed -e 's/\\-/-/g' -e 's/\\ / /g' -e 's/\\e/\\/g' -e 's/\\&//g' -e 's/\\(dq/"/g' \
	-e 's/\\f[BIRP]//g' "$man" | tr '\n' ' ' | tr -s ' ' >"$tmp/man.txt"

# --- every option of --help is in the man page and the three completions -----
expect_exit 0 "$GETCOUNTER" --help
help=$out
longs=$(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
[ "$(printf '%s\n' "$longs" | wc -l)" -ge 15 ] || fail "--help lists few options: $longs"
shorts=$(printf '%s\n' "$help" | sed -n 's/^  \(-[a-zA-Z]\),.*/\1/p')
[ -n "$shorts" ] || fail "no short options found in --help"
# the Windows spellings: the words of the "Windows spellings" paragraph
windows=$(printf '%s\n' "$help" | sed -n '/^Windows spellings/,/^$/p' | grep -oE -- '-[A-Za-z]+')
[ "$(printf '%s\n' "$windows" | wc -l)" -ge 10 ] || fail "no Windows spellings in --help"
zcomp=$repo/completions/_getcounter
fcomp=$repo/completions/getcounter.fish
[ -f "$zcomp" ] && [ -f "$fcomp" ] || fail "missing $zcomp or $fcomp"
for o in $longs $shorts $windows; do
	grep -qF -- "$o" "$tmp/man.txt" || fail "man page lacks option $o"
	grep -qF -- "$o" "$comp" || fail "bash completion lacks option $o"
	# zsh: an entry 'OPTION:description' of the option arrays
	grep -qF -- "'$o:" "$zcomp" || fail "zsh completion lacks option $o"
	# fish: -l long, -s short, -o the other single-dash spellings
	case $o in
	--*) pat=" -l ${o#--}( |\$)" ;;
	-?) pat=" -[so] ${o#-}( |\$)" ;;
	*) pat=" -o '?${o#-}'?( |\$)" ;;
	esac
	grep -qE -- "^complete -c getcounter.*$pat" "$fcomp" || fail "fish completion lacks option $o"
done

# --- every set (and counter) of -l is in the man page; every set in README ---
expect_exit 0 "$GETCOUNTER" -l
sets=$(printf '%s\n' "$out" | sed -n 's/^CounterSetName : //p; s/^Alias *: //p')
[ -n "$sets" ] || fail "-l printed no sets"
printf '%s\n' "$sets" >"$tmp/sets"
while IFS= read -r s; do
	grep -qF -- "$s" "$tmp/man.txt" || fail "man page lacks set '$s'"
	grep -qF -- "$s" "$readme" || fail "README lacks set '$s'"
done <"$tmp/sets"
expect_exit 0 "$GETCOUNTER" -q
printf '%s\n' "$out" | sed 's/.*\\//' | sort -u >"$tmp/counters"
while IFS= read -r c; do
	grep -qF -- "$c" "$tmp/man.txt" || fail "man page lacks counter '$c'"
done <"$tmp/counters"

# --- bash completion -----------------------------------------------------------
command -v bash >/dev/null 2>&1 || skip "bash is not installed: completion not tested"
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
mkdir -p "$tmp/files/adir" && : >"$tmp/files/afile"

cat >"$tmp/comp.bash" <<'EOF'
# run by bash: $1 completion file, $2 cli-basic root, $3 odd root, $4 files dir
set -u
. "$1"
F=$2 ODD=$3 FILES=$4
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# comp LINE: complete LINE (cursor at its end) into COMPREPLY
comp() {
	COMP_LINE=$1
	COMP_POINT=${#1}
	read -ra COMP_WORDS <<<"$1"
	[[ $1 == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_getcounter getcounter "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
}
# is LINE WANT...: the completions are exactly WANT
is() {
	local line=$1
	shift
	comp "$line"
	[[ "${COMPREPLY[*]-}" == "$*" ]] || bad "'$line' => [${COMPREPLY[*]-}], wanted [$*]"
}
# has LINE WANT: WANT is among the completions
has() {
	local c
	comp "$1"
	for c in "${COMPREPLY[@]}"; do [[ $c == "$2" ]] && return 0; done
	bad "'$1' => [${COMPREPLY[*]-}], wanted it to contain [$2]"
}
# all LINE PREFIX: every completion starts with PREFIX, and there is one
all() {
	local c
	comp "$1"
	((${#COMPREPLY[@]})) || bad "'$1' => nothing"
	for c in "${COMPREPLY[@]}"; do
		[[ $c == "$2"* ]] || bad "'$1' => [$c], not starting with [$2]"
	done
}

# options
is 'getcounter --inter' --interval
is 'getcounter --counter-f' --counter-file
is 'getcounter --vers' --version
is 'getcounter -Sample' -SampleInterval
is 'getcounter -sampleint' -SampleInterval
is 'getcounter -MaxS' -MaxSamples
is 'getcounter -listS' -ListSet
has 'getcounter -' --continuous
has 'getcounter -' -V
has 'getcounter -' -cf
has 'getcounter -' -qx
for o in $("$GETCOUNTER_BIN" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	has 'getcounter --' "$o"
done
# -f values
is 'getcounter -f ' table list csv tsv json gcl BIN
is 'getcounter --format ' table list csv tsv json gcl BIN
is 'getcounter -f c' csv
is 'getcounter -F t' table tsv
is 'getcounter --format=j' json
is 'getcounter -n 3 -i ' ''
# files and directories
is "getcounter -o $FILES/a" "$FILES/adir" "$FILES/afile"
is "getcounter --output $FILES/af" "$FILES/afile"
is "getcounter -cf $FILES/af" "$FILES/afile"
is "getcounter --counter-file $FILES/af" "$FILES/afile"
is "getcounter --root $FILES/a" "$FILES/adir"
is "getcounter --output=$FILES/af" "$FILES/afile"
# set names after -l / -q
is 'getcounter -l PhysicalD' PhysicalDisk
is 'getcounter -l Phy' 'Physical\ Network\ Interface\ Card\ Activity' PhysicalDisk
is 'getcounter -q Mem' Memory
is 'getcounter -ListSet Network\ A' 'Network\ Adapter'
is "getcounter -q 'Network A" 'Network Adapter'

# counter paths: sets first, then instances, then counters
all "getcounter '\\Mem" '\Memory\'
has "getcounter '\\Mem" '\Memory\Available MBytes'
has 'getcounter \\Mem' '\\Memory\\Available\ MBytes'
has 'getcounter \Mem' '\\Memory\\Available\ MBytes'
has 'getcounter "\Mem' '\Memory\Available MBytes'
has 'getcounter -c "\Mem' '\Memory\Available MBytes'
has "getcounter -Counter '\\mem" '\Memory\Available MBytes'
has "getcounter --counter='\\Mem" '\Memory\Available MBytes'
has 'getcounter --counter=\\Mem' '\\Memory\\Available\ MBytes'
has "getcounter '\\\\localhost\\Mem" '\\localhost\Memory\Available MBytes'
while IFS= read -r s; do
	line="getcounter --root $F/t0 '"
	comp "$line"
	[[ " ${COMPREPLY[*]} " == *" \\$s("* || " ${COMPREPLY[*]} " == *" \\$s\\"* ]] ||
		[[ $s == 'Network Interface' ]] || bad "'$line' lacks set $s: ${COMPREPLY[*]}"
done < <("$GETCOUNTER_BIN" -l | sed -n 's/^CounterSetName : //p')
is "getcounter --root $F/t0 '\\Processor(" '\Processor(*)\' '\Processor(0)\' '\Processor(1)\' \
	'\Processor(_Total)\'
# a unique instance goes on to the counters, as -q lists them
is "getcounter --root $F/t0 '\\processor(_T" \
	"$("$GETCOUNTER_BIN" -q Processor | sed 's/.*\\/\\processor(_Total)\\/' | paste -sd ' ')"
is "getcounter '\\Processor(_Total)\\% P" '\Processor(_Total)\% Processor Time' \
	'\Processor(_Total)\% Privileged Time'
is 'getcounter \\Processor\(_Total\)\\%\ P' '\\Processor\(_Total\)\\%\ Processor\ Time' \
	'\\Processor\(_Total\)\\%\ Privileged\ Time'
is "getcounter '\\System\\Load Average (1" '\System\Load Average (1 min)' \
	'\System\Load Average (15 min)'
is 'getcounter \\System\\Load\ Average\ \(5' '\\System\\Load\ Average\ \(5\ min\)'
all "getcounter --root $F/t0 '\\Network Adapter(eth" '\Network Adapter(eth0)\'
has "getcounter --root $F/t0 '\\Network Interface(eth" '\Network Interface(eth0)\Bytes Total/sec'
all "getcounter --root $F/t0 '\\PhysicalDisk(s" '\PhysicalDisk(sda)\'
has "getcounter --root $F/t0 '\\PhysicalDisk(s" '\PhysicalDisk(sda)\Disk Reads/sec'

# Round trip: every path of -q -x, cut before its last character and typed
# unquoted, in single quotes or in double quotes, completes to itself.
sq() { local s=${1//\'/\'\\\'\'}; printf "'%s" "$s"; }
dq() {
	local s=$1 o="" k c
	for ((k = 0; k < ${#s}; k++)); do
		c=${s:k:1}
		case $c in [\\\$\`\"]) o+="\\$c" ;; *) o+=$c ;; esac
	done
	printf '"%s' "$o"
}
uq() { printf '%q' "$1"; }
roundtrip() {
	local root=$1 modes=$2 p mode word before entry v ok n=0 k=0
	while IFS= read -r p; do
		((k++ % STEP == 0)) || continue
		for mode in $modes; do
			word=$($mode "${p%?}")
			comp "getcounter --root $root $word"
			case $mode in
			sq) before=${word%\'*}\' ;;
			dq) before=\" ;;
			uq) before="" ;;
			esac
			ok=0
			for entry in "${COMPREPLY[@]}"; do
				case $mode in
				sq) eval "v=$before$entry'" ;;
				dq) eval "v=$before$entry\"" ;;
				uq) eval "v=$entry" ;;
				esac
				[[ $v == "$p" ]] && ok=1
			done
			((ok)) || bad "$mode: '$word' => [${COMPREPLY[*]-}], not $p"
			n=$((n + 1))
		done
	done < <("$GETCOUNTER_BIN" --root "$root" -q -x)
	((n > 30)) || bad "round trip under $root tried only $n paths"
}
roundtrip "$ODD" "sq dq uq"
roundtrip "$F/t0" "uq"
# the odd instance, from its first letters
comp "getcounter --root $ODD '\\Network Adapter(we"
[[ " ${COMPREPLY[*]} " == *" \\Network Adapter(we(ird)\$x'\\''q\"b\\k)\\Bytes Total/sec "* ]] ||
	bad "odd instance: [${COMPREPLY[*]}]"
exit $((fails > 0))
EOF
# The round trips test the completion script, not the binary, and each
# completion starts the binary: a tenth of a second under ASan (make asan),
# where they took over two minutes. There they take every fourth path.
step=1
grep -q __asan_init "$GETCOUNTER" && step=4
STEP=$step GETCOUNTER_BIN=$GETCOUNTER bash "$tmp/comp.bash" "$comp" "$F" "$odd" "$tmp/files" >"$tmp/comp.out" 2>&1 ||
	fail "bash completion: $(head -40 "$tmp/comp.out")"
[ ! -s "$tmp/comp.out" ] || fail "bash completion printed: $(head -20 "$tmp/comp.out")"
# A failed lookup (a set that is not there) completes nothing and prints nothing.
got=$(GETCOUNTER_BIN=$GETCOUNTER bash -c '. "$1"; COMP_LINE="getcounter '"'"'\\Nope\\X"
	COMP_POINT=${#COMP_LINE}; COMP_WORDS=(getcounter x); COMP_CWORD=1; _getcounter
	printf "[%s]" "${COMPREPLY[@]}"' _ "$comp" 2>&1)
[ "$got" = "[]" ] || fail "completing an unknown set: $got"

# --- every example command of the README runs ---------------------------------
# The lines of ```sh blocks run in a scratch directory holding ./getcounter
# and tests/ (for the fixtures); each exits 0 and writes something. A
# --continuous example is stopped with SIGINT after 2 seconds.
ln -s "$GETCOUNTER" "$tmp/getcounter"
mkdir "$tmp/run"
ln -s "$GETCOUNTER" "$tmp/run/getcounter"
ln -s "$repo/tests" "$tmp/run/tests"
ln -s "$repo/samples" "$tmp/run/samples"
awk '/^```/ { if (inblk) { inblk = 0; next } if ($0 == "```sh") inblk = 1; next }
     inblk && NF && !/^#/ { print }' "$readme" >"$tmp/examples"
n=$(grep -c . "$tmp/examples" || true)
[ "$n" -ge 10 ] || fail "README has only $n example commands"
while IFS= read -r cmd; do
	case $cmd in
	make\ *) continue ;;
	esac
	set +e
	case $cmd in
	*--continuous* | *-Continuous*)
		(cd "$tmp/run" && timeout -s INT --preserve-status 2 sh -c "exec $cmd") \
			>"$tmp/ex.out" 2>"$tmp/ex.err" </dev/null
		;;
	*)
		(cd "$tmp/run" && timeout 30 sh -c "$cmd") >"$tmp/ex.out" 2>"$tmp/ex.err" </dev/null
		;;
	esac
	rc=$?
	set -e
	[ "$rc" -eq 0 ] || fail "README example exits $rc: $cmd :: $(cat "$tmp/ex.err")"
	[ ! -s "$tmp/ex.err" ] || fail "README example wrote stderr: $cmd :: $(cat "$tmp/ex.err")"
	case $cmd in
	./getcounter*\ -o\ *)
		file=$(printf '%s\n' "$cmd" | sed 's/.* -o \([^ ]*\).*/\1/')
		[ -s "$tmp/run/$file" ] || fail "README example wrote no $file: $cmd"
		;;
	./getcounter*)
		[ -s "$tmp/ex.out" ] || fail "README example printed nothing: $cmd"
		;;
	esac
done <"$tmp/examples"
echo ok

#!/bin/sh
# cli-run: long
# make install PREFIX=/usr/local DESTDIR=$tmp puts the binary, the man pages
# getcounter(1) and gclog(5), the bash, zsh and fish completions and the
# sample counter files and logs in place; the installed binary runs,
# the page renders and each shell finds its completion where it was put;
# make uninstall with the same DESTDIR removes exactly them.
set -eu
. "$(dirname "$0")/lib.sh"

repo=$(cd "$(dirname "$0")/../.." && pwd)
command -v make >/dev/null 2>&1 || skip "make is not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
# The build directory of the binary under test when it is this
# repository's (make check, make asan: built before the tests, so make
# install only installs, as after any build); else one of our own, so
# this does not race other builds.
case $GETCOUNTER in
"$repo"/*/getcounter) build=${GETCOUNTER#"$repo"/} build=${build%/getcounter} ;;
*) build=$tmp/build ;;
esac
mk() { make -s -C "$repo" BUILD="$build" PREFIX=/usr/local DESTDIR="$dest" "$@"; }

mk install >"$tmp/log" 2>&1 || fail "make install failed: $(tail -20 "$tmp/log")"
bin=$dest/usr/local/bin/getcounter
page=$dest/usr/local/share/man/man1/getcounter.1
comp=$dest/usr/local/share/bash-completion/completions/getcounter
zdir=$dest/usr/local/share/zsh/site-functions
fdir=$dest/usr/local/share/fish/vendor_completions.d
for f in "$bin" "$page" "$comp" "$zdir/_getcounter" "$fdir/getcounter.fish"; do
	[ -f "$f" ] || fail "make install did not install $f: $(cd "$dest" && find . -type f)"
done
[ -x "$bin" ] || fail "$bin is not executable"
cmp -s "$page" "$repo/man/getcounter.1" || fail "installed man page differs from man/getcounter.1"
cmp -s "$comp" "$repo/completions/getcounter.bash" || fail "installed completion differs"
cmp -s "$zdir/_getcounter" "$repo/completions/_getcounter" || fail "installed zsh completion differs"
cmp -s "$fdir/getcounter.fish" "$repo/completions/getcounter.fish" ||
	fail "installed fish completion differs"
page5=$dest/usr/local/share/man/man5/gclog.5
cmp -s "$page5" "$repo/man/gclog.5" || fail "installed gclog.5 differs from man/gclog.5"
sdir=$dest/usr/local/share/getcounter/samples
nsamples=0
for f in "$repo"/samples/*.txt "$repo"/samples/*.gcl; do
	cmp -s "$f" "$sdir/$(basename "$f")" || fail "make install did not install samples/$(basename "$f")"
	nsamples=$((nsamples + 1))
done
# Exactly these files, nothing else: binary, two pages, three completions
# and the samples.
n=$(find "$dest" -type f | wc -l)
[ "$n" -eq $((6 + nsamples)) ] ||
	fail "make install installed $n files: $(cd "$dest" && find . -type f)"

# The installed binary runs.
expect_exit 0 "$bin" -V
printf '%s\n' "$out" | grep -Eqx 'getcounter [0-9]+\.[0-9]+\.[0-9]+' || fail "installed -V: $out"
expect_exit 0 "$bin" --root "$FIXTURES/cli-basic/t0" -f csv '\Memory\Available MBytes'
printf '%s\n' "$out" | grep -qF '"2000.000000"' || fail "installed binary: $out"
# and replays an installed sample log
expect_exit 0 "$bin" --input "$sdir/cpu-interrupts.gcl" --summary
printf '%s\n' "$out" | grep -q '^Samples *: 12$' || fail "installed sample log: $out"

# The installed completion loads and completes with the installed binary.
if command -v bash >/dev/null 2>&1; then
	got=$(GETCOUNTER_BIN=$bin bash -c '. "$1"; COMP_LINE="getcounter --vers"
		COMP_POINT=${#COMP_LINE}; COMP_WORDS=(getcounter --vers); COMP_CWORD=1
		_getcounter getcounter --vers getcounter; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp")
	[ "$got" = --version ] || fail "installed completion: '$got'"
fi
# zsh's compinit finds _getcounter in that directory (by its #compdef line)
# and registers it for getcounter.
if command -v zsh >/dev/null 2>&1; then
	got=$(HOME=$tmp zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -D
		print -r -- "$_comps[getcounter]"' _ "$zdir" 2>&1)
	[ "$got" = _getcounter ] || fail "zsh does not find the installed completion: '$got'"
else
	echo "zsh is not installed: not loading the installed zsh completion"
fi
# fish loads getcounter.fish from there (a vendor directory of the data
# directory PREFIX/share) when it completes getcounter, found in PATH.
if command -v fish >/dev/null 2>&1; then
	got=$(HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_DATA_DIRS=$dest/usr/local/share:/usr/share \
		PATH=$dest/usr/local/bin:$PATH fish -c 'complete -C "getcounter --vers"' 2>&1 | cut -f1)
	[ "$got" = --version ] || fail "fish does not find the installed completion: '$got'"
else
	echo "fish is not installed: not loading the installed fish completion"
fi

# man -l renders the installed page.
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$page" >"$tmp/page.txt" 2>"$tmp/man.err" || fail "man -l: $(cat "$tmp/man.err")"
	grep -q 'getcounter' "$tmp/page.txt" || fail "man -l printed: $(head "$tmp/page.txt")"
	grep -q 'EXIT STATUS' "$tmp/page.txt" || fail "man -l: no EXIT STATUS section"
	[ ! -s "$tmp/man.err" ] || fail "man -l warned: $(cat "$tmp/man.err")"
	MANWIDTH=80 man -l "$page5" >"$tmp/page5.txt" 2>"$tmp/man.err" ||
		fail "man -l gclog.5: $(cat "$tmp/man.err")"
	grep -q 'KEYFRAME' "$tmp/page5.txt" || fail "man -l gclog.5 printed: $(head "$tmp/page5.txt")"
	[ ! -s "$tmp/man.err" ] || fail "man -l gclog.5 warned: $(cat "$tmp/man.err")"
else
	echo "man is not installed: not rendering the installed page"
fi

# make uninstall removes exactly what make install put there: a file of the
# user's own beside the samples stays (and so does its directory), and the
# samples' directories go once they are empty.
echo mine >"$sdir/mine.txt"
mk uninstall >"$tmp/log" 2>&1 || fail "make uninstall failed: $(tail -20 "$tmp/log")"
left=$(cd "$dest" && find . -type f)
[ "$left" = ./usr/local/share/getcounter/samples/mine.txt ] ||
	fail "make uninstall left or removed the wrong files: '$left'"
rm "$sdir/mine.txt"
mk install >"$tmp/log" 2>&1 || fail "make install (again) failed: $(tail -20 "$tmp/log")"
mk uninstall >"$tmp/log" 2>&1 || fail "make uninstall failed: $(tail -20 "$tmp/log")"
left=$(find "$dest" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
[ ! -d "$dest/usr/local/share/getcounter" ] ||
	fail "make uninstall left the empty directory share/getcounter"
# into a DESTDIR, the directories install made there go too, once empty
left=$(cd "$dest" && find . -mindepth 1)
[ -z "$left" ] || fail "make uninstall left directories in DESTDIR: $left"
[ -d "$dest" ] || fail "make uninstall removed DESTDIR itself"
echo ok

#!/bin/sh
# bench/serve.sh - the cost of getcounter --serve (issue 9): CPU per scrape
# (user + system of the server process over N scrapes of the default sets,
# from /proc/PID/stat, so every thread counts), series and bytes per scrape,
# and RSS over many scrapes (after the first 100 and at the end), beside
# Debian's prometheus-node-exporter on the same machine when it is
# installed. Scrapes go over one keep-alive connection from python3.
# Prints a markdown table.
#
# usage: bench/serve.sh [GETCOUNTER] [SCRAPES (default 200)] [RSS_SCRAPES (default 10000)]
set -eu
cd "$(dirname "$0")/.."
GC=${1:-${BUILD:-build}/getcounter}
N=${2:-200}
NRSS=${3:-10000}
command -v python3 >/dev/null 2>&1 || { echo "bench/serve.sh: python3 is needed"; exit 0; }
probe=$("$GC" --serve "probe:x:y" 2>&1 || true)
case $probe in *"not built in"*) echo "bench/serve.sh: $probe"; exit 0 ;; esac
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

# scrape URL COUNT: COUNT GETs over one connection; prints the last body's
# series (sample lines) and bytes
cat >"$tmp/scrape.py" <<'PY'
import http.client, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
n = int(sys.argv[2])
c = http.client.HTTPConnection(u.hostname, u.port)
body = b""
for i in range(n):
    c.request("GET", u.path, headers={"Accept": "text/plain"})
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit("status %d" % r.status)
series = sum(1 for l in body.split(b"\n") if l and not l.startswith(b"#"))
print(series, len(body))
PY
# cpu PID: user + system ticks of the process (every thread, live or gone)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# measure NAME PID URL [judge]: one table row; with judge, getcounter's
# targets (issue 8): at most 1 ms a scrape, and RSS flat (within 5 % and
# 256 KiB of its figure after 100 scrapes)
measure() {
	judge=${4:-}
	python3 "$tmp/scrape.py" "$3" 20 >/dev/null # warm up
	c0=$(cpu "$2")
	set -- "$1" "$2" "$3" $(python3 "$tmp/scrape.py" "$3" "$N")
	c1=$(cpu "$2")
	python3 "$tmp/scrape.py" "$3" 80 >/dev/null
	r0=$(rss "$2")
	python3 "$tmp/scrape.py" "$3" "$NRSS" >/dev/null
	r1=$(rss "$2")
	awk -v name="$1" -v c="$((c1 - c0))" -v hz="$hz" -v n="$N" -v s="$4" -v b="$5" \
		-v r0="$r0" -v r1="$r1" -v nr="$NRSS" -v j="$judge" 'BEGIN {
		ms = c * 1000 / hz / n
		printf "| %s | %.3f%s | %d | %d | %.1f | %.1f (after %d scrapes)%s |\n",
			name, ms, j ? (ms <= 1 ? " ok" : " **MISSED**") : "", s, b, r0 / 1024, r1 / 1024,
			nr + 100, j ? (r1 <= r0 * 1.05 + 256 ? " ok" : " **MISSED**") : "" }'
}

echo "| server | CPU ms per scrape | series | bytes | RSS MiB after 100 scrapes | RSS MiB at the end |"
echo "|---|---|---|---|---|---|"
"$GC" --serve 127.0.0.1:0 2>"$tmp/gc.err" &
gc=$!
pids="$pids $gc"
i=0
while ! grep -q '^serving ' "$tmp/gc.err" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 50 ] || { echo "no URL: $(cat "$tmp/gc.err")"; exit 1; }
	sleep 0.1
done
measure "getcounter --serve (every set)" "$gc" "$(sed -n 's/^serving //p' "$tmp/gc.err")" judge
kill "$gc"; wait "$gc" 2>/dev/null || true

NE=$(command -v prometheus-node-exporter || true)
if [ -n "$NE" ]; then
	port=$(freeport)
	"$NE" --web.listen-address="127.0.0.1:$port" >"$tmp/ne.log" 2>&1 &
	ne=$!
	pids="$pids $ne"
	i=0
	while ! python3 "$tmp/scrape.py" "http://127.0.0.1:$port/metrics" 1 >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 50 ] || { echo "node exporter did not start: $(tail -n 3 "$tmp/ne.log")"; exit 1; }
		sleep 0.1
	done
	measure "prometheus-node-exporter $("$NE" --version 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -n 1)" \
		"$ne" "http://127.0.0.1:$port/metrics"
	kill "$ne"; wait "$ne" 2>/dev/null || true
else
	echo "| prometheus-node-exporter | not installed (apt-get install prometheus-node-exporter) | | | | |"
fi

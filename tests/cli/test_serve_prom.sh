#!/bin/sh
# A real Prometheus scrapes getcounter --serve on loopback every second
# (issue 9): after loopback traffic,
# rate(getcounter_network_adapter_received_bytes_total{device="lo"}[5s]) is
# positive, and the recording rules that getcounter --prometheus-rules wrote
# give a positive Bytes Received/sec of lo and a % Idle Time of CPU 0 in
# [0, 100]. Prometheus gets its own
# storage in a temporary directory and a free 127.0.0.1 port; every process
# the test starts is stopped by its pid. Prometheus' first scrape comes 5-6 s
# after its start: up to 45 s are allowed.
set -eu
. "$(dirname "$0")/lib.sh"
G=$GETCOUNTER
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; sleep 0.2; rm -rf "$tmp"' EXIT
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
command -v prometheus >/dev/null 2>&1 || skip "prometheus is not installed (apt-get install prometheus)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (to find a free port)"
prometheus --version >/dev/null 2>&1 || skip "prometheus cannot run here: $(prometheus --version 2>&1 | head -n 1)"
probe=$("$G" --serve "probe:x:y" 2>&1 || true)
case $probe in
*"not built in"*) skip "built without libmicrohttpd: $probe" ;;
esac

# getcounter on a free port: lo and the processors
"$G" --serve 127.0.0.1:0 '\Network Adapter(lo)\*' '\Processor(*)\*' 2>"$tmp/gc.err" &
gc=$!
pids="$pids $gc"
i=0
while ! grep -q '^serving ' "$tmp/gc.err" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "no URL after 5 s: $(cat "$tmp/gc.err")"
	sleep 0.1
done
url=$(sed -n 's/^serving //p' "$tmp/gc.err")
target=${url#http://}
target=${target%/metrics}

"$G" --prometheus-rules '\Network Adapter(*)\Bytes Received/sec' '\Processor(*)\% Idle Time' \
	>"$tmp/rules.yml"
if command -v promtool >/dev/null 2>&1; then
	promtool check rules "$tmp/rules.yml" >"$tmp/pt" 2>&1 || fail "promtool: $(cat "$tmp/pt")"
fi
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [ "$tmp/rules.yml" ]
scrape_configs:
  - job_name: getcounter
    static_configs:
      - targets: [ "$target" ]
EOF
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$port" >"$tmp/prom.log" 2>&1 &
prom=$!
pids="$pids $prom"

# query EXPR: the first result's value, or nothing
query() {
	curl -s "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" |
		sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'
}
# positive VALUE: a number above 0
positive() {
	[ -n "$1" ] && awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }'
}

rate=""
rule=""
i=0
while [ $i -lt 45 ]; do
	kill -0 "$prom" 2>/dev/null || fail "prometheus exited: $(tail -n 5 "$tmp/prom.log")"
	kill -0 "$gc" 2>/dev/null || fail "getcounter exited: $(cat "$tmp/gc.err")"
	# loopback traffic: 20 fetches of the endpoint (its own bytes cross lo)
	k=0
	while [ $k -lt 20 ]; do
		curl -s -o /dev/null "$url" || true
		k=$((k + 1))
	done
	rate=$(query 'rate(getcounter_network_adapter_received_bytes_total{device="lo"}[5s])')
	rule=$(query 'getcounter:network_adapter:bytes_received_per_sec{device="lo"}')
	idle=$(query 'getcounter:processor:pct_idle_time{cpu="0"}')
	if positive "$rate" && positive "$rule" && [ -n "$idle" ]; then
		break
	fi
	sleep 1
	i=$((i + 1))
done
positive "$rate" || fail "rate over lo is '$rate' after 45 s: $(tail -n 5 "$tmp/prom.log")"
positive "$rule" || fail "the recorded Bytes Received/sec of lo is '$rule' after 45 s"
awk -v v="$idle" 'BEGIN { exit !(v != "" && v + 0 >= 0 && v + 0 <= 100) }' ||
	fail "the recorded % Idle Time of CPU 0 is '$idle', not in [0, 100]"
up=$(query 'up{job="getcounter"}')
[ "$up" = 1 ] || fail "up is '$up'"

kill "$prom"
wait "$prom" 2>/dev/null || true
kill "$gc"
set +e
wait "$gc"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "getcounter exited $rc on SIGTERM"
pids=""
echo "rate over lo $rate B/s, recorded rule $rule B/s, CPU 0 idle $idle %"
exit 0

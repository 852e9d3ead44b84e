#!/bin/sh
# getcounter --serve over TLS with basic auth (issue 9): a certificate made
# by openssl req -x509, a password file made by htpasswd -nBC 10; curl with
# the CA and the password gets 200, a wrong or missing password 401 with
# WWW-Authenticate; a real Prometheus scrapes over https with the CA and the
# password (its target is up) while a second job with a wrong password shows
# the target down. --tls-client-ca refuses a client without a certificate
# (403) and serves one with a certificate the CA signed. Basic auth without
# TLS on a non-loopback address warns. Usage errors of the new options.
# Every process the test starts is stopped by its pid.
set -eu
. "$(dirname "$0")/lib.sh"
G=$GETCOUNTER
repo=$(cd "$(dirname "$0")/../.." && pwd)
F=$repo/tests/fixtures/cli-basic
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; sleep 0.2; rm -rf "$tmp"' EXIT
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
command -v openssl >/dev/null 2>&1 || skip "openssl is not installed"
command -v htpasswd >/dev/null 2>&1 || skip "htpasswd is not installed (apt-get install apache2-utils)"
probe=$("$G" --serve "probe:x:y" 2>&1 || true)
case $probe in
*"not built in"*) skip "built without libmicrohttpd: $probe" ;;
esac

# --- usage errors -------------------------------------------------------------
expect_exit 2 "$G" --tls-cert x.pem --tls-key x.key
case $errout in *"goes with --serve"*) ;; *) fail "--tls-cert without --serve: $errout" ;; esac
expect_exit 2 "$G" --serve 0 --tls-cert x.pem
case $errout in *"go together"*) ;; *) fail "--tls-cert alone: $errout" ;; esac
expect_exit 2 "$G" --serve 0 --tls-client-ca ca.pem
case $errout in *"needs --tls-cert"*) ;; *) fail "--tls-client-ca alone: $errout" ;; esac
expect_exit 1 "$G" --root "$F/t0" --serve 0 --tls-cert "$tmp/none.pem" --tls-key "$tmp/none.key"
case $errout in *"none.pem"*) ;; *) fail "a missing certificate: $errout" ;; esac
echo 'prom:plaintext' >"$tmp/bad.htpasswd"
expect_exit 1 "$G" --root "$F/t0" --serve 0 --basic-auth "$tmp/bad.htpasswd"
case $errout in *"bad.htpasswd:1: not a user:bcrypt-hash line"*) ;; *) fail "bad hash: $errout" ;; esac

# --- a certificate for 127.0.0.1 and a password ---------------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$tmp/server.key" -out "$tmp/server.pem" 2>"$tmp/openssl.err" ||
	fail "openssl req: $(cat "$tmp/openssl.err")"
htpasswd -nbBC 10 prom 's3cret pass' >"$tmp/htpasswd" 2>/dev/null || fail "htpasswd failed"
printf 's3cret pass' >"$tmp/pass.txt"
printf 'wrong' >"$tmp/wrong.txt"

# start NAME ARGS...: a server; its URL in $url, its pid in $pid
start() {
	name=$1; shift
	"$G" "$@" 2>"$tmp/$name.err" &
	pid=$!
	pids="$pids $pid"
	i=0
	while ! grep -q '^serving ' "$tmp/$name.err" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || fail "$name: no URL after 5 s: $(cat "$tmp/$name.err")"
		kill -0 "$pid" 2>/dev/null || fail "$name exited: $(cat "$tmp/$name.err")"
		sleep 0.1
	done
	url=$(sed -n 's/^serving //p' "$tmp/$name.err")
}
# stop PID: SIGTERM, exit 0
stop() {
	kill "$1"
	set +e
	wait "$1"
	rc=$?
	set -e
	[ "$rc" -eq 0 ] || fail "the server exited $rc on SIGTERM"
}

start tls --root "$F/t0" --serve 0 --tls-cert "$tmp/server.pem" --tls-key "$tmp/server.key" \
	--basic-auth "$tmp/htpasswd"
case $url in https://127.0.0.1:*/metrics) ;; *) fail "URL $url" ;; esac
code=$(curl -s --cacert "$tmp/server.pem" -u 'prom:s3cret pass' -o "$tmp/ok.txt" -w '%{http_code}' "$url")
[ "$code" = 200 ] || fail "the right password got $code"
grep -q '^getcounter_processor_time_seconds_total{cpu="0",mode="user"} 10$' "$tmp/ok.txt" ||
	fail "no exposition over https"
# the second time the cached check answers (same result)
code=$(curl -s --cacert "$tmp/server.pem" -u 'prom:s3cret pass' -o /dev/null -w '%{http_code}' "$url")
[ "$code" = 200 ] || fail "the right password, again, got $code"
code=$(curl -s --cacert "$tmp/server.pem" -u 'prom:wrong' -D "$tmp/h401" -o /dev/null -w '%{http_code}' "$url")
[ "$code" = 401 ] || fail "a wrong password got $code"
grep -qi '^www-authenticate: basic realm="getcounter"' "$tmp/h401" || fail "401 without WWW-Authenticate"
code=$(curl -s --cacert "$tmp/server.pem" -o /dev/null -w '%{http_code}' "$url")
[ "$code" = 401 ] || fail "no password got $code"
code=$(curl -s --cacert "$tmp/server.pem" -u 'nobody:s3cret pass' -o /dev/null -w '%{http_code}' "$url")
[ "$code" = 401 ] || fail "an unknown user got $code"
# plain http to the https port is no answer
curl -s -o /dev/null "http://${url#https://}" && fail "plain http was answered"

# --- a real Prometheus over https: right password up, wrong password down -------
if command -v prometheus >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 &&
	prometheus --version >/dev/null 2>&1; then
	target=${url#https://}
	target=${target%/metrics}
	cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: good
    scheme: https
    tls_config: { ca_file: "$tmp/server.pem" }
    basic_auth: { username: prom, password_file: "$tmp/pass.txt" }
    static_configs: [ { targets: [ "$target" ] } ]
  - job_name: bad
    scheme: https
    tls_config: { ca_file: "$tmp/server.pem" }
    basic_auth: { username: prom, password_file: "$tmp/wrong.txt" }
    static_configs: [ { targets: [ "$target" ] } ]
EOF
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
		--web.listen-address="127.0.0.1:$port" >"$tmp/prom.log" 2>&1 &
	prom=$!
	pids="$pids $prom"
	query() {
		curl -s "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" |
			sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'
	}
	good=""
	bad=""
	i=0
	while [ $i -lt 45 ]; do
		kill -0 "$prom" 2>/dev/null || fail "prometheus exited: $(tail -n 5 "$tmp/prom.log")"
		good=$(query 'up{job="good"}')
		bad=$(query 'up{job="bad"}')
		[ "$good" = 1 ] && [ "$bad" = 0 ] && break
		sleep 1
		i=$((i + 1))
	done
	[ "$good" = 1 ] || fail "Prometheus with the CA and password: up is '$good'"
	[ "$bad" = 0 ] || fail "Prometheus with a wrong password: up is '$bad', not down"
	series=$(query 'count(getcounter_processor_time_seconds_total)')
	[ "$series" = 16 ] || fail "Prometheus stored '$series' processor series, not 2 cpus x 8 modes"
	kill "$prom"
	wait "$prom" 2>/dev/null || true
else
	echo "prometheus cannot run here: not scraping over https with it"
fi
stop "$pid"

# --- --tls-client-ca: a certificate signed by the CA is required ---------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=test-ca -keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>"$tmp/openssl.err" ||
	fail "openssl req (CA): $(cat "$tmp/openssl.err")"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=client \
	-keyout "$tmp/client.key" -out "$tmp/client.csr" 2>"$tmp/openssl.err" ||
	fail "openssl req (client): $(cat "$tmp/openssl.err")"
openssl x509 -req -in "$tmp/client.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" \
	-CAcreateserial -days 2 -out "$tmp/client.pem" 2>"$tmp/openssl.err" ||
	fail "openssl x509 (sign): $(cat "$tmp/openssl.err")"
start mtls --root "$F/t0" --serve 0 --tls-cert "$tmp/server.pem" --tls-key "$tmp/server.key" \
	--tls-client-ca "$tmp/ca.pem"
code=$(curl -s --cacert "$tmp/server.pem" --cert "$tmp/client.pem" --key "$tmp/client.key" \
	-o /dev/null -w '%{http_code}' "$url")
[ "$code" = 200 ] || fail "a client certificate signed by the CA got $code"
code=$(curl -s --cacert "$tmp/server.pem" -o /dev/null -w '%{http_code}' "$url" || true)
[ "$code" = 403 ] || [ "$code" = 000 ] || fail "no client certificate got $code"
# a certificate the CA did not sign (the server's own, self-signed)
code=$(curl -s --cacert "$tmp/server.pem" --cert "$tmp/server.pem" --key "$tmp/server.key" \
	-o /dev/null -w '%{http_code}' "$url" || true)
[ "$code" = 403 ] || [ "$code" = 000 ] || fail "a foreign client certificate got $code"
stop "$pid"

# --- basic auth in clear text beyond loopback warns ------------------------------
start warn --root "$F/t0" --serve 0.0.0.0:0 --basic-auth "$tmp/htpasswd"
grep -q 'warning: --basic-auth without --tls-cert on 0.0.0.0' "$tmp/warn.err" ||
	fail "no clear-text warning: $(cat "$tmp/warn.err")"
stop "$pid"
start nowarn --root "$F/t0" --serve 0 --basic-auth "$tmp/htpasswd"
grep -q 'warning' "$tmp/nowarn.err" && fail "a warning on loopback: $(cat "$tmp/nowarn.err")"
stop "$pid"
pids=""
exit 0

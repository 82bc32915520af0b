# Helpers for the TLS tests, on top of lib.sh (source it after lib.sh):
# certificates made on the spot with the openssl CLI, volley-target in its
# TLS mode, nginx with TLS, and a python server that misbehaves on purpose.
# Everything listens on 127.0.0.1 and dies with the test (TARGET_PIDS) or,
# at the latest, after a bounded time of its own.

TLS_PY="$(dirname "${BASH_SOURCE[0]}")/py"

# tls_certs [DIR]: makes, in DIR (default $T/tls; reused if already there),
#   ca.pem              a CA (EC P-256)                          -> TLS_CA
#   server.pem/.key     CN=localhost, SAN DNS:localhost, IP:127.0.0.1, IP:::1,
#                       signed by the CA                         -> TLS_CERT, TLS_KEY
#   client.pem/.key     CN=volley-client, clientAuth, signed by the CA
#                                                                -> TLS_CLIENT_CERT, TLS_CLIENT_KEY
#   other-ca.pem/.key   an unrelated self-signed CA (verification failures)
#                                                                -> TLS_OTHER_CA
# and sets those variables. Returns non-zero (and says why) if openssl fails.
tls_certs() {
    local d=${1:-$T/tls}
    TLS_CA=$d/ca.pem TLS_CERT=$d/server.pem TLS_KEY=$d/server.key
    TLS_CLIENT_CERT=$d/client.pem TLS_CLIENT_KEY=$d/client.key TLS_OTHER_CA=$d/other-ca.pem
    [ -s "$TLS_OTHER_CA" ] && return 0
    mkdir -p "$d"
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30)
    local ca=(-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign)
    local leaf=(-addext basicConstraints=critical,CA:FALSE -addext keyUsage=critical,digitalSignature)
    {
        openssl req -x509 "${ec[@]}" -keyout "$d/ca.key" -out "$TLS_CA" \
            -subj /CN=volley-test-ca "${ca[@]}" &&
        openssl req -x509 "${ec[@]}" -CA "$TLS_CA" -CAkey "$d/ca.key" \
            -keyout "$TLS_KEY" -out "$TLS_CERT" -subj /CN=localhost "${leaf[@]}" \
            -addext extendedKeyUsage=serverAuth \
            -addext subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1 &&
        openssl req -x509 "${ec[@]}" -CA "$TLS_CA" -CAkey "$d/ca.key" \
            -keyout "$TLS_CLIENT_KEY" -out "$TLS_CLIENT_CERT" -subj /CN=volley-client \
            "${leaf[@]}" -addext extendedKeyUsage=clientAuth &&
        openssl req -x509 "${ec[@]}" -keyout "$d/other-ca.key" -out "$d/other-ca.tmp" \
            -subj /CN=volley-other-ca "${ca[@]}" &&
        mv "$d/other-ca.tmp" "$TLS_OTHER_CA"   # last: its presence means all are made
    } > "$d/openssl.log" 2>&1 || { echo "tls_certs: openssl failed: $(tail -3 "$d/openssl.log")" >&2; return 1; }
}

# tls_leaf NAME SAN: a server certificate signed by tls_certs' CA with
# subjectAltName SAN only (e.g. DNS:only.test, or IP:127.0.0.1), in
# $T/tls/NAME.pem and NAME.key (TLS_LEAF_CERT, TLS_LEAF_KEY). For tests of
# the name --verify checks.
tls_leaf() {
    tls_certs || return 1
    local d=$T/tls
    TLS_LEAF_CERT=$d/$1.pem TLS_LEAF_KEY=$d/$1.key
    [ -s "$TLS_LEAF_CERT" ] && return 0
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
        -CA "$TLS_CA" -CAkey "$d/ca.key" -keyout "$TLS_LEAF_KEY" -out "$d/$1.tmp" -subj "/CN=$1" \
        -addext basicConstraints=critical,CA:FALSE -addext keyUsage=critical,digitalSignature \
        -addext extendedKeyUsage=serverAuth -addext "subjectAltName=$2" > "$d/$1.log" 2>&1 &&
        mv "$d/$1.tmp" "$TLS_LEAF_CERT" ||
        { echo "tls_leaf $1: openssl failed: $(tail -3 "$d/$1.log")" >&2; return 1; }
}

# start_tls_target [volley-target options]: start_target with --tls-cert and
# --tls-key (certificates from tls_certs, made once per test in $T/tls).
# Sets PORT, TPID and surl=https://127.0.0.1:$PORT.
start_tls_target() {
    tls_certs || exit 1
    start_target --tls-cert "$TLS_CERT" --tls-key "$TLS_KEY" "$@"
    surl="https://127.0.0.1:$PORT"
}

# tls_target_stat KEY [HOST]: one counter from the TLS target's /__stats
# (target_stat over TLS). Its own connection counts in "connections" and
# "tls_handshakes" like any other.
tls_target_stat() {
    python3 "$TLS_PY/tls_get.py" --stat "$1" --ca "$TLS_CA" "${2:-127.0.0.1}" "$PORT"
}

# tls_free_port: prints a loopback port that was free a moment ago.
tls_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# tls_wait_listen PORT PID: waits up to 5 s until something accepts on
# 127.0.0.1:PORT while PID lives. Returns non-zero otherwise.
tls_wait_listen() {
    local i
    for i in $(seq 1 250); do
        kill -0 "$2" 2>/dev/null || return 1
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.02
    done
    return 1
}

# start_nginx_tls [--no-resume] [--protocols "TLSv1.2 TLSv1.3"] [DIRECTIVE...]:
# nginx (Debian's /usr/sbin/nginx) on a free loopback port with ssl, as the
# current user, everything in $T/nginx. Each DIRECTIVE (e.g.
# "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;") goes into the server block.
# --no-resume turns both the session cache and tickets off (full handshakes).
# Serves:
#   /            200 "hello world" (11 bytes)
#   /static/100k 100000 bytes,  /static/1m 1048576 bytes: byte i is the
#                volley-target pattern "a..zA..Z0..9-\n"[i % 64]
#   anything else under /static/: 404
# Access log $T/nginx.access, one line per request:
#   <ssl_protocol> <ssl_session_reused r|.> <ssl_server_name or -> <ssl_alpn_protocol or ->
#   <method> <uri> <status> <body_bytes_sent>
# Sets NGINX_PORT, NGINX_PID (a `timeout` wrapper that passes TERM on and
# ends nginx after 120 s regardless; it is in TARGET_PIDS) and
# nurl=https://127.0.0.1:$NGINX_PORT. Returns non-zero with a message on
# stderr if nginx is missing or does not start (callers skip).
# nginx_prelude DIR NAME: the top of an nginx config for a test server in
# DIR (its temp paths) that logs errors to $T/NAME.err: the process
# settings and the http block's opening, up to the log lines. As root,
# nginx would hand its temp directories to "nobody"; with master_process
# off it never switches user, so it stays root and says so.
nginx_prelude() {
    local d=$1 name=$2
    [ "$(id -u)" = 0 ] && echo "user root;"
    cat <<EOF
daemon off;
master_process off;
worker_processes 1;
error_log $T/$name.err;
pid $T/$name.pid;
events { worker_connections 1024; }
http {
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
EOF
}

start_nginx_tls() {
    local protocols="TLSv1.2 TLSv1.3" resume=on extra=""
    while [ $# -gt 0 ]; do
        case $1 in
            --no-resume) resume=off ;;
            --protocols) protocols=$2; shift ;;
            *) extra+="        $1"$'\n' ;;
        esac
        shift
    done
    local nginx=${NGINX:-/usr/sbin/nginx}
    [ -x "$nginx" ] || { echo "start_nginx_tls: no $nginx" >&2; return 1; }
    tls_certs || return 1
    local d=$T/nginx
    mkdir -p "$d/root/static" "$d/tmp"
    if [ ! -s "$d/root/static/1m" ]; then
        python3 - "$d/root/static" <<'PY'
import sys
pat = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n"
for name, n in (("100k", 100000), ("1m", 1048576)):
    open(f"{sys.argv[1]}/{name}", "wb").write((pat * (n // 64 + 1))[:n])
PY
    fi
    local cache="ssl_session_cache shared:volleytls:1m; ssl_session_tickets on;"
    [ "$resume" = off ] && cache="ssl_session_cache off; ssl_session_tickets off;"
    local attempt
    for attempt in 1 2 3 4 5; do
        NGINX_PORT=$(tls_free_port)
        { nginx_prelude "$d" nginx; cat <<EOF
    log_format volleytls '\$ssl_protocol \$ssl_session_reused \$ssl_server_name \$ssl_alpn_protocol \$request_method \$uri \$status \$body_bytes_sent';
    access_log $T/nginx.access volleytls;
    keepalive_requests 100000;
    server {
        listen 127.0.0.1:$NGINX_PORT ssl;
        ssl_certificate $TLS_CERT;
        ssl_certificate_key $TLS_KEY;
        ssl_protocols $protocols;
        $cache
        default_type text/plain;
$extra
        location / { return 200 "hello world"; }
        location /static/ { root $d/root; default_type application/octet-stream; }
    }
}
EOF
        } > "$d/nginx.conf"
        : > "$T/nginx.err"
        timeout -k 5 120 "$nginx" -p "$d" -e "$T/nginx.err" -c "$d/nginx.conf" \
            > "$T/nginx.out" 2>&1 &
        NGINX_PID=$!
        TARGET_PIDS+=("$NGINX_PID")
        nurl="https://127.0.0.1:$NGINX_PORT"
        tls_wait_listen "$NGINX_PORT" "$NGINX_PID" && return 0
        kill "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
        grep -q "in use" "$T/nginx.err" "$T/nginx.out" 2>/dev/null || break
    done
    echo "start_nginx_tls: nginx did not start: $(tail -3 "$T/nginx.err" "$T/nginx.out" 2>/dev/null)" >&2
    return 1
}

# start_py_tls MODE: a python3 server on a free loopback port that
# misbehaves on purpose (py/tls_misbehave.py); MODE is
#   stall    accepts TCP and never answers the ClientHello (holds the socket)
#   plain    plain HTTP: "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world"
#            for each request head, and once at once to anything that is not
#            HTTP (a ClientHello): a plain server behind an https URL
#   cutbody  TLS (tls_certs' server certificate): answers each request with
#            Content-Length: 100 and 10 body bytes, then closes the TCP
#            connection without close_notify
#   outages  TLS, ALPN http/1.1 only: one connection at a time, each request
#            answered with Connection: close, the listener closed from its
#            head's arrival until TLS_OUTAGE_MS (300) ms after the answer
#            (connects refused meanwhile)
# Sets PY_PORT, PY_PID (in TARGET_PIDS) and pyurl=https://127.0.0.1:$PY_PORT.
# The server exits by itself after 60 s.
start_py_tls() {
    tls_certs || exit 1
    local pf="$T/pyport.$RANDOM$RANDOM"
    python3 "$TLS_PY/tls_misbehave.py" "$1" "$pf" "$TLS_CERT" "$TLS_KEY" 2> "$T/py_tls.$1.err" &
    PY_PID=$!
    TARGET_PIDS+=("$PY_PID")
    wait_port_file "$pf" "$PY_PID" || { echo "start_py_tls $1: did not start: $(tail -3 "$T/py_tls.$1.err")" >&2; exit 1; }
    PY_PORT=$(cat "$pf")
    pyurl="https://127.0.0.1:$PY_PORT"
}

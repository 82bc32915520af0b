# Helpers for the HTTP/2 tests, on top of lib.sh and tls_lib.sh (source it
# after both): nginx with HTTP/2 over TLS or cleartext, nghttpd, and a python
# HTTP/2 server that misbehaves on purpose (py/h2_misbehave.py), plus a small
# strict python client (py/h2_get.py) to check them without volley.
# Everything listens on 127.0.0.1 and dies with the test (TARGET_PIDS) or, at
# the latest, after a bounded time of its own.
#
# python3-h2 is Debian's, so the python parts run under /usr/bin/python3
# (H2_PYTHON overrides it), not whatever python3 comes first on PATH, with
# -B so that importing py/h2_common.py leaves no __pycache__ in the tree.

H2_PY="$(dirname "${BASH_SOURCE[0]}")/py"
H2_PYTHON=${H2_PYTHON:-/usr/bin/python3}
declare -gA PY_H2_PIDS=()

# h2_python_ok: true if $H2_PYTHON can import h2 (says why not on stderr).
h2_python_ok() {
    "$H2_PYTHON" -c 'import h2.connection' 2> /dev/null && return 0
    echo "h2_lib: $H2_PYTHON cannot import h2 (python3-h2)" >&2
    return 1
}

# h2_static_files DIR: writes DIR/100k (100000 bytes) and DIR/1m (1048576
# bytes), byte i being "a..zA..Z0..9-\n"[i % 64] as in start_nginx_tls.
h2_static_files() {
    [ -s "$1/1m" ] && return 0
    mkdir -p "$1"
    python3 - "$1" <<'PY'
import sys
pat = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n"
for name, n in (("100k", 100000), ("1m", 1048576)):
    open(f"{sys.argv[1]}/{name}", "wb").write((pat * (n // 64 + 1))[:n])
PY
}

# h2_spawn LOG PORT CMD...: starts CMD in the background under
# `timeout -k 5 120` (TERM is passed on; it ends after 120 s regardless),
# stdout and stderr in LOG, puts it in TARGET_PIDS and sets H2_SPAWN_PID,
# then waits until something accepts on 127.0.0.1:PORT. Returns 0 once it
# does; otherwise stops CMD and returns 2 if LOG says the port was taken in
# the meantime (pick another), 1 if not.
h2_spawn() {
    local log=$1 port=$2
    shift 2
    timeout -k 5 120 "$@" > "$log" 2>&1 &
    H2_SPAWN_PID=$!
    TARGET_PIDS+=("$H2_SPAWN_PID")
    tls_wait_listen "$port" "$H2_SPAWN_PID" && return 0
    kill "$H2_SPAWN_PID" 2>/dev/null || true
    wait "$H2_SPAWN_PID" 2>/dev/null || true
    grep -qi "in use" "$log" && return 2
    return 1
}

# start_nginx_h2 [--h2c] [DIRECTIVE...]: nginx (Debian's /usr/sbin/nginx,
# $NGINX overrides) on a free loopback port speaking HTTP/2 only: with TLS
# (`listen ... ssl http2`, tls_certs' certificate, TLS 1.2 and 1.3, ALPN h2)
# or, with --h2c, cleartext HTTP/2 with prior knowledge (`listen ... http2`).
# Everything in $T/nginx_h2; it can run next to start_nginx_tls' nginx.
# The server block has `http2_max_concurrent_streams 128;` unless a DIRECTIVE
# sets it; each DIRECTIVE goes into the server block, e.g.
#   "http2_max_concurrent_streams 2;"
#   "keepalive_requests 50;"   GOAWAY after 50 requests on a connection. nginx
#                              1.22 ignores http2_max_requests (obsolete since
#                              1.19.7, a warning only), so "http2_max_requests
#                              N;" is passed on as "keepalive_requests N;".
# Serves:
#   /            200 "hello world" (11 bytes), whatever the method; a request
#                body is not read: nginx answers at once, then resets the
#                stream with RST_STREAM NO_ERROR (checked with nghttp -d)
#   /static/100k 100000 bytes,  /static/1m 1048576 bytes (h2_static_files'
#                pattern); anything else under /static/: 404
#   /post        reads the whole request body (up to 10 MB), then 200 with
#                its length in decimal ("100000"); proxied to a second server
#                on a unix socket, whose requests are not logged
# Access log $T/nginx_h2.access, one line per request:
#   $server_protocol $request_method $uri $status $body_bytes_sent $connection $connection_requests
#   e.g. "HTTP/2.0 GET / 200 11 3 7": the 7th request on nginx's connection 3
# (connection numbers are nginx's own and also count the /post proxy's).
# Sets H2_PORT, H2_PID (a `timeout` wrapper that passes TERM on and ends
# nginx after 120 s regardless; in TARGET_PIDS; kill it to flush the log) and
# h2url=https://127.0.0.1:$H2_PORT or, with --h2c, http://127.0.0.1:$H2_PORT.
# Returns non-zero with a message on stderr if nginx is missing or does not
# start (callers skip).
start_nginx_h2() {
    local h2c="" extra="" streams="http2_max_concurrent_streams 128;"
    while [ $# -gt 0 ]; do
        case $1 in
            --h2c) h2c=1 ;;
            http2_max_concurrent_streams*) streams=$1 ;;
            http2_max_requests*) extra+="        keepalive_requests ${1#http2_max_requests}"$'\n' ;;
            *) extra+="        $1"$'\n' ;;
        esac
        shift
    done
    local nginx=${NGINX:-/usr/sbin/nginx}
    [ -x "$nginx" ] || { echo "start_nginx_h2: no $nginx" >&2; return 1; }
    local d=$T/nginx_h2 listen tls="" scheme=http
    mkdir -p "$d/tmp"
    h2_static_files "$d/root/static"
    if [ -z "$h2c" ]; then
        tls_certs || return 1
        scheme=https
        tls="ssl_certificate $TLS_CERT;
        ssl_certificate_key $TLS_KEY;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:volleyh2:1m;"
    fi
    local attempt
    for attempt in 1 2 3 4 5; do
        H2_PORT=$(tls_free_port)
        listen="listen 127.0.0.1:$H2_PORT${tls:+ ssl} http2;"
        rm -f "$d/post.sock"
        { nginx_prelude "$d" nginx_h2; cat <<EOF
    log_format volleyh2 '\$server_protocol \$request_method \$uri \$status \$body_bytes_sent \$connection \$connection_requests';
    access_log $T/nginx_h2.access volleyh2;
    keepalive_requests 100000;
    server {
        $listen
        $tls
        $streams
        default_type text/plain;
$extra
        location / { return 200 "hello world"; }
        location /static/ { root $d/root; default_type application/octet-stream; }
        # "return" answers before the body and then resets the stream
        # (NO_ERROR); the proxy reads all of the body first.
        location /post {
            client_max_body_size 10m;
            proxy_pass http://unix:$d/post.sock:/;
        }
    }
    server {
        listen unix:$d/post.sock;
        access_log off;
        location / { return 200 "\$http_content_length"; }
    }
}
EOF
        } > "$d/nginx.conf"
        : > "$T/nginx_h2.err"
        h2url="$scheme://127.0.0.1:$H2_PORT"
        h2_spawn "$T/nginx_h2.out" "$H2_PORT" "$nginx" -p "$d" -e "$T/nginx_h2.err" -c "$d/nginx.conf" &&
            { H2_PID=$H2_SPAWN_PID; return 0; }
        [ $? = 2 ] || break
    done
    echo "start_nginx_h2: nginx did not start: $(tail -3 "$T/nginx_h2.err" "$T/nginx_h2.out" 2>/dev/null)" >&2
    return 1
}

# start_nghttpd [--h2c] [nghttpd options]: nghttpd (nghttp2-server,
# $NGHTTPD overrides /usr/sbin/nghttpd), a conforming HTTP/2 server, on a
# free loopback port: TLS with tls_certs' certificate (ALPN h2), or with
# --h2c (or --no-tls) cleartext with prior knowledge. Options go to nghttpd,
# e.g. --max-concurrent-streams=2, --window-bits=10, --echo-upload (a POST
# answered with its own body), --early-response.
# Serves $T/nghttpd/htdocs: /index.html (also /) "hello world", /100k, /1m
# (h2_static_files' pattern); a missing file is 404.
# Sets NGHTTPD_PORT, NGHTTPD_PID (a `timeout` wrapper ending it after 120 s;
# in TARGET_PIDS) and nghttpd_url=https://127.0.0.1:$NGHTTPD_PORT (or http://).
# Output in $T/nghttpd.out. Returns non-zero with a message if it does not start.
start_nghttpd() {
    local h2c="" opts=()
    while [ $# -gt 0 ]; do
        case $1 in
            --h2c|--no-tls) h2c=1 ;;
            *) opts+=("$1") ;;
        esac
        shift
    done
    local nghttpd=${NGHTTPD:-/usr/sbin/nghttpd}
    [ -x "$nghttpd" ] || { echo "start_nghttpd: no $nghttpd" >&2; return 1; }
    local d=$T/nghttpd/htdocs scheme=http tail=()
    h2_static_files "$d"
    printf 'hello world' > "$d/index.html"
    if [ -z "$h2c" ]; then
        tls_certs || return 1
        scheme=https
    fi
    local attempt
    for attempt in 1 2 3 4 5; do
        NGHTTPD_PORT=$(tls_free_port)
        if [ -n "$h2c" ]; then tail=(--no-tls "$NGHTTPD_PORT"); else tail=("$NGHTTPD_PORT" "$TLS_KEY" "$TLS_CERT"); fi
        nghttpd_url="$scheme://127.0.0.1:$NGHTTPD_PORT"
        h2_spawn "$T/nghttpd.out" "$NGHTTPD_PORT" "$nghttpd" --address=127.0.0.1 --htdocs="$d" \
            ${opts[@]+"${opts[@]}"} "${tail[@]}" && { NGHTTPD_PID=$H2_SPAWN_PID; return 0; }
        [ $? = 2 ] || break
    done
    echo "start_nghttpd: nghttpd did not start: $(tail -3 "$T/nghttpd.out" 2>/dev/null)" >&2
    return 1
}

# start_py_h2 MODE [--tls]: py/h2_misbehave.py on a free loopback port,
# cleartext HTTP/2 with prior knowledge, or with --tls, TLS (tls_certs'
# certificate, ALPN h2). MODE (details in the script's docstring):
#   ok          200 "hello world" to every request
#   goaway      GOAWAY after H2_GOAWAY_AFTER (20) streams on a connection,
#               last_stream_id = that stream; answers up to it, ignores later
#               streams, closes once the others are answered
#   rst         RST_STREAM H2_RST_CODE (INTERNAL_ERROR; or REFUSED_STREAM, or
#               a number) on every H2_RST_EVERY-th (3) stream over all connections
#   maxstreams  SETTINGS_MAX_CONCURRENT_STREAMS H2_MAX_STREAMS (2), each answer
#               H2_DELAY_MS (20) ms late; refuses streams over the limit
#               (REFUSED_STREAM) once the client has acknowledged it
#   tinywindow  SETTINGS_INITIAL_WINDOW_SIZE H2_WINDOW (100), connection window
#               65535; a request with a body gets its length in decimal
#   stopread    reads the preface and SETTINGS, answers them, never reads again
#   garbage     answers the preface with an HTTP/1.1 400 response
# In every mode GET /big... answers 1048576 bytes (h2_static_files' pattern),
# and H2_MAX_STREAMS / H2_DELAY_MS apply (128 / 0 but in maxstreams).
# On the connection's life (py/h2_misbehave.py's docstring has the details):
#   nosettings  sends nothing at all (no SETTINGS); counts HEADERS received
#   maxstreams0 SETTINGS_MAX_CONCURRENT_STREAMS 0; refuses every stream
#   first0      the same limit, but answers the streams sent before the client
#               acknowledged it (the one sent with the preface)
#   silent0     the same limit; neither answers nor refuses a stream
#   lower0      answers H2_LOWER_AFTER (3) streams a connection, then a new
#               SETTINGS lowers the limit to 0 (counted as lowered)
#   goaway0     GOAWAY H2_GOAWAY_CODE (NO_ERROR) with last_stream_id 0 at once
# The H2_* variables are read from the environment when the server starts:
#   H2_GOAWAY_AFTER=5 start_py_h2 goaway
# The server writes its counters to $T/py_h2.MODE.stats (JSON, rewritten
# through a rename before the bytes of the event it counts are sent, so
# they are exact once a client has its answers; h2_stat reads them):
#   connections closed tls_failed received answered reset over_limit ignored
#   goaways client_resets client_goaways body_bytes max_open max_open_all
#   protocol_errors garbage_sent
# (max_open: most streams open at once after the client acknowledged our
# SETTINGS; max_open_all: at any time.) A second start_py_h2 with the same
# MODE stops the first one and starts the file over.
# Sets PY_H2_PORT, PY_H2_PID (in TARGET_PIDS) and py_h2_url=http://127.0.0.1:PORT
# (https:// with --tls). Exits by itself after H2_LIFETIME_S (60) s; stderr in
# $T/py_h2.MODE.err. Returns non-zero with a message if it cannot start.
start_py_h2() {
    local mode=$1 tls=() scheme=http
    [ "${2:-}" = --tls ] && { tls_certs || return 1; tls=("$TLS_CERT" "$TLS_KEY"); scheme=https; }
    h2_python_ok || return 1
    local old=${PY_H2_PIDS[$mode]:-}
    if [ -n "$old" ]; then kill "$old" 2>/dev/null || true; wait "$old" 2>/dev/null || true; fi
    local pf="$T/py_h2_port.$RANDOM$RANDOM"
    "$H2_PYTHON" -B "$H2_PY/h2_misbehave.py" "$mode" "$pf" "$T/py_h2.$mode.stats" ${tls[@]+"${tls[@]}"} \
        2> "$T/py_h2.$mode.err" &
    PY_H2_PID=$!
    PY_H2_PIDS[$mode]=$PY_H2_PID
    TARGET_PIDS+=("$PY_H2_PID")
    wait_port_file "$pf" "$PY_H2_PID" || { echo "start_py_h2 $mode: did not start: $(tail -3 "$T/py_h2.$mode.err")" >&2; return 1; }
    PY_H2_PORT=$(cat "$pf")
    py_h2_url="$scheme://127.0.0.1:$PY_H2_PORT"
}

# h2_stat MODE KEY: one counter from the MODE server's stats file.
h2_stat() { jget "$T/py_h2.$1.stats" "$2"; }

# h2_wait_stat MODE KEY VALUE: waits up to 5 s for the counter to reach
# VALUE (for counts that follow the client's own close, such as "closed");
# returns non-zero if it does not.
h2_wait_stat() {
    local i
    for i in $(seq 1 100); do
        [ "$(h2_stat "$1" "$2")" = "$3" ] && return 0
        sleep 0.05
    done
    return 1
}

# h2_get NAME [py/h2_get.py args] HOST PORT: the strict python client,
# output in $T/NAME.txt (last line "result ok=.. reset=.. goaways=.. conns=..
# retried=.. unanswered=.. bytes=.. error=.."), stderr in $T/NAME.err, exit
# status in H2_RC. Never longer than 30 s.
h2_get() {
    local name=$1
    shift
    H2_RC=0
    timeout -s KILL 30 "$H2_PYTHON" -B "$H2_PY/h2_get.py" "$@" > "$T/$name.txt" 2> "$T/$name.err" || H2_RC=$?
}

# h2_result NAME KEY: a field of the "result" line of $T/NAME.txt.
h2_result() { tail -1 "$T/$1.txt" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

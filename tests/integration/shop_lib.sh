# The test shop (apps/shop: Sinatra with Rack cookie sessions) on Debian's
# puma, for the flow tests. Source after lib.sh: the server joins
# TARGET_PIDS, so lib.sh's cleanup stops it with the test, and it ends by
# itself after SHOP_MAX_SECONDS (default 180) whatever happens.

SHOP_APP="$(cd "$(dirname "${BASH_SOURCE[0]}")/apps/shop" && pwd)"
SHOP_PUMA=${SHOP_PUMA:-puma}

# shop_missing: true (and says what on stderr) when ruby, puma or Sinatra
# is not installed, so a test can skip rather than fail on a bare machine.
shop_missing() {
    if ! command -v "$SHOP_PUMA" > /dev/null; then
        echo "shop_lib: no $SHOP_PUMA (apt-get install -y puma; make test installs it)" >&2
        return 0
    fi
    if ! HOME=$T ruby -e 'require "sinatra/base"; require "rack/session/cookie"' 2> /dev/null; then
        echo "shop_lib: ruby cannot load sinatra (apt-get install -y ruby-sinatra; make test installs it)" >&2
        return 0
    fi
    return 1
}

# start_shop DIR: starts the shop on 127.0.0.1, on a port the kernel picks
# (puma binds port 0 and prints the port it got), with its request log in
# DIR/shop.log and puma's output in DIR/puma.out; HOME is DIR/home, as
# ruby may read and write there and the test's HOME may be unset or not
# writable. Waits (at most SHOP_WAIT seconds, default 60: ruby starts
# slowly on a loaded machine) until GET /items/1 answers 200. Exports
# SHOP_PORT, SHOP_PID (a `timeout` wrapper that passes TERM on to puma) and
# SHOP_LOG. Returns 0, or 1 with the reason and puma's last lines on stderr.
start_shop() {
    local dir=$1 _
    mkdir -p "$dir/home"
    export SHOP_LOG="$dir/shop.log"
    : > "$SHOP_LOG"
    # From the app's folder, so that puma finds no config/puma.rb but ours
    # (none): the test's working directory is not the app's.
    (
        cd "$SHOP_APP" || exit 1
        HOME="$dir/home" RACK_ENV=production SHOP_LOG="$SHOP_LOG" \
            exec timeout -k 5 "${SHOP_MAX_SECONDS:-180}" "$SHOP_PUMA" -e production \
            -b tcp://127.0.0.1:0 -t 4:4 config.ru
    ) > "$dir/puma.out" 2>&1 &
    SHOP_PID=$!
    export SHOP_PID
    TARGET_PIDS+=("$SHOP_PID")
    SHOP_PORT=""
    for _ in $(seq 1 $((${SHOP_WAIT:-60} * 10))); do
        if ! kill -0 "$SHOP_PID" 2> /dev/null; then
            echo "shop_lib: puma exited before it listened: $(tail -n 5 "$dir/puma.out")" >&2
            return 1
        fi
        if [ -z "$SHOP_PORT" ]; then
            SHOP_PORT=$(sed -n 's|^\* Listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$dir/puma.out" | head -n 1)
        fi
        if [ -n "$SHOP_PORT" ] && shop_answers "$SHOP_PORT"; then
            export SHOP_PORT
            # The probe is the shop's, not the test's: start the log empty.
            : > "$SHOP_LOG"
            return 0
        fi
        sleep 0.1
    done
    echo "shop_lib: the shop did not answer within ${SHOP_WAIT:-60} s: $(tail -n 5 "$dir/puma.out")" >&2
    return 1
}

# shop_answers PORT: true if GET /items/1 on 127.0.0.1:PORT answers 200
# within 5 s.
shop_answers() {
    python3 - "$1" <<'PY' 2> /dev/null
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
c.request("GET", "/items/1")
sys.exit(0 if c.getresponse().status == 200 else 1)
PY
}

# stop_shop: stops the shop started last (TERM: puma finishes the requests
# it has and exits) and waits for it, so that its log is whole.
stop_shop() {
    kill "$SHOP_PID" 2> /dev/null || true
    wait "$SHOP_PID" 2> /dev/null || true
}

# User flows against a real application nobody here wrote: the Sinatra shop
# of apps/shop (Rack cookie sessions on Debian's puma) driven by
# examples.shop, 2 threads x 20 users. From the shop's own request log and
# volley's JSON (py/shop_check.py): every route's count is its request
# name's (a login's followed redirect under "login"), the log holds exactly
# volley's completed requests, every login's 303 was followed to /home, no
# session was ever used by two users (nor by anyone but its own), and every
# user 1..20 was seen. Skipped (status 77) while volley does not know the
# scenario hook user(), and where puma or Sinatra is missing (outside CI:
# `make test` installs them, so there it fails).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/shop_lib.sh"
PYDIR="$(dirname "$TESTLIB")/py"

USERS=20
# The run, in one place: think time 1 ms, so the test runs fast.
FLOW_ARGS=(-s examples.shop -t 2 -c "$USERS" --iterations 100)
SCRIPT_ARGS=(-- think=1ms)

if shop_missing; then
    if [ "${CI:-}" = "true" ]; then
        echo "FAIL: puma or Sinatra missing in CI (make test-deps installs them)" >&2
        exit 1
    fi
    echo "SKIP: puma or ruby-sinatra not installed"
    exit 77
fi

start_shop "$T/shop" || exit 1
url="http://127.0.0.1:$SHOP_PORT/"
run_volley flow "${FLOW_ARGS[@]}" "$url" "${SCRIPT_ARGS[@]}"
# A volley without flows refuses the option or the hook, before it connects.
if [ "$RC" != 0 ] && grep -qE -- '--iterations: unknown option|unknown hook "user"' "$T/flow.err"; then
    echo "SKIP: this volley has no user flows yet ($(head -n 1 "$T/flow.err"))"
    exit 77
fi
check_eq "$RC" 0 "flow: exit status ($(head -c 300 "$T/flow.err"))"
stop_shop
[ -s "$T/flow.json" ] || { fail "flow: no JSON"; finish; }

if python3 "$PYDIR/shop_check.py" "$SHOP_LOG" "$T/flow.json" "$USERS" > "$T/check.out" 2> "$T/check.err"; then
    ok
else
    fail "flow: the shop's log and volley's JSON disagree: $(head -n 8 "$T/check.err")"
fi
cat "$T/check.out"
check_adds_up flow
finish

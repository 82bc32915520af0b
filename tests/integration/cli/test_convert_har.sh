# volley convert of a real browser's recording: headless Chromium loads a
# page of a small app (tests/integration/py/har_app.py: a stylesheet answered
# 300 ms late, a script and an image, then after 300 ms the API calls: a GET, a
# JSON POST that needs the page's cookie, a form POST answered with a 303)
# and har_record.py writes its HAR from the DevTools protocol
# (--remote-debugging-pipe; Chromium has no HAR flag). The flow volley
# convert makes of it, run once against the same app, makes the same
# requests (method, path, cookie, body length) as the browser: the page's
# assets together (in any order: a batch), the rest in the browser's order;
# with --no-assets only the document and the API calls. Skipped (status
# 77) where Chromium is not installed or cannot run.
source "$TESTLIB"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIP: chromium not found (apt-get install -y chromium; make test installs it)"
    exit 77
fi
echo '<!DOCTYPE html><p id="x">ok</p>' > "$T/probe.html"
if ! timeout -k 5 60 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/probe-profile" \
        --dump-dom "file://$T/probe.html" > "$T/probe.dom" 2> "$T/probe.err" || ! grep -q '<p id="x">ok</p>' "$T/probe.dom"; then
    echo "SKIP: chromium cannot run here: $(tail -3 "$T/probe.err")"
    exit 77
fi
PY=$(dirname "$TESTLIB")/py

/usr/bin/python3 "$PY/har_app.py" "$T/app.port" "$T/app.log" 90 &
APP=$!
TARGET_PIDS+=("$APP")
wait_port_file "$T/app.port" "$APP" || { echo "har_app.py did not start" >&2; exit 1; }
U="http://127.0.0.1:$(cat "$T/app.port")"

rc=0; timeout -k 5 70 /usr/bin/python3 "$PY/har_record.py" "$CHROMIUM" "$U/" "$T/rec.har" "$T/profile" > "$T/rec.out" 2>&1 || rc=$?
check_eq "$rc" 0 "recording the HAR: $(tail -3 "$T/rec.out")"
cp "$T/app.log" "$T/browser.log"
# The browser's requests, as the app logged them: the page, its three
# assets (in the order the browser chose), then the script's calls.
check_eq "$(head -n 1 "$T/browser.log")" "GET / - 0" "browser: the page first, without a cookie"
check_eq "$(sed -n '2,4p' "$T/browser.log" | sort | tr '\n' '|')" \
    "GET /static/app.css sid 0|GET /static/app.js sid 0|GET /static/logo.png sid 0|" "browser: the assets"
check_eq "$(tail -n +5 "$T/browser.log" | tr '\n' '|')" \
    "GET /api/items/42 sid 0|POST /api/cart sid 17|POST /login sid 27|GET /account sid 0|" "browser: the script's calls"

# The flow: its text holds what the conversion decides.
rc=0; "$VOLLEY" convert -o "$T/flow.lua" "$T/rec.har" > "$T/convert.out" 2> "$T/convert.err" || rc=$?
check_eq "$rc" 0 "convert: exit status ($(cat "$T/convert.err"))"
check_eq "$(wc -c < "$T/convert.out")" 0 "convert -o: nothing on stdout"
F="$T/flow.lua"
check_grep "$F" '^  u:batch\{$' "flow: the assets as a batch"
check_grep "$F" '^  u:sleep\((0\.[1-9][0-9]?|[1-9][0-9.]*)\)$' "flow: the script's 300 ms wait as think time"
check_grep "$F" 'name = "GET /api/items/\{id\}"' "flow: the id taken out of the name"
check_grep "$F" 'form = \{ password = "s3cret!", user = "ann" \}' "flow: the form's fields"
check_grep "$F" 'body = "\{\\"id\\":42,\\"qty\\":2\}"' "flow: the JSON body as recorded"
check_grep "$F" "^--   volley -s $T/flow.lua --iterations 1 $U/\$" "flow: the command line to run it"
check_grep "$F" "^--   $U +7  \(the target" "flow: the host and its requests"
check_grep "$F" '^-- Left out: 1 redirect followed' "flow: the redirect's hop left to the flow"
check_eq "$(grep -ciE '^ *(\["?)?(cookie|user-agent|host|sec-fetch-[a-z]+|sec-ch-ua)("?\])? = ' "$F")" 0 "flow: no Cookie, User-Agent, Host or browser noise sent"

# Run once against the same app: the same requests.
: > "$T/app.log"
run_volley flow -s "$F" --iterations 1 "$U/"
check_eq "$RC" 0 "flow run: exit status ($(tail -2 "$T/flow.err"))"
check_eq "$(jget "$T/flow.json" requests.failed)" 0 "flow run: no failed request"
check_eq "$(head -n 1 "$T/app.log")" "$(head -n 1 "$T/browser.log")" "flow: the page first"
check_eq "$(sed -n '2,4p' "$T/app.log" | sort | tr '\n' '|')" "$(sed -n '2,4p' "$T/browser.log" | sort | tr '\n' '|')" \
    "flow: the same assets"
check_eq "$(tail -n +5 "$T/app.log" | tr '\n' '|')" "$(tail -n +5 "$T/browser.log" | tr '\n' '|')" \
    "flow: the script's calls in the browser's order, with the cookie and the bodies"

# --no-assets: the page and the calls only, in order.
rc=0; "$VOLLEY" convert --no-assets "$T/rec.har" > "$T/api.lua" 2> "$T/api.err" || rc=$?
check_eq "$rc" 0 "convert --no-assets: exit status ($(cat "$T/api.err"))"
check_grep "$T/api.lua" '^-- Left out: .*3 assets \(--no-assets\)\.$' "--no-assets: what it left out"
: > "$T/app.log"
run_volley api -s "$T/api.lua" --iterations 1 "$U/"
check_eq "$RC" 0 "--no-assets run: exit status ($(tail -2 "$T/api.err"))"
check_eq "$(tr '\n' '|' < "$T/app.log")" "$(grep -v ' /static/' "$T/browser.log" | tr '\n' '|')" \
    "--no-assets: the document and the API calls, in order"

finish

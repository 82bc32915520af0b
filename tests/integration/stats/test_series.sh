# The per-second series (JSON "series") adds up to the run's totals, and the
# live progress line: drawn and erased on a terminal (a pseudo-terminal from
# script(1)), absent with -q and on a pipe, a plain line every 10 s with
# --progress lines, drawn on a file with --progress bar, colour only on a
# terminal without NO_COLOR; a flow's iterations in it.
source "$TESTLIB"

# series_adds_up NAME MODEL: every count of the points sums to the run's
# total; the points cover the run (one per started second, the last with
# the part of its second it covers); closed loop:
# each point's latencies are its completions; open: the latencies (with the
# timeouts) sum to the run's latency count.
series_adds_up() {
    python3 - "$T/$1.json" "$2" <<'PY' || fail "$1: the series does not add up"
import json, math, sys
r = json.load(open(sys.argv[1]))
model = sys.argv[2]
s = r["series"]
pts = s["points"]
assert s["interval"] == 1, s["interval"]
assert len(pts) == math.ceil(r["duration"]), (len(pts), r["duration"])
assert [p["t"] for p in pts] == list(range(len(pts)))
assert sum(p["requests"] for p in pts) == r["requests"]["completed"]
assert sum(p["bytes"] for p in pts) == r["bytes"]["read"]
for k, v in r["errors"].items():
    assert sum(p["errors"][k] for p in pts) == v, k
classes = {"1xx": 0, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, "other": 0}
for code, n in r["status"].items():
    classes["other" if code == "other" else code[0] + "xx"] += n
for c, n in classes.items():
    assert sum(p["status"][c] for p in pts) == n, c
lat = sum(p["latency"]["count"] for p in pts)
if model == "closed":
    assert lat == r["requests"]["completed"], lat
    for p in pts:
        assert p["latency"]["count"] == p["requests"], p
else:
    assert lat == r["latency"]["count"], (lat, r["latency"]["count"])
    assert sum(p["sent"] for p in pts) == r["rate"]["sent"]
    assert s["target_rate"] == r["options"]["rate"]
# The last point covers what is left of the run in its second, and says
# so; every other point covers a whole second (issue 21, item 15).
last = pts[-1]
assert all("span" not in p for p in pts[:-1]), [p["t"] for p in pts if "span" in p]
rest = r["duration"] - last["t"]
if rest < 1 - 1e-6:
    assert abs(last["span"] - rest) <= 2e-6, (last.get("span"), rest)
else:
    assert "span" not in last, last
for p in pts:
    if p["latency"]["count"]:
        l = p["latency"]
        assert 0 < l["p50"] <= l["p90"] <= l["p99"] <= l["max"], l
        assert l["hdr"].startswith("HISTF"), l["hdr"][:8]
PY
    ok
}

# Closed loop, two threads, some requests never answered (timeouts).
start_target --drop-every 97
run_volley closed -t 2 -c 8 -d 2.5s --timeout 300ms "http://127.0.0.1:$PORT/"
check_eq "$RC" 0 "closed: exit status"
check_ge "$(jget "$T/closed.json" errors.timeout)" 1 "closed: some timeouts"
series_adds_up closed closed

# Open model: sent and the timed-out latencies are in the points too.
run_volley open -t 2 -c 16 -R 400 -d 2s --timeout 300ms "http://127.0.0.1:$PORT/"
check_rate_rc "open: exit status"
series_adds_up open open

# Progress on a terminal: the line is drawn ("\r...\e[K") and erased before
# the report; -q draws nothing.
URL="http://127.0.0.1:$PORT/"
pty() { # pty OUT COMMAND...: runs the command under a pseudo-terminal
    local out=$1
    shift
    timeout -s KILL 30 script -qfec "$(printf '%q ' "$@")" "$out" > /dev/null 2>&1 || true
}
if command -v script > /dev/null; then
    pty "$T/bar.txt" "$VOLLEY" -c 2 -d 1.6s --timeout 300ms "$URL"
    check_grep "$T/bar.txt" $'\r[0-9.]+s/2s \\[[=> ]{20}\\] [0-9-]+ req/s  .*errors [0-9]+' "pty: the bar is drawn"
    check_grep "$T/bar.txt" $'\r\e\\[K  Latency' "pty: the bar is erased before the report"
    # With thresholds, how many hold so far.
    pty "$T/th.txt" "$VOLLEY" -c 2 -d 1.6s --threshold 'p99 < 1m' --threshold 'p50 < 1ns' "$URL"
    check_grep "$T/th.txt" $'thresholds 1/2 pass' "pty: the thresholds' state"
    pty "$T/quiet.txt" "$VOLLEY" -q -c 2 -d 1.2s "$URL"
    if grep -q $'\e\\[K' "$T/quiet.txt"; then fail "pty: -q drew a progress line"; else ok; fi
    pty "$T/none.txt" "$VOLLEY" --progress none -c 2 -d 1.2s "$URL"
    if grep -q $'\e\\[K' "$T/none.txt"; then fail "pty: --progress none drew a progress line"; else ok; fi
    # A flow: the iterations completed and failed beside the requests, and
    # with --iterations how many of them have ended.
    FLOW="$(dirname "$TESTLIB")/lua/flow_marks.lua"
    pty "$T/flow.txt" "$VOLLEY" -c 2 -d 1.6s -s "$FLOW" "$URL" -- sleep=20
    check_grep "$T/flow.txt" $'\r[0-9.]+s/2s \\[[=> ]{20}\\] [0-9-]+ req/s  iterations [1-9][0-9]* done, (\e\\[31m)?[0-9]+ failed(\e\\[0m)?  .*errors [0-9]+' "pty: a flow's iterations"
    check_grep "$T/flow.txt" $'iterations [0-9]+ done, \e\\[31m[1-9][0-9]* failed\e\\[0m' "pty: failed iterations in colour"
    pty "$T/flown.txt" "$VOLLEY" -c 2 --iterations 100 -s "$FLOW" "$URL" -- sleep=20
    check_grep "$T/flown.txt" $'\r[1-9][0-9]*/100 \\[[=> ]{20}\\] [0-9-]+ req/s  iterations [1-9]' "pty: --iterations: how many have ended"
    # Errors are red unless NO_COLOR is set (no-color.org).
    pty "$T/color.txt" "$VOLLEY" -c 4 -d 1.6s --timeout 200ms "$URL"
    check_grep "$T/color.txt" $'\e\\[31merrors [1-9]' "pty: errors in colour"
    pty "$T/nocolor.txt" env NO_COLOR=1 "$VOLLEY" -c 4 -d 1.6s --timeout 200ms "$URL"
    if grep -q $'\e\\[31m' "$T/nocolor.txt"; then fail "pty: colour despite NO_COLOR"; else ok; fi
    check_grep "$T/nocolor.txt" "errors [1-9]" "pty: NO_COLOR still shows the errors"
else
    echo "skip: script(1) not installed (bsdutils)"
fi

# A pipe gets no progress bytes; --progress lines gets one plain line per
# 10 s.
stop_target
start_target
URL="http://127.0.0.1:$PORT/"
run_volley piped -c 2 -d 1.2s "$URL"
if grep -q $'\r\\|\e' "$T/piped.err"; then fail "pipe: progress bytes on stderr"; else ok; fi
# --progress bar draws the bar where auto would not (stderr a file: a
# terminal that does not say it is one), erased before the report, in no
# colour (not a terminal), and -q still silences it.
run_volley pbar --progress bar -c 4 -d 1.6s --timeout 200ms "http://127.0.0.1:$PORT/never"
check_grep "$T/pbar.err" $'\r[0-9.]+s/2s \\[[=> ]{20}\\] [0-9-]+ req/s  errors [1-9][0-9]*' "--progress bar: drawn on a file, errors uncoloured"
check_grep "$T/pbar.err" $'\e\\[K\r\e\\[K' "--progress bar: erased at the end"
if grep -q $'\e\\[31m' "$T/pbar.err"; then fail "--progress bar: colour off a terminal"; else ok; fi
run_volley pbarq -q --progress bar -c 2 -d 1.2s "$URL"
if grep -q $'\r\\|\e' "$T/pbarq.err"; then fail "--progress bar with -q: progress bytes"; else ok; fi
run_volley pauto --progress auto -c 2 -d 1.2s "$URL"
if grep -q $'\r\\|\e' "$T/pauto.err"; then fail "--progress auto on a file: progress bytes"; else ok; fi
run_volley lines --progress lines -c 2 -R 100 -d 11s --timeout 1s "$URL"
check_eq "$(grep -c '^volley: ' "$T/lines.err")" 1 "lines: one line in 11 s"
check_grep "$T/lines.err" '^volley: 10\.[0-9]s/11s  [0-9]+ req/s \(target 100\)  errors [0-9]+  p50 [0-9.]+(us|ms)  p99 ' "lines: the line"
run_volley badprog --progress sometimes "$URL"
check_eq "$RC" 2 "--progress: a bad mode is refused"
check_grep "$T/badprog.err" '^volley: --progress: "sometimes" is not auto, bar, lines or none$' "--progress: the message"
stop_target
finish

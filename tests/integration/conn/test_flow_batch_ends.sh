# A flow's u:batch whose connections fail (issue 29, items 2 and 6), over
# HTTP/1.1 (the user's connection and its lanes) and over h2c (streams of
# the user's connection): against a port where nothing listens, and
# against a server that dies mid-run (its connections reset or closed with
# requests in flight, then every connect refused). Each run ends by
# itself, every request is accounted once (started = completed + failed +
# cut off), and every batch comes back to its user with each failure in
# its place: the user counts (volley.counter) the items it was given and
# the failed ones, which must be every request started and every request
# failed.
#
# A batch of 10 is more than the 6 carriers of HTTP/1.1: a connect that
# fails at once on a lane took the rest of the batch from inside the loop
# that was still handing it out, which then read past the batch's items
# (a SIGSEGV; a heap-buffer-overflow in carry under ASan). Over h2c a
# failed connection never told the batch of its streams, and the run
# never ended.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/scripts_lib.sh"
source "$(dirname "$TESTLIB")/tls_lib.sh"
source "$(dirname "$TESTLIB")/h2_lib.sh"

S=$T/scripts
mkdir -p "$S"

# batch10 PATH SLEEP_MS: a user that sends a batch of 10 requests for
# PATH, counts what came back, then sleeps.
batch10() {
    cat <<EOF
local s = {}
function s.user(u)
  local list = {}
  for i = 1, 10 do list[i] = "$1" end
  local rs = u:batch(list)
  local failed = 0
  for i = 1, #rs do
    if rs[i].failed then failed = failed + 1 end
  end
  volley.counter("given", #rs)
  volley.counter("given_failed", failed)
  u:sleep($2)
end
return s
EOF
}
batch10 / 0 > "$S/refused.lua"
batch10 /delay/5000 0 > "$S/dies.lua"

# every_batch_back NAME ITERATIONS: the run ended by itself with its
# iterations all done, and each request came back to its user in its
# batch (given = started, given_failed = failed).
every_batch_back() {
    local name=$1 iters=$2
    case $RC in 0|1) ok ;; *) fail "$name: exit status $RC (124/137: it did not end; $(tail -c 300 "$T/$name.err"))" ;; esac
    [ -s "$T/$name.json" ] || { fail "$name: no JSON"; return; }
    adds_up "$name"
    local started failed
    started=$(jv "$name" requests.started)
    failed=$(jv "$name" requests.failed)
    check_eq "$(jv "$name" iterations.started)" "$iters" "$name: iterations started"
    check_eq "$(( $(jv "$name" iterations.completed) + $(jv "$name" iterations.failed) ))" "$iters" \
        "$name: every iteration ended (none cut off)"
    check_eq "$started" $(( 10 * iters )) "$name: 10 requests an iteration"
    check_eq "$(jv "$name" requests.cut_off)" 0 "$name: no request cut off"
    check_num "$(jv "$name" metrics.counters.given)" == "$started" "$name: every request came back to its user"
    check_num "$(jv "$name" metrics.counters.given_failed)" == "$failed" "$name: every failure came back in its place"
    check_ge "$failed" 1 "$name: some requests failed"
}

# 1. Nothing listens: every connect is refused (at once, as a rule, on
# loopback). 4 users of 10 requests: 8 iterations, 80 requests, each
# failed as connect and given back to its user. -T 10s: the worker does
# not give the target up (and cut the rest off) before the iterations end.
DEAD=$(tls_free_port)
for mode in h1 h2c; do
    extra=()
    [ "$mode" = h2c ] && extra=(--h2c)
    name=refused_$mode
    runv "$name" -s "$S/refused.lua" -c 4 -T 10s --iterations 8 --no-probe ${extra[@]+"${extra[@]}"} \
        "http://127.0.0.1:$DEAD/"
    every_batch_back "$name" 8
    check_eq "$(( $(jv "$name" errors.connect) + $(jv "$name" errors.ports) ))" 80 "$name: every request failed to connect"
done

# 2. The server dies mid-run, with every request of the first batches in
# flight: volley-target exits by itself after 1 s (--max-seconds), and
# h2_misbehave.py after 1 s (H2_LIFETIME_S), while each request waits 5 s
# for its answer (/delay/5000, H2_DELAY_MS). The connections end under the
# requests (closed or reset), the next connects are refused.
start_target --max-seconds 1
runv dies_h1 -s "$S/dies.lua" -c 2 -T 10s --iterations 6 --no-probe "http://127.0.0.1:$PORT/"
every_batch_back dies_h1 6
check_ge "$(jv dies_h1 errors.read)" 1 "dies_h1: requests in flight when the server died"
check_ge "$(jv dies_h1 errors.connect)" 1 "dies_h1: connects refused once the server was gone"
stop_target

if h2_python_ok; then
    H2_LIFETIME_S=1 H2_DELAY_MS=5000 start_py_h2 ok
    runv dies_h2c -s "$S/dies.lua" -c 2 -T 10s --iterations 6 --no-probe --h2c "$py_h2_url/"
    every_batch_back dies_h2c 6
    check_ge "$(jv dies_h2c errors.read)" 1 "dies_h2c: requests in flight when the server died"
    check_ge "$(jv dies_h2c errors.connect)" 1 "dies_h2c: connects refused once the server was gone"
else
    echo "skip: python3-h2 missing (the HTTP/2 server)"
fi

finish

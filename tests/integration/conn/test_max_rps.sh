# --max-rps (docs/usage.md): a flow's many users with no think time held at
# or under N requests/s over all users, threads and shards. The server's
# read times (--timing-log) show no 1-second window above N + 2 per thread:
# a thread's sends are never closer than 1 / its share, so any second of
# sends holds at most its share + 1 (docs/usage.md), and a read may trail
# its send by a little on a loaded machine (one more at most, for a trail
# under 1 / share); the total is near N x d; the JSON's
# cap wait counts the requests that waited; the same run without the cap
# goes far faster (so the checks above can fail); two shards, each told
# --max-rps N, take about N/2 each and N together; a batch's items and a
# redirect's hops take a turn each; bad values and a run without a flow
# get one line each.
source "$TESTLIB"
S=$T/scripts
mkdir -p "$S"

cat > "$S/busy.lua" <<'EOF'
local s = {}
function s.user(u)
  u:get("/a", { name = "a" })
  u:batch({ "/b", "/c" })
  u:get("/d")
end
return s
EOF

N=40
# windows LOG: the most requests read in any 1-second window starting at
# a request, and how many in all.
windows() {
    python3 - "$1" <<'PY'
import sys
t = sorted(int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("r "))
j = best = 0
for i in range(len(t)):
    while t[i] - t[j] >= 1_000_000_000:
        j += 1
    best = max(best, i - j + 1)
print(best, len(t))
PY
}

# 1. The cap: 20 users over 2 threads, 3 s.
start_target --timing-log "$T/capped.log"
run_volley capped -s "$S/busy.lua" -c 20 -t 2 -d 3s --max-rps $N "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "capped: exit status ($(head -c 300 "$T/capped.err"))"
read -r most total < <(windows "$T/capped.log")
check_ge $((N + 2 * 2)) "$most" "capped: the busiest 1-second window (requests read)"
check_ge "$total" $((N * 3 * 7 / 10)) "capped: requests in 3 s at $N/s"
check_ge $((N * 3 + 2 + 1)) "$total" "capped: requests in 3 s at $N/s, at most"
check_eq "$(jget "$T/capped.json" options.max_rps)" "$N" "capped: options.max_rps"
waited=$(jget "$T/capped.json" iterations.cap_wait.count)
check_ge "$waited" 1 "capped: requests that waited for the cap"
check_grep "$T/capped.out" "Rate cap: $N requests/s \(--max-rps\); $waited requests waited for it" "capped: text report"
check_grep "$T/capped.out" "Cap wait" "capped: text report's wait line"
started=$(jget "$T/capped.json" requests.started)
check_eq "$started" "$total" "capped: requests started = requests the server read"

# 2. The same run without the cap: far more (the checks above can fail).
start_target --timing-log "$T/free.log"
run_volley free -s "$S/busy.lua" -c 20 -t 2 -d 3s "http://127.0.0.1:$PORT/"
stop_target
read -r most_free total_free < <(windows "$T/free.log")
check_ge "$most_free" $((N * 3)) "free: without --max-rps the busiest window is far above $N"
check_eq "$(jget "$T/free.json" options.max_rps)" null "free: options.max_rps"

# 3. Two shards, each --max-rps N: N/2 each, N together.
start_target --timing-log "$T/shards.log"
pids=()
for i in 0 1; do
    timeout -s KILL 60 "$VOLLEY" -s "$S/busy.lua" -c 10 -t 2 -d 3s --max-rps $N --shard "$i/2" \
        --json "$T/shard$i.json" "http://127.0.0.1:$PORT/" > "$T/shard$i.out" 2> "$T/shard$i.err" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "shards: a shard failed: $(cat "$T"/shard*.err)"; done
stop_target
read -r most total < <(windows "$T/shards.log")
check_ge $((N + 4 * 2)) "$most" "shards: the busiest 1-second window of both"
for i in 0 1; do
    s=$(jget "$T/shard$i.json" requests.started)
    check_ge "$s" $((N / 2 * 3 * 7 / 10)) "shard $i: requests at $((N / 2))/s"
    check_ge $((N / 2 * 3 + 2)) "$s" "shard $i: requests at $((N / 2))/s, at most"
done

# 4. Redirects: each hop takes its turn (py/redirector.py: /here is a 302
# to /ok), so a hop and its answer count as two requests under the cap.
PY="$(dirname "$TESTLIB")/py"
python3 "$PY/redirector.py" "$T/r.port" 60 &
TARGET_PIDS+=($!)
wait_port_file "$T/r.port" "$!" || { echo "redirector.py did not start" >&2; exit 1; }
cat > "$S/hops.lua" <<'EOF'
local s = {}
function s.user(u) u:get("/here") end
return s
EOF
run_volley hops -s "$S/hops.lua" -c 10 -t 1 -d 2s --max-rps 20 "http://127.0.0.1:$(cat "$T/r.port")/"
check_eq "$RC" 0 "hops: exit status ($(head -c 300 "$T/hops.err"))"
hops=$(jget "$T/hops.json" requests.started)
check_ge $((20 * 2 + 1 + 1)) "$hops" "hops: requests (each hop one) in 2 s at 20/s, at most"
check_ge "$hops" 28 "hops: requests in 2 s at 20/s"
check_ge "$(jget "$T/hops.json" status.302)" 12 "hops: the 302s were requests of their own"

# 5. Bad values and a run without a flow: one line each.
for v in 0 -5 fast 1.5 100000001; do
    run_volley "bad$v" -s "$S/busy.lua" -d 1s --max-rps "$v" "http://127.0.0.1:1/"
    check_eq "$RC" 2 "--max-rps $v: exit status"
    check_eq "$(wc -l < "$T/bad$v.err")" 1 "--max-rps $v: one line"
    check_grep "$T/bad$v.err" "^volley: --max-rps: " "--max-rps $v: the line names the option"
done
run_volley plain -d 1s --max-rps 10 "http://127.0.0.1:1/"
check_eq "$RC" 2 "--max-rps without a flow: exit status"
check_eq "$(cat "$T/plain.err")" "volley: --max-rps: caps a flow's requests (a script with user(u)); other runs are paced by -R N (requests/s on a fixed schedule)" "--max-rps without a flow: the line"
finish

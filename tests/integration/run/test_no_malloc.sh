# The steady-state request path does not allocate: two runs that differ only
# in the number of requests make the same number of allocations on the
# workers' threads, where every request is made. The main thread's count is
# left out: it grows with the run's seconds (each second's point encoded and
# stored), and how many seconds a run takes depends on the machine's load.
# A worker's own once-a-second work recycles its histograms, so a longer run
# adds nothing there either (the -d check below).
source "$TESTLIB"
: "${MALLOC_COUNT:?MALLOC_COUNT must point to the malloc_count shim}"

if [ "${SANITIZED:-OFF}" = ON ]; then
    echo "skip: sanitizer builds replace the allocator"
    exit 0
fi
start_target
allocs() { # allocs ARGS...: volley ARGS under the counter; prints its workers' allocations
    local f="$T/count.$BASHPID" workers main
    MALLOC_COUNT_FILE="$f" LD_PRELOAD="$MALLOC_COUNT" "$VOLLEY" -q "$@" > /dev/null
    read -r workers main < "$f"
    echo "$workers"
}
count() { # count REQUESTS ARGS... (REQUESTS "-": no -n, ARGS say how long)
    local n=$1 len=()
    shift
    [ "$n" = - ] || len=(-n "$n")
    allocs -t 1 -c 8 "${len[@]}" "$@" "http://127.0.0.1:$PORT/"
}
# The workers' counts may differ by a few between two runs, whatever their
# lengths: arrays sized by what happens at once (libev's pending events,
# the nghttp2 pool's lists) reach their size at another moment under
# another interleaving, and stop there. An allocation per request would
# add thousands.
same_count() { # same_count SMALL LARGE WHAT
    local d=$(($2 - $1))
    echo "$3: $1 vs $2 allocations on the workers"
    if [ "${d#-}" -le 5 ]; then ok; else fail "$3: $1 vs $2 allocations on the workers"; fi
}
small=$(count 1000)
large=$(count 20000)
check_ge "$small" 1 "the shim counts allocations"
same_count "$small" "$large" "20000 requests vs 1000 (keep-alive)"
small=$(count 300 --no-keepalive)
large=$(count 3000 --no-keepalive)
same_count "$small" "$large" "3000 requests vs 300 (a connection each)"
# The open model's schedule, queue and idle stack allocate nothing per request.
small=$(count 200 -R 20000)
large=$(count 4000 -R 20000)
same_count "$small" "$large" "-R: 4000 requests vs 200"
# Seconds: 4 s of a worker's series (its histograms handed over each second)
# cost what 1 s does.
small=$(count - -R 100 -d 1s)
large=$(count - -R 100 -d 4s)
same_count "$small" "$large" "-R 100: -d 4s vs -d 1s"
# --targets: each request picks an encoded request by index, in order or
# at random.
printf 'GET http://127.0.0.1:%s/a\n\nPOST http://127.0.0.1:%s/b\nX-A: 1\n\nhttp://127.0.0.1:%s/c\n' \
    "$PORT" "$PORT" "$PORT" > "$T/targets.txt"
small=$(count 1000 --targets "$T/targets.txt")
large=$(count 20000 --targets "$T/targets.txt")
same_count "$small" "$large" "--targets: 20000 requests vs 1000"
small=$(count 1000 --targets "$T/targets.txt" --targets-order random)
large=$(count 20000 --targets "$T/targets.txt" --targets-order random)
same_count "$small" "$large" "--targets random: 20000 requests vs 1000"
# Named requests: a name allocates at its first use only (LuaJIT's tables
# come from its own allocator, not malloc).
cat > "$T/named.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  return { path = "/", name = conn.n % 2 == 0 and "even" or "odd" }
end
return s
LUA
small=$(count 1000 -s "$T/named.lua")
large=$(count 20000 -s "$T/named.lua")
same_count "$small" "$large" "named requests: 20000 vs 1000"
# A flow's tags (a pair, a set and a name with a set interned at their
# first use) and --max-rps's queue (users waiting their turn on its
# timer) allocate nothing per request either.
cat > "$T/tagged.lua" <<'LUA'
local s = {}
function s.user(u)
  u:get("/a", { tags = { kind = "api" } })
  u:batch({ { path = "/b", tags = { kind = "static", page = "b" } }, "/c" })
end
return s
LUA
flow_count() { allocs -t 1 -c 4 --iterations "$1" -s "$T/tagged.lua" "${@:2}" "http://127.0.0.1:$PORT/"; }
same_count "$(flow_count 200)" "$(flow_count 4000)" "tagged flow: 12000 requests vs 600"
same_count "$(flow_count 200 --max-rps 20000)" "$(flow_count 4000 --max-rps 20000)" \
    "tagged flow under --max-rps: 12000 requests vs 600"
# Default names (requests sent unnamed count under "METHOD path"): a path
# met before is a lookup in the worker's cache; past the run's 100 default
# names a new path goes to "(other paths)" without allocating either.
cat > "$T/unnamed.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  return { path = "/p" .. conn.n % 7 .. "?q=" .. conn.n }
end
return s
LUA
small=$(count 1000 -s "$T/unnamed.lua")
large=$(count 20000 -s "$T/unnamed.lua")
same_count "$small" "$large" "unnamed requests, 7 paths: 20000 vs 1000"
cat > "$T/distinct.lua" <<'LUA'
local s = {}
function s.request(conn)
  conn.n = (conn.n or 0) + 1
  return { path = "/items/" .. conn.id .. "-" .. conn.n }
end
return s
LUA
small=$(count 1000 -s "$T/distinct.lua")
large=$(count 20000 -s "$T/distinct.lua")
same_count "$small" "$large" "unnamed requests, a path each (past the bound): 20000 vs 1000"
stop_target

# https keep-alive: volley's own path allocates nothing, but OpenSSL 3.0's
# record layer allocates small blocks for each record it writes and reads
# (about 4 per request here, seen with gdb in SSL_write and SSL_read). The
# bound catches any allocation of volley's own on top of those.
source "$(dirname "$TESTLIB")/tls_lib.sh"
start_tls_target
count_tls() { allocs -t 1 -c 8 -n "$1" "$surl/"; }
small=$(count_tls 1000)
large=$(count_tls 11000)
per=$(( (large - small) / 10000 ))
if [ "$per" -le 5 ]; then ok; else fail "https keep-alive: $per allocations per request (OpenSSL's own are about 4)"; fi

# HTTP/2 (h2c): nghttp2 makes and frees a few blocks for every stream; they
# come from the worker's pool (src/base/mpool.c), so the totals match here too.
source "$(dirname "$TESTLIB")/h2_lib.sh"
if start_nginx_h2 --h2c; then
    count_h2() { # count_h2 REQUESTS STREAMS [ARGS...]
        local n=$1 s=$2
        shift 2
        allocs -t 1 -c 4 --h2c --streams "$s" -n "$n" "$@" "$h2url/"
    }
    same_count "$(count_h2 1000 1)" "$(count_h2 20000 1)" "h2c, 1 stream: 20000 requests vs 1000"
    same_count "$(count_h2 1000 8)" "$(count_h2 20000 8)" "h2c, 8 streams: 20000 requests vs 1000"
    # --targets: each target is taken apart once per worker, when first sent.
    printf 'GET %s/\nPOST %s/\nX-A: 1\n' "$h2url" "$h2url" > "$T/h2targets.txt"
    same_count "$(count_h2 1000 4 --targets "$T/h2targets.txt")" "$(count_h2 20000 4 --targets "$T/h2targets.txt")" \
        "h2c --targets: 20000 requests vs 1000"
else
    echo "skip: h2c (no nginx)"
fi
finish

# Seeds for the scripts' math.random: each Lua state starts from its own
# seed, made from the run seed and the state's index. Proof from the
# server's request log: two threads of one run draw different sequences;
# two runs differ; two runs with the same --seed and -t send the same paths,
# thread by thread; a run without --seed is replayed by the seed its JSON
# gives; options() seed does what --seed does; the main state (setup,
# done) draws its own. Then the JSON and -v, and bad seeds (exit 2).
source "$TESTLIB"

S=$T/scripts
mkdir -p "$S"
# Each request asks for a random path and says which thread sent it and
# what the main state drew for that thread in setup().
cat > "$S/rnd.lua" <<'LUA'
local s = {}
function s.setup(thread) thread:set("main_draw", math.random(1, 1000000000)) end
function s.request(conn)
  return { path = "/r/" .. math.random(1, 1000000000),
           headers = { ["X-Thread"] = tostring(volley.thread), ["X-Main"] = tostring(main_draw) } }
end
function s.done(result) print("done draws " .. math.random(1, 1000000000)) end
return s
LUA
# The same as a wrk-style script.
cat > "$S/rnd_wrk.lua" <<'LUA'
function request()
  return wrk.format(nil, "/r/" .. math.random(1, 1000000000), { ["X-Thread"] = tostring(volley.thread) })
end
LUA
# The seed from options().
sed 's/^local s = {}$/local s = {}\nfunction s.options() return { seed = 7 } end/' "$S/rnd.lua" > "$S/rnd_opt.lua"

# seeded NAME [volley args]: a run of 40 requests, 2 threads of one
# connection each, against a server of its own whose log is $T/NAME.log.
seeded() {
    local name=$1
    shift
    start_target --log "$T/$name.log"
    run_volley "$name" -n 40 -c 2 -t 2 "$@" "http://127.0.0.1:$PORT/"
    stop_target
    check_eq "$RC" 0 "$name: exit status"
}

# paths NAME THREAD: the paths THREAD asked for, in order, one line.
paths() {
    awk -v t="X-Thread=$2" '{ for (i = 4; i <= NF; i++) if ($i == t) printf "%s ", $3 }' "$T/$1.log"
}
# main_draws NAME: what the main state drew for threads 1 and 2.
main_draws() {
    local t
    for t in 1 2; do grep -m1 -o "X-Thread=$t .*X-Main=[0-9]*\|X-Main=[0-9]* X-Thread=$t" "$T/$1.log" |
        grep -o "X-Main=[0-9]*"; done | tr '\n' ' '
}

seeded a --seed 7 -s "$S/rnd.lua"
a1=$(paths a 1) a2=$(paths a 2)
check_eq "$(wc -w <<< "$a1")/$(wc -w <<< "$a2")" 20/20 "seed 7: 20 paths per thread in the log"
if [ "$a1" != "$a2" ]; then ok; else fail "seed 7: both threads asked for the same paths: $a1"; fi
check_eq "$(jget "$T/a.json" options.seed)" 7 "seed 7: options.seed in the JSON"
# The main state draws its own sequence (one per setup() call).
m=$(main_draws a)
check_eq "$(wc -w <<< "$m")" 2 "seed 7: the main state's draws reached both threads"
read -r m1 m2 <<< "$m"
if [ "$m1" != "$m2" ]; then ok; else fail "setup() drew the same number for both threads: $m"; fi
first1=${a1%% *} first2=${a2%% *}
if [ "${m1#X-Main=}" != "${first1#/r/}" ] && [ "${m1#X-Main=}" != "${first2#/r/}" ]; then ok; else
    fail "the main state drew what a thread drew first: $m / $first1 $first2"; fi

seeded b --seed 7 -s "$S/rnd.lua"
check_eq "$(paths b 1)" "$a1" "same --seed and -t: thread 1 sends the same paths"
check_eq "$(paths b 2)" "$a2" "same --seed and -t: thread 2 sends the same paths"
check_eq "$(main_draws b)" "$(main_draws a)" "same --seed: setup() draws the same"
check_eq "$(grep '^done draws' "$T/b.out")" "$(grep '^done draws' "$T/a.out")" "same --seed: done() draws the same"

seeded c -s "$S/rnd.lua"
c1=$(paths c 1)
if [ "$c1" != "$a1" ] && [ "$(paths c 2)" != "$a2" ]; then ok; else fail "a run without --seed repeated seed 7's paths"; fi
cseed=$(jget "$T/c.json" options.seed)
if [[ "$cseed" =~ ^[0-9]+$ ]] && [ "$cseed" -le 9007199254740991 ]; then ok; else fail "no --seed: options.seed is '$cseed'"; fi
seeded d -s "$S/rnd.lua"
if [ "$(paths d 1)" != "$c1" ]; then ok; else fail "two runs without --seed sent the same paths"; fi
# The seed in the JSON replays the run.
seeded c_again --seed "$cseed" -s "$S/rnd.lua"
check_eq "$(paths c_again 1)" "$c1" "--seed from the JSON: thread 1 replayed"
check_eq "$(paths c_again 2)" "$(paths c 2)" "--seed from the JSON: thread 2 replayed"

# options() seed = 7 is --seed 7, and wins over the command line's.
seeded opt -s "$S/rnd_opt.lua" --seed 99
check_eq "$(paths opt 1)/$(paths opt 2)" "$a1/$a2" "options() seed: the paths of --seed 7"
check_eq "$(jget "$T/opt.json" options.seed)" 7 "options() seed: in the JSON"
check_eq "$(main_draws opt)" "$(main_draws a)" "options() seed: the main state reseeded"

# wrk-style scripts are seeded the same way.
seeded w1 --seed 5 -s "$S/rnd_wrk.lua"
w1=$(paths w1 1)
if [ -n "$w1" ] && [ "$w1" != "$(paths w1 2)" ]; then ok; else fail "wrk style: the threads drew the same paths"; fi
seeded w2 --seed 5 -s "$S/rnd_wrk.lua"
check_eq "$(paths w2 1)/$(paths w2 2)" "$w1/$(paths w1 2)" "wrk style: the same --seed, the same paths"

# The largest seed, exact in the JSON, from the command line and from a
# number in options(); -v prints it; volley report keeps it.
start_target
sed 's/seed = 7/seed = 9007199254740991/' "$S/rnd_opt.lua" > "$S/rnd_big.lua"
run_volley big -n 4 -c 1 -t 1 -v -s "$S/rnd_big.lua" "http://127.0.0.1:$PORT/"
check_grep "$T/big.json" '"seed": 9007199254740991\}' "options() seed 2^53-1: exact in the JSON"
check_grep "$T/big.out" '^  Seed 9007199254740991 \(--seed 9007199254740991 replays' "-v: the Seed line"
timeout -s KILL 30 "$VOLLEY" report "$T/big.json" -q --json "$T/big.r.json" || true
if cmp -s "$T/big.json" "$T/big.r.json"; then ok; else fail "volley report: the JSON with its seed differs"; fi
run_volley nov -n 4 -c 1 -t 1 --seed 12 "http://127.0.0.1:$PORT/"
check_eq "$(grep -c Seed "$T/nov.out")" 0 "without -v: no Seed line"

# Bad seeds: exit 2, one line, nothing sent.
bad() { # MESSAGE ARGS...
    local want=$1
    shift
    run_volley bad "$@"
    check_eq "$RC" 2 "$*: exit status"
    check_eq "$(cat "$T/bad.err")" "$want" "$*: message"
}
bad 'volley: --seed: must be at most 9007199254740991 (2^53 - 1)' --seed 9007199254740992 "http://127.0.0.1:$PORT/"
bad 'volley: --seed: must be at least 0' --seed -1 "http://127.0.0.1:$PORT/"
bad 'volley: --seed: "lucky" is not a number' --seed lucky "http://127.0.0.1:$PORT/"
printf 'return { options = function() return { seed = "lucky" } end }\n' > "$S/badseed.lua"
bad "volley: $S/badseed.lua: options(): --seed: \"lucky\" is not a number" -s "$S/badseed.lua" "http://127.0.0.1:$PORT/"
printf 'return { options = function() return { seed = 1.5 } end }\n' > "$S/fracseed.lua"
bad "volley: $S/fracseed.lua: options(): --seed: \"1.5\" is not a whole number" -s "$S/fracseed.lua" "http://127.0.0.1:$PORT/"
check_eq "$(target_stat received)" 8 "bad seeds: nothing sent (8: the two runs before them)"
finish

# Data files (volley.data.csv, volley.data.lines) end to end, from the
# server's request log: per_iteration over 3 shards run at once (2 threads
# each) and in one process asks for every line of the file exactly once;
# per_user gives each connection id its row, the same one every request
# (CSV fields by name and by column, quoted fields with commas); random
# replays with the same --seed and differs with another. Then each kind of
# bad file or bad option: exit status 1, one stderr line naming the script's
# line and the data file's, and nothing sent.
source "$TESTLIB"

# Data paths are relative to the current directory: run from $W.
W=$T/work
mkdir -p "$W"
cd "$W"

# 600 distinct ids, one a line.
for i in $(seq 1 600); do printf 'id%03d\n' "$i"; done > ids.txt
cat > iter.lua <<'LUA'
local d = volley.data.lines("ids.txt", { mode = "per_iteration" })
function request() return wrk.format("GET", "/u/" .. d:take(0)) end
LUA

# ids_once LOG WHAT: every id of ids.txt requested exactly once.
ids_once() {
    local got
    got=$(awk '{ sub("^/u/", "", $3); print $3 }' "$1" | sort | uniq -c | awk '$1 != 1 { bad++ } END { print NR "/" bad + 0 }')
    check_eq "$got" "600/0" "$2: 600 distinct ids, none twice (ids/ids asked more than once)"
    got=$(awk '{ sub("^/u/", "", $3); print $3 }' "$1" | sort | comm -3 - <(sort ids.txt) | wc -l)
    check_eq "$got" 0 "$2: the ids asked for are the file's"
}

# per_iteration, 3 shards at once against one server.
start_target --log "$T/shards.log"
pids=()
for s in 0 1 2; do
    timeout -s KILL 60 "$VOLLEY" -t 2 -c 6 -n 600 --shard "$s/3" -s ./iter.lua --json "$T/shard$s.json" \
        "http://127.0.0.1:$PORT/" > "$T/shard$s.out" 2> "$T/shard$s.err" &
    pids+=($!)
done
for s in 0 1 2; do
    RC=0
    wait "${pids[$s]}" || RC=$?
    check_eq "$RC" 0 "shard $s/3: exit status ($(head -c 300 "$T/shard$s.err"))"
    check_eq "$(jget "$T/shard$s.json" requests.completed)" 200 "shard $s/3: its 200 requests"
done
stop_target
ids_once "$T/shards.log" "per_iteration, 3 shards"

# per_iteration in one process of 2 threads.
start_target --log "$T/one.log"
run_volley one -t 2 -c 4 -n 600 -s ./iter.lua "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "per_iteration, one process: exit status"
ids_once "$T/one.log" "per_iteration, one process"

# per_user: connection k takes row ((k - 1) % 3) + 1 on every request.
printf 'id,user\r\n1,ann\r\n2,"b,ob"\r\n3,"c""y"\r\n' > users.csv
cat > user.lua <<'LUA'
local d = volley.data.csv("users.csv")
local s = {}
function s.request(conn)
  local row = d:take(conn.id)
  return { path = "/p/" .. conn.id .. "/" .. row.id .. "/" .. row[2] .. "/" .. #d }
end
return s
LUA
start_target --log "$T/user.log"
run_volley user -t 2 -c 5 -n 100 -s ./user.lua "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 0 "per_user: exit status ($(head -c 300 "$T/user.err"))"
got=$(awk '{ split($3, f, "/"); print f[3] " " f[4] " " f[5] " " f[6] }' "$T/user.log" | sort | uniq -c |
    awk '{ printf "%s:%s:%s:%s ", $2, $3, $4, $5; n += $1 } END { print n }')
check_eq "$got" '1:1:ann:3 2:2:b,ob:3 3:3:c"y:3 4:1:ann:3 5:2:b,ob:3 100' \
    "per_user: each connection id, its row on every request (conn:id:user:rows)"

# random: the same --seed, the same rows; another seed, others.
cat > rnd.lua <<'LUA'
local d = volley.data.lines("ids.txt", { mode = "random" })
function request() return wrk.format("GET", "/u/" .. d:take()) end
LUA
random_paths() { # NAME SEED: the paths one connection asked for, in order
    start_target --log "$T/$1.log"
    run_volley "$1" -t 1 -c 1 -n 40 --seed "$2" -s ./rnd.lua "http://127.0.0.1:$PORT/"
    stop_target
    check_eq "$RC" 0 "random, --seed $2: exit status"
    awk '{ printf "%s ", $3 }' "$T/$1.log"
}
r1=$(random_paths r1 5)
r2=$(random_paths r2 5)
r3=$(random_paths r3 6)
check_eq "$(wc -w <<< "$r1")" 40 "random: 40 requests"
check_eq "$r2" "$r1" "random: the same --seed, the same rows"
if [ "$r3" != "$r1" ]; then ok; else fail "random: --seed 6 took the rows of --seed 5"; fi
if [ "$(tr ' ' '\n' <<< "$r1" | sort -u | wc -l)" -gt 20 ]; then ok; else fail "random: few distinct rows: $r1"; fi

# Bad files and options: exit 1, one line, nothing sent (one server for
# all of them; its log stays empty).
start_target --log "$T/bad.log"
n=0
# bad CALL FILE-CONTENT MESSAGE: a script whose line 2 makes CALL, with
# bad.data (printf format) as the data file.
bad() {
    n=$((n + 1))
    printf "$2" > "bad$n.data"
    printf -- '-- line 1\nlocal d = %s\n' "${1//@/bad$n.data}" > "bad$n.lua"
    run_volley "bad$n" -n 5 -c 1 -t 1 -s ./"bad$n.lua" "http://127.0.0.1:$PORT/"
    check_eq "$RC" 1 "$1 of '$2': exit status"
    check_eq "$(cat "$T/bad$n.err")" "volley: ./bad$n.lua:2: ${3//@/bad$n.data}" "$1 of '$2': message"
}
csv='volley.data.csv("@")'
bad "$csv" 'a,b,c\n1,2,3\n\n4,5\n' 'volley.data.csv: @:4: 2 fields where the header has 3'
bad "$csv" 'a\n1\n"open\n\n' 'volley.data.csv: @:3: a quoted field is not closed (it opened here)'
bad "$csv" 'a\nx"y\n' 'volley.data.csv: @:2: a quote inside an unquoted field (quote the whole field and write the quote twice: "a""b")'
bad "$csv" 'a\n"x"y\n' "volley.data.csv: @:2: text after a quoted field's closing quote (a quote inside quotes is written twice: \"\")"
bad "$csv" 'a\n1\nx\0y\n' 'volley.data.csv: @:3: a NUL byte (a data file is text)'
bad "$csv" 'id,,x\n1,2,3\n' 'volley.data.csv: @:1: field 2 of the header is empty (each field needs a name)'
bad "$csv" 'id,x,id\n1,2,3\n' 'volley.data.csv: @:1: field "id" is in the header twice (fields 1 and 3)'
bad "$csv" '' 'volley.data.csv: @: no rows'
bad "$csv" 'id,user\r\n' 'volley.data.csv: @: no rows after the header'
bad 'volley.data.lines("@")' '\n\r\n' 'volley.data.lines: @: no rows'
bad 'volley.data.lines("@")' 'a\n\0\n' 'volley.data.lines: @:2: a NUL byte (a data file is text)'
bad 'volley.data.csv("missing.csv")' '' 'volley.data.csv: missing.csv: No such file or directory'
bad 'volley.data.lines(".")' '' 'volley.data.lines: .: Is a directory'
bad 'volley.data.csv("@", { mdoe = "random" })' 'a\n1\n' 'volley.data.csv: unknown option "mdoe" (did you mean "mode"?)'
bad 'volley.data.csv("@", { mode = "per-user" })' 'a\n1\n' 'volley.data.csv: mode "per-user" is not a mode (did you mean "per_user"?)'
bad 'volley.data.csv("@", { mode = "each" })' 'a\n1\n' 'volley.data.csv: mode "each" is not a mode (the modes are per_user, per_iteration and random)'
bad 'volley.data.csv("@", { separator = ";;" })' 'a\n1\n' 'volley.data.csv: the separator must be one byte other than a quote, CR, LF or NUL, not ";;"'
bad 'volley.data.lines("@", { separator = ";" })' 'a\n1\n' 'volley.data.lines: separator is an option of volley.data.csv only (a lines file has one field)'
bad 'volley.data.csv(nil)' '' 'volley.data.csv: the path must be a non-empty string without NUL, not a nil'
# The separator option is the one the rows are split by.
bad 'volley.data.csv("@", { separator = ";" })' 'a;b\n1;2\n3\n' 'volley.data.csv: @:3: 1 field where the header has 2'
stop_target
check_eq "$(wc -c < "$T/bad.log")" 0 "bad files: nothing sent"

# A misuse during the run names the script's line: per_user without an id.
printf 'id\n1\n' > one.csv
cat > noid.lua <<'LUA'
local d = volley.data.csv("one.csv")
function request() return wrk.format("GET", "/" .. d:take().id) end
LUA
start_target
run_volley noid -n 5 -c 1 -t 1 -s ./noid.lua "http://127.0.0.1:$PORT/"
stop_target
check_eq "$RC" 1 "take() without a user id: exit status"
check_eq "$(cat "$T/noid.err")" \
    "volley: ./noid.lua:2: in request(): one.csv: take(nil): per_user needs the user's id (an integer from 1)" \
    "take() without a user id: message"

finish

# Helpers for the scripting tests (test_scripts_*.sh), on top of lib.sh:
# each run's JSON flattened once (with awk) so that values are cheap to
# read, and the server's counters without python. Sourced after lib.sh.

# runv NAME [volley args]: run_volley, then flattens $T/NAME.json into
# $T/NAME.flat ("path<TAB>value" lines; list items by index, as in
# failures.reasons.0.reason; values as written in the JSON, so true, null
# and 3.000000) and checks the accounting rule once. awk, not python: a
# python start costs more than most runs on a loaded machine.
runv() {
    run_volley "$@"
    : > "$T/$1.flat"
    [ -s "$T/$1.json" ] || return 0
    json_flatten < "$T/$1.json" > "$T/$1.flat"
    awk -F'\t' '
        { v[$1] = $2 }
        $1 ~ /^errors\./ { errors += $2 }
        $1 ~ /^status\./ { status += $2 }
        END {
            why = ""
            if (v["requests.started"] != v["requests.completed"] + v["requests.failed"] + v["requests.cut_off"])
                why = why "started != completed + failed + cut_off; "
            if (v["requests.failed"] != errors) why = why "failed != sum of errors; "
            if (v["requests.completed"] + v["errors.validation"] != status) why = why "completed + validation != sum of status; "
            split("latency connect waiting", h, " ")
            for (i = 1; i <= 3; i++)
                if (v[h[i] ".count"] != v["requests.completed"]) why = why h[i] " count != completed; "
            print "_adds_up\t" (why == "" ? "yes" : why)
        }' "$T/$1.flat" >> "$T/$1.flat"
}

# json_flatten: JSON on stdin to "path<TAB>value" lines (enough JSON for
# volley's report: no escapes beyond \" and \\ in strings).
json_flatten() {
    awk '
        function emit(v,   p, d) {
            p = ""
            for (d = 1; d <= depth; d++) p = p (d > 1 ? "." : "") key[d]
            print p "\t" v
        }
        { buf = buf $0 "\n" }
        END {
            n = length(buf); i = 1; depth = 0; want_key = 0
            while (i <= n) {
                c = substr(buf, i, 1)
                if (c == "{") { kind[++depth] = "o"; key[depth] = ""; want_key = 1; i++ }
                else if (c == "[") { kind[++depth] = "a"; key[depth] = 0; want_key = 0; i++ }
                else if (c == "}" || c == "]") { depth--; i++ }
                else if (c == ",") { if (kind[depth] == "a") key[depth]++; else want_key = 1; i++ }
                else if (c == ":" || c == " " || c == "\t" || c == "\n" || c == "\r") i++
                else if (c == "\"") {
                    s = ""
                    for (i++; i <= n; i++) {
                        c = substr(buf, i, 1)
                        if (c == "\\") { s = s substr(buf, ++i, 1); continue }
                        if (c == "\"") break
                        s = s c
                    }
                    i++
                    if (want_key) { key[depth] = s; want_key = 0 } else emit(s)
                } else {
                    for (j = i; j <= n && index(",}] \t\n\r", substr(buf, j, 1)) == 0; j++) ;
                    emit(substr(buf, i, j - i))
                    i = j
                }
            }
        }'
}

# jv NAME PATH: a value of run NAME (0 when it is not there, as jget).
jv() {
    awk -F'\t' -v k="$2" '$1 == k { v = $2; f = 1 } END { print f ? v : 0 }' "$T/$1.flat"
}

# adds_up NAME: the accounting rule holds for run NAME (see check_adds_up).
adds_up() {
    local v
    v=$(jv "$1" _adds_up)
    if [ "$v" == "yes" ]; then ok; else fail "$1: numbers do not add up: $v"; fi
}

# check_num A OP B WHAT: numeric comparison (awk: < <= > >= ==), floats too.
check_num() {
    if awk -v a="$1" -v b="$3" "BEGIN { exit !((a + 0) $2 (b + 0)) }"; then ok; else fail "$4: expected $1 $2 $3"; fi
}

# tstat KEY: one of the server's counters (as target_stat), without python.
tstat() {
    local body
    exec 9<> "/dev/tcp/127.0.0.1/$PORT"
    printf 'GET /__stats HTTP/1.0\r\nHost: x\r\n\r\n' >&9
    body=$(cat <&9)
    exec 9<&-
    sed -nE "s/.*\"$1\":([0-9]+).*/\\1/p" <<< "$body"
}

# one_line FILE WHAT: FILE (stderr) is exactly one line, with no Lua panic.
check_one_line() {
    check_eq "$(wc -l < "$1")" 1 "$2: one line on stderr"
    if grep -qiE 'panic|traceback|Segmentation|Aborted' "$1"; then fail "$2: $(cat "$1")"; else ok; fi
}

# scripts_setup [volley-target options]: a test server, its $url, and $S,
# the directory for the scripts a test writes.
scripts_setup() {
    start_target "$@"
    url="http://127.0.0.1:$PORT"
    S=$T/scripts
    mkdir -p "$S"
}

# run_complete NAME N ARGS...: runv with -n N; the run must end 0 with the
# accounting adding up and all N requests complete.
run_complete() {
    local name=$1 n=$2
    shift 2
    runv "$name" -n "$n" "$@"
    check_eq "$RC" 0 "$name: exit status ($(head -c 300 "$T/$name.err"))"
    adds_up "$name"
    check_eq "$(jv "$name" requests.completed)" "$n" "$name: completed"
}

# `volley merge` on shard results it must refuse. Shard files come from
# other machines: untrusted input. Each refusal is one stderr line starting
# "volley merge: " that names the file, with its own exit status (5 a file
# that cannot be read or is not a valid result, 6 a shard of another run,
# 7 settings or histogram configuration differ, 8 a shard given twice, 9 a
# shard missing, 10 shards that started further apart than the run
# lasted; 2 a bad command line, 1 an output not written or no
# response completed), writes no output file, and never crashes (no signal,
# no sanitizer report) nor takes much memory: every merge here runs with its
# peak RSS measured (under 300 MB; 1 GB under sanitizers, whose allocator
# keeps freed blocks in quarantine), and outside a sanitizer build the
# hostile histograms also run under an address-space limit, so that even an
# allocation never touched would fail. The cases: settings, run ids,
# duplicate and missing shards; files that are not results (a directory, a
# missing file, text, random bytes, an executable, /dev/zero, JSON that is
# not an object); truncation at several offsets; bad JSON and wrong field
# types; edited and hostile histogram blobs (bad base64, flipped bytes,
# foreign cookies, lengths and configurations that claim a huge size,
# zero runs past the counts, zlib bombs, counts that overflow 64 bits when
# added); counts and exact sums that add up past what a result holds;
# start times 10^6 and 3x10^8 s apart; the same for the shards' interval
# logs; the command line and the outputs.
source "$TESTLIB"
PYDIR="$(dirname "$TESTLIB")/py"
RSS_MAX_KB=$((300 * 1024))
[ "${SANITIZED:-OFF}" = ON ] && RSS_MAX_KB=$((1024 * 1024))
AS_LIMIT=$((1024 * 1024 * 1024))

# Shard results, cheap: small -n runs, one after the other, one run id.
# The server answers 1 ms late, so that each run's one interval of its
# --hlog is a few ms long.
start_target --delay-ms 1
url="http://127.0.0.1:$PORT/"
shard() { # NAME I/N [volley args]
    local name=$1 sh=$2
    shift 2
    run_volley "$name" -q -n 24 -c 6 -t 1 --shard "$sh" "$@"
    [ "$RC" = 0 ] && [ -s "$T/$name.json" ] || { echo "shard run $name failed ($RC): $(cat "$T/$name.err")" >&2; exit 1; }
}
# The run's three shards at once: shards of one run start within its
# length of each other (at least 1 s), which runs one after the other
# need not on a loaded machine. The others are refused before that check.
pids=()
for i in 0 1 2; do shard "s$i" "$i/3" --run-id rA --hlog "$T/s$i.hlog" "$url" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || exit 1; done
shard again1 1/3 --run-id rA "$url"           # shard 1 once more: the same index, another file
shard conns1 1/3 --run-id rA -c 9 "$url"      # another -c
shard path1 1/3 --run-id rA "${url}other"     # another URL path
shard total1 1/3 --run-id rA -n 25 "$url"     # another -n (shard 1's share is the same 8)
shard four3 3/4 --run-id rA "$url"            # another shard count
shard other2 2/3 --run-id rB --hlog "$T/other2.hlog" "$url"  # another run
shard again0 0/3 --run-id rA --hlog "$T/again0.hlog" "$url"  # shard 0 once more, for its log
stop_target
S0=$T/s0.json S1=$T/s1.json S2=$T/s2.json

# mrun NAME [merge args]: volley merge under python, which writes the exit
# status (negative: the signal) and the peak RSS in KB of the merge to
# $T/NAME.rc; with AS=1 in the environment, under prlimit --as too.
cat > "$T/rss.py" <<'PY'
import resource, subprocess, sys
out, cmd = sys.argv[1], sys.argv[2:]
try:
    rc = subprocess.run(cmd, stdout=open(out + ".out", "wb"), stderr=open(out + ".err", "wb"), timeout=60).returncode
except subprocess.TimeoutExpired:
    rc = "timeout"
open(out + ".rc", "w").write("%s %d\n" % (rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
PY
mrun() {
    local name=$1
    shift
    local pre=()
    [ "${AS:-0}" = 1 ] && [ -z "${SANITIZED:-}" -o "${SANITIZED:-}" = OFF ] && pre=(prlimit "--as=$AS_LIMIT")
    rm -f "$T/$name.merged.json"
    python3 "$T/rss.py" "$T/$name" "${pre[@]}" "$VOLLEY" merge "$@" --json "$T/$name.merged.json"
    read -r RC RSS < "$T/$name.rc"
}

# sane NAME WHAT: no crash, no sanitizer report, bounded memory.
sane() {
    echo "$2: exit $RC, peak RSS $RSS KB: $(head -n 2 "$T/$1.err" | cut -c 1-300)"
    case "$RC" in
        timeout) fail "$2: merge did not end in 60 s" ;;
        -*) fail "$2: merge killed by signal ${RC#-}: $(head -c 300 "$T/$1.err")" ;;
        *) if [ "$RC" -lt 128 ]; then ok; else fail "$2: exit status $RC"; fi ;;
    esac
    if grep -qE 'Sanitizer|runtime error|Segmentation|Aborted|core dumped' "$T/$1.err"; then
        fail "$2: crash or sanitizer report: $(head -c 600 "$T/$1.err")"
    else ok; fi
    if [ "$RSS" -le "$RSS_MAX_KB" ]; then ok; else fail "$2: peak RSS $RSS KB"; fi
}

# refuse NAME STATUS WORD WHAT FILES...: merge FILES refuses with exit
# status STATUS and one line "volley merge: ..." that contains WORD (a
# file's name, fixed string), writing no merged file.
refuse() {
    local name=$1 want=$2 word=$3 what=$4
    shift 4
    mrun "$name" "$@"
    sane "$name" "$what"
    check_eq "$RC" "$want" "$what: exit status (stderr: $(head -c 300 "$T/$name.err"))"
    check_eq "$(wc -l < "$T/$name.err")" 1 "$what: one stderr line"
    if head -n 1 "$T/$name.err" | grep -q '^volley merge: ' && grep -qF -- "$word" "$T/$name.err"; then ok; else
        fail "$what: no 'volley merge: ...$word...' line: $(head -c 300 "$T/$name.err")"; fi
    if [ -e "$T/$name.merged.json" ]; then fail "$what: a merged file was written"; else ok; fi
}

# The three shards merge (the baseline every case below breaks), in any
# order.
mrun base "$S2" "$S0" "$S1"
sane base "base"
check_eq "$RC" 0 "base: exit status (stderr: $(head -c 300 "$T/base.err"))"
check_eq "$(jget "$T/base.merged.json" requests.completed)" 24 "base: merged completed"

# Settings, run, duplicates, missing.
refuse conns 7 conns1.json "another -c" "$S0" "$T/conns1.json" "$S2"
refuse path 7 path1.json "another URL path" "$S0" "$T/path1.json" "$S2"
refuse total 7 total1.json "another -n" "$S0" "$T/total1.json" "$S2"
refuse four 7 four3.json "another shard count" "$S0" "$S1" "$S2" "$T/four3.json"
refuse other 6 other2.json "another run id" "$S0" "$S1" "$T/other2.json"
refuse same 8 s1.json "the same file twice" "$S0" "$S1" "$S1" "$S2"
refuse dup 8 again1.json "two files of shard 1" "$S0" "$S1" "$T/again1.json" "$S2"
refuse missing 9 "shard 1" "shard 1 missing" "$S0" "$S2"
refuse missing_last 9 "shard 2" "shard 2 missing" "$S0" "$S1"
refuse only 9 "shard 0, 2" "only shard 1" "$S1"

# Files that are not results.
mkdir "$T/adir"
printf 'hello\n' > "$T/text.json"
head -c 4096 /dev/urandom > "$T/random.json"
: > "$T/empty.json"
printf '[1, 2, 3]\n' > "$T/array.json"
printf '"run"\n' > "$T/string.json"
printf 'null\n' > "$T/null.json"
refuse dir 5 adir "a directory" "$S0" "$T/adir" "$S2"
refuse absent 5 absent.json "a missing file" "$S0" "$T/absent.json" "$S2"
refuse text 5 text.json "a text file" "$S0" "$T/text.json" "$S2"
refuse random 5 random.json "random bytes" "$S0" "$T/random.json" "$S2"
refuse empty 5 empty.json "an empty file" "$S0" "$T/empty.json" "$S2"
refuse array 5 array.json "a JSON array" "$S0" "$T/array.json" "$S2"
refuse string 5 string.json "a JSON string" "$S0" "$T/string.json" "$S2"
refuse null 5 null.json "JSON null" "$S0" "$T/null.json" "$S2"
refuse elf 5 volley "an executable" "$S0" "$VOLLEY" "$S2"
# No end: read only up to volley's limit, in bounded memory.
AS=1 refuse zero 5 /dev/zero "an endless file (/dev/zero)" "$S0" /dev/zero "$S2"

# Truncated at several offsets (each cut checked not to be valid JSON).
python3 - "$S1" "$T" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
n = len(data)
for cut in sorted({1, 2, 16, 100, n // 4, n // 3, n // 2, 2 * n // 3, n - 40, n - 3, n - 2}):
    part = data[:cut]
    try:
        json.loads(part)
        continue
    except ValueError:
        pass
    open("%s/cut%d.json" % (sys.argv[2], cut), "wb").write(part)
PY
for f in "$T"/cut*.json; do
    b=$(basename "$f" .json)
    refuse "$b" 5 "$b.json" "truncated at ${b#cut} bytes" "$S0" "$f" "$S2"
done

# Edited: python3 edit.py IN OUT EXPR applies the assignment EXPR to the
# parsed result j and writes it back; hdr.encode makes histogram blobs with
# any header and payload (py below).
cat > "$T/edit.py" <<'PY'
import base64, json, struct, sys, zlib
sys.path.insert(0, sys.argv[4])
import hdrlog

def zz(v):
    return ((v << 1) ^ (v >> 63)) & (2**64 - 1)

def leb(u):
    out = bytearray()
    for _ in range(8):
        if u < 0x80:
            out.append(u)
            return bytes(out)
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u & 0xFF)
    return bytes(out)

def payload(counts):
    """counts: {index: count} -> V2 varints, zero runs as -k."""
    out, idx = bytearray(), 0
    for k in sorted(counts):
        if k > idx:
            out += leb(zz(-(k - idx)) if k - idx > 1 else 0)
        out += leb(zz(counts[k]))
        idx = k + 1
    return bytes(out)

def blob(body=None, counts=None, lowest=1, highest=3600000000000, digits=3, plen=None,
         cookie=0x1C849313, outer=0x1C849314, dlen=None, comp=None, ratio=1.0):
    if body is None:
        body = payload(counts or {})
    head = struct.pack(">iiiiqqd", cookie, len(body) if plen is None else plen, 0, digits, lowest, highest, ratio)
    z = zlib.compress(head + body) if comp is None else comp
    return base64.b64encode(struct.pack(">ii", outer, len(z) if dlen is None else dlen) + z).decode()

def bomb(size, plen):
    """A zlib stream that inflates to a header and size zero bytes."""
    c = zlib.compressobj(9)
    parts = [c.compress(struct.pack(">iiiiqqd", 0x1C849313, plen, 0, 3, 1, 3600000000000, 1.0))]
    chunk = bytes(1 << 20)
    for _ in range(size >> 20):
        parts.append(c.compress(chunk))
    parts.append(c.flush())
    return b"".join(parts)

j = json.load(open(sys.argv[1]))
lat = j["latency"]
cfg, counts = hdrlog.decode(lat["hdr"])
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"))
PY
# edit NAME EXPR: $T/NAME.json is shard 1 with EXPR applied.
edit() { python3 "$T/edit.py" "$S1" "$T/$1.json" "$2" "$PYDIR"; }

# Bad JSON and wrong field types, each naming the file and the field.
sed 's/}$/]/' "$S1" > "$T/badjson.json"
refuse badjson 5 badjson.json "bad JSON (a ] for the last })" "$S0" "$T/badjson.json" "$S2"
sed 's/"requests": *{/"requests": {,/' "$S1" > "$T/comma.json"
refuse comma 5 comma.json "bad JSON (a stray comma)" "$S0" "$T/comma.json" "$S2"
python3 -c 'import sys; sys.stdout.write("[" * 1000000)' > "$T/deep.json"
refuse deep 5 deep.json "a million nested arrays" "$S0" "$T/deep.json" "$S2"
python3 -c 'import sys; sys.stdout.write("{\"run\": \"" + "x" * 20000000 + "\"}")' > "$T/longstr.json"
refuse longstr 5 longstr.json "a 20 MB string" "$S0" "$T/longstr.json" "$S2"
i=0
while IFS='|' read -r word expr; do
    i=$((i + 1))
    edit "type$i" "$expr"
    refuse "type$i" 5 "$word" "field: $expr" "$S0" "$T/type$i.json" "$S2"
done <<'CASES'
completed|j["requests"]["completed"] = "7"
completed|j["requests"]["completed"] = -7
completed|j["requests"]["completed"] = 7.5
completed|j["requests"]["completed"] = 1e300
completed|j["requests"]["completed"] = None
completed|del j["requests"]["completed"]
requests|j["requests"] = [7]
run|j["run"] = "rA"
run|del j["run"]
shard|j["run"]["shard"] = "1"
shard|j["run"]["shard"] = 3
shard|j["run"]["shard"] = -1
shards|j["run"]["shards"] = 0
shards|j["run"]["shards"] = 2**64
id|j["run"]["id"] = 5
status|j["status"] = {"200": "x"}
read|j["errors"]["read"] = -1
latency|j["latency"] = 5
hdr|j["latency"]["hdr"] = 5
hdr|del j["latency"]["hdr"]
CASES

# Histogram blobs: edited, not base64, a foreign cookie, and blobs that claim
# a huge size or inflate to one, all in shard 1's latency.hdr.
while IFS='|' read -r name expr; do
    edit "$name" "$expr"
    AS=1 refuse "$name" 5 "$name.json" "latency.hdr: $name" "$S0" "$T/$name.json" "$S2"
    grep -qE 'latency|hdr' "$T/$name.err" && ok || fail "$name: the message names no field: $(head -c 300 "$T/$name.err")"
done <<'CASES'
hdr_notb64|lat["hdr"] = "HISTF%%%%not base64%%%%"
hdr_empty|lat["hdr"] = ""
hdr_short|lat["hdr"] = lat["hdr"][:12]
hdr_cut|lat["hdr"] = lat["hdr"][:len(lat["hdr"]) // 2]
hdr_flip|b = bytearray(base64.b64decode(lat["hdr"])); b[len(b) // 2] ^= 0x55; lat["hdr"] = base64.b64encode(bytes(b)).decode()
hdr_cookie|lat["hdr"] = blob(counts=counts, cookie=0x1C849301)
hdr_outer|lat["hdr"] = blob(counts=counts, outer=0x1C849313)
hdr_dlen_huge|lat["hdr"] = blob(counts=counts, dlen=0x7FFFFFFF)
hdr_dlen_neg|lat["hdr"] = blob(counts=counts, dlen=-8)
hdr_plen_huge|lat["hdr"] = blob(counts=counts, plen=0x7FFFFFFF)
hdr_plen_neg|lat["hdr"] = blob(counts=counts, plen=-1)
hdr_index_far|lat["hdr"] = blob(counts={10**12: 7})
hdr_index_past|lat["hdr"] = blob(counts={40000: 7})
hdr_run_huge|lat["hdr"] = blob(body=leb(zz(-(2**62))) + leb(zz(7)))
hdr_count_huge|lat["hdr"] = blob(counts={100: 2**62, 200: 2**62})
hdr_varint_long|lat["hdr"] = blob(body=b"\xff" * 64)
hdr_config_bad|lat["hdr"] = blob(counts=counts, lowest=0, highest=1, digits=9)
hdr_config_huge|lat["hdr"] = blob(counts=counts, lowest=1, highest=2**63 - 1, digits=5)
hdr_bomb|lat["hdr"] = blob(comp=bomb(1 << 29, (1 << 29) + 64))
hdr_bomb_small|lat["hdr"] = blob(comp=bomb(1 << 29, 64))
CASES

# Edits that still decode: counts that disagree with the JSON's count; a
# valid but different histogram configuration (exit 7, not 5).
edit hdr_more 'counts[min(counts)] += 1; lat["hdr"] = blob(counts=counts)'
refuse hdr_more 5 hdr_more.json "latency.hdr with one count more than latency.count" "$S0" "$T/hdr_more.json" "$S2"
edit hdr_digits 'lat["hdr"] = blob(counts={100: sum(counts.values())}, digits=2)'
refuse hdr_digits 7 hdr_digits.json "latency.hdr in another configuration" "$S0" "$T/hdr_digits.json" "$S2"
# A count so large that the sum of the shards overflows 64 bits.
edit hdr_overflow 'k = min(counts); counts[k] += 2**63 - 1 - sum(counts.values()); lat["hdr"] = blob(counts=counts)'
mrun hdr_overflow "$S0" "$T/hdr_overflow.json" "$S2"
sane hdr_overflow "counts that overflow when added"
if [ "$RC" = 5 ] || [ "$RC" = 7 ]; then ok; else fail "counts that overflow when added: exit status $RC: $(head -c 300 "$T/hdr_overflow.err")"; fi

# Interval logs (--hlog F): the shards' logs merge along with their
# results; a log that is edited, cut, hostile, of another run, given twice
# or missing is refused as a result would be. A file that is neither a
# result nor a log is refused (5) too.
H0=$T/s0.hlog H1=$T/s1.hlog H2=$T/s2.hlog
hrefuse() { # NAME STATUS WORD WHAT FILES...: refuse, with --hlog
    local name=$1 want=$2 word=$3 what=$4
    shift 4
    refuse "$name" "$want" "$word" "$what" "$S0" "$S1" "$S2" "$@" --hlog "$T/$name.merged.hlog"
    if [ -e "$T/$name.merged.hlog" ]; then fail "$what: a merged log was written"; else ok; fi
}
mrun hbase "$S0" "$S1" "$S2" "$H0" "$H1" "$H2" --hlog "$T/hbase.hlog"
sane hbase "hlog base"
check_eq "$RC" 0 "hlog base: exit status (stderr: $(head -c 300 "$T/hbase.err"))"
# Each shard's last interval ends with its last response: lengths differ
# from shard to shard, and that is no mismatch of --hlog-interval.
# A run shorter than 0.5 ms writes its one interval's length as 0.000
# (volley itself does, for -n 1 against a fast server): a length, too.
# (hlast_len LENGTH OUT: shard 1's log with its last interval's length set.)
hlast_len() {
    python3 - "$H1" "$2" "$1" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
last = max(i for i, l in enumerate(lines) if l[:1].isdigit())
f = lines[last].split(",")
f[1] = sys.argv[3] if sys.argv[3] == "0.000" else "%.3f" % (float(f[1]) + float(sys.argv[3]))
lines[last] = ",".join(f)
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
}
hlast_len 0.025 "$T/hlast.hlog"
mrun hlast "$S0" "$S1" "$S2" "$H0" "$T/hlast.hlog" "$H2" --hlog "$T/hlast.merged.hlog"
sane hlast "hlog, last intervals of other lengths"
check_eq "$RC" 0 "hlog, last intervals of other lengths: exit status (stderr: $(head -c 300 "$T/hlast.err"))"
hlast_len 0.000 "$T/hzero.hlog"
mrun hzero "$S0" "$S1" "$S2" "$H0" "$T/hzero.hlog" "$H2" --hlog "$T/hzero.merged.hlog"
sane hzero "hlog, an interval of length 0.000"
check_eq "$RC" 0 "hlog, an interval of length 0.000: exit status (stderr: $(head -c 300 "$T/hzero.err"))"
python3 - "$H1" "$T" <<'PY'
import base64, struct, sys, zlib
lines = open(sys.argv[1]).read().splitlines()
first = min(i for i, l in enumerate(lines) if l[:1].isdigit())
def put(name, line):
    out = list(lines)
    out[first] = line
    open("%s/%s.hlog" % (sys.argv[2], name), "w").write("\n".join(out) + "\n")
f = lines[first].split(",")
b = bytearray(base64.b64decode(f[3]))
b[len(b) // 2] ^= 0x55
put("hflip", ",".join(f[:3] + [base64.b64encode(bytes(b)).decode()]))
raw = zlib.decompress(base64.b64decode(f[3])[8:])
big = struct.pack(">ii", 0x1C849313, 0x7FFFFFFF) + raw[8:]
z = zlib.compress(big)
put("hhuge", ",".join(f[:3] + [base64.b64encode(struct.pack(">ii", 0x1C849314, len(z)) + z).decode()]))
put("hnotnum", ",".join(["x"] + f[1:]))
data = open(sys.argv[1]).read()
open(sys.argv[2] + "/hcut.hlog", "w").write(data[:data.index(f[3]) + len(f[3]) // 2])
PY
printf 'hello\n' > "$T/hello.txt"
hrefuse hflip 5 hflip.hlog "an hlog with an edited blob" "$H0" "$T/hflip.hlog" "$H2"
hrefuse hhuge 5 hhuge.hlog "an hlog whose blob claims a huge payload" "$H0" "$T/hhuge.hlog" "$H2"
hrefuse hnotnum 5 hnotnum.hlog "an hlog with a start that is not a number" "$H0" "$T/hnotnum.hlog" "$H2"
hrefuse hcut 5 hcut.hlog "an hlog cut in the middle of a blob" "$H0" "$T/hcut.hlog" "$H2"
hrefuse hhello 5 hello.txt "a text file among the logs" "$H0" "$H1" "$H2" "$T/hello.txt"
hrefuse hrandom 5 random.json "random bytes among the logs" "$H0" "$H1" "$H2" "$T/random.json"
hrefuse hother 6 other2.hlog "the log of another run" "$H0" "$H1" "$T/other2.hlog"
hrefuse hsame 8 s0.hlog "a log given twice" "$H0" "$H0" "$H1" "$H2"
hrefuse hdup 8 again0.hlog "two logs of shard 0" "$H0" "$T/again0.hlog" "$H1" "$H2"
hrefuse hmissing 9 "shard 1" "the log of shard 1 missing" "$H0" "$H2"

# Counts that add up past what a result holds (9e15 of anything, the
# readers' limit, so that no sum can wrap and the merged result reads
# back): each shard's own is within it, their sum is not; and a status
# code or a reason a file repeats, each repeat within it, the sum not
# (3000 of 9e15 passed 2^64: the count wrapped); and histograms' exact
# sums that overflow when added (signed 128 bits). Exit 5, naming the
# field.
python3 - "$S0" "$S1" "$S2" "$T" <<'PY'
import json, sys
t = sys.argv[4]
for i, f in enumerate(sys.argv[1:4]):
    j = json.load(open(f))
    j["requests"]["started"] = 5000000000000000
    json.dump(j, open("%s/many%d.json" % (t, i), "w"))
for i, f in enumerate(sys.argv[1:3]):  # 38 digits each (what a file may hold), 2^127 passed together
    j = json.load(open(f))
    j["latency"]["sum"] = "9" * 38
    json.dump(j, open("%s/bigsum%d.json" % (t, i), "w"))
text = open(sys.argv[2]).read()
dup = '"status": {' + '"200": 9000000000000000, ' * 3000
open(t + "/dupstatus.json", "w").write(text.replace('"status": {', dup, 1))
j = json.load(open(sys.argv[2]))
j["failures"] = {"reasons": [{"reason": "x", "count": 9000000000000000}] * 3000, "other_reasons": 0, "other": 0}
json.dump(j, open(t + "/dupreason.json", "w"))
PY
refuse bigsum 5 bigsum1.json "latency sums that overflow when added" "$T/bigsum0.json" "$T/bigsum1.json" "$S2"
check_grep "$T/bigsum.err" "bigsum1\.json: a histogram whose count or sum, added to the other shards', overflows" \
    "latency sums that overflow when added: the message"
refuse many 5 many1.json "requests.started added up past 9e15" "$T/many0.json" "$T/many1.json" "$T/many2.json"
check_grep "$T/many.err" "many1\.json: requests\.started: added to the other shards', more than 9000000000000000" \
    "requests.started added up past 9e15: the field"
refuse dupstatus 5 dupstatus.json "a status code repeated past 9e15" "$S0" "$T/dupstatus.json" "$S2"
check_grep "$T/dupstatus.err" "dupstatus\.json: status\.200: 9000000000000000, added to the 9000000000000000" \
    "a status code repeated past 9e15: the field"
refuse dupreason 5 dupreason.json "a reason repeated past 9e15" "$S0" "$T/dupreason.json" "$S2"
check_grep "$T/dupreason.err" "dupreason\.json: failures\.reasons\[1\]\.count: the reason's counts add up" \
    "a reason repeated past 9e15: the field"

# Shards that started further apart than the run lasted (exit 10): one
# line naming both files, refused before anything is merged, in a
# moment, writing nothing (the merge used to fill every second between:
# 274 MB for 10^6 s, and never ending for 3x10^8 s). The same for an
# interval log whose StartTime is that far from the others'. Just within
# the run's length (its longest shard's series, at least 1 s) merges, the
# series one second longer.
python3 - "$S1" "$H1" "$T" "$S0" "$S2" <<'PY'
import json, re, sys
s1, h1, t = sys.argv[1:4]
d = json.load(open(s1))
first = min(json.load(open(f))["start_time"] for f in sys.argv[4:])
for name, at in (("apart6", d["start_time"] + 1e6), ("apart8", d["start_time"] + 3e8),
                 ("before", d["start_time"] - 1e6), ("near", first + 0.9)):
    e = dict(d, start_time=at)
    json.dump(e, open("%s/%s.json" % (t, name), "w"))
log = open(h1).read()
def shift(m):
    return "%s: %.3f" % (m.group(1), float(m.group(2)) + 1e6)
open(t + "/apart6.hlog", "w").write(re.sub(r"(StartTime|BaseTime): ([0-9.]+)", shift, log))
PY
refuse apart6 10 apart6.json "a shard started 10^6 s after the others" "$S0" "$T/apart6.json" "$S2"
check_grep "$T/apart6.err" "^volley merge: .*/s[02]\.json and .*/apart6\.json: started (999999|1000000)\.[0-9]+ s apart" \
    "a shard 10^6 s late: names both files and the gap"
refuse apart8 10 apart8.json "a shard started 3x10^8 s after the others" "$T/apart8.json" "$S0" "$S2"
refuse before 10 before.json "a shard started 10^6 s before the others" "$S0" "$S2" "$T/before.json"
hrefuse hapart 10 apart6.hlog "a log that started 10^6 s after the others" "$H0" "$T/apart6.hlog" "$H2"
# Within one log the intervals lie where they say: one 10^8 s after the
# log's start is merged as it is, and the merged log is no longer for it
# (it has the logs' intervals, nothing for the time between).
python3 - "$H1" "$T/hfar.hlog" <<'PY'
import sys
out = []
for line in open(sys.argv[1]).read().split("\n"):
    if line[:1].isdigit():
        start, rest = line.split(",", 1)
        line = "%.3f,%s" % (float(start) + 1e8, rest)
    out.append(line)
open(sys.argv[2], "w").write("\n".join(out))
PY
mrun hfar "$S0" "$S1" "$S2" "$H0" "$T/hfar.hlog" "$H2" --hlog "$T/hfar.merged.hlog"
sane hfar "an interval 10^8 s into a log"
check_eq "$RC" 0 "an interval 10^8 s into a log: exit status (stderr: $(head -c 300 "$T/hfar.err"))"
size=$(wc -c < "$T/hfar.merged.hlog")
if [ "$size" -lt $(( $(cat "$H0" "$T/hfar.hlog" "$H2" | wc -c) + 1000 )) ]; then ok; else
    fail "an interval 10^8 s into a log: the merged log has $size bytes"; fi
mrun near "$S0" "$T/near.json" "$S2"
sane near "a shard started 0.9 s after the others"
check_eq "$RC" 0 "a shard started 0.9 s after the others: exit status (stderr: $(head -c 300 "$T/near.err"))"
check_eq "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["series"]["points"]))' \
    "$T/near.merged.json")" 2 "a shard started 0.9 s after the others: the merged series' seconds"

# Command line (2) and outputs (1).
RC=0; "$VOLLEY" merge > "$T/noarg.out" 2> "$T/noarg.err" || RC=$?
check_eq "$RC" 2 "merge without files: exit status"
RC=0; "$VOLLEY" merge --bogus "$S0" "$S1" "$S2" > "$T/bogus.out" 2> "$T/bogus.err" || RC=$?
check_eq "$RC" 2 "merge --bogus: exit status"
RC=0; "$VOLLEY" merge "$S0" "$S1" "$S2" --json > "$T/nojson.out" 2> "$T/nojson.err" || RC=$?
check_eq "$RC" 2 "merge --json without a file: exit status"
RC=0; "$VOLLEY" merge "$S0" "$S1" "$S2" --json "$T/adir/no/such/dir.json" > "$T/unwritable.out" 2> "$T/unwritable.err" || RC=$?
# Checked before any file is read, as volley report and a run do: a bad
# command line.
check_eq "$RC" 2 "merge --json to an unwritable path: exit status"
check_grep "$T/unwritable.err" "dir\.json" "merge --json to an unwritable path: names it"
# No response completed in any shard: the whole run completed none.
start_target
pids=()
for i in 0 1 2; do
    run_volley "none$i" -q -n 3 -c 3 -t 1 -T 100ms --shard "$i/3" --run-id rN "http://127.0.0.1:$PORT/never" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
stop_target
mrun none "$T/none0.json" "$T/none1.json" "$T/none2.json"
sane none "no response completed"
check_eq "$RC" 1 "no response completed: exit status (stderr: $(head -c 300 "$T/none.err"))"

finish

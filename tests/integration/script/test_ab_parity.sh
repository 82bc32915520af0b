# volley ab against the real ApacheBench 2.3 (apache2-utils), flag for flag:
# both run with the same arguments against the same server, then
#  - stdout has the same lines in the same order: every line byte for byte,
#    except the timing lines (Time taken, Requests per second, Time per
#    request, Transfer rate, Connection Times rows, percentages), where only
#    the shape (text with the numbers blanked) must match;
#  - the counters match exactly: Server Software, Hostname, Port, Document
#    Path and Length, Concurrency Level, Complete, Failed (and its
#    breakdown), Write errors, Non-2xx, Keep-Alive, Total transferred, Total
#    body sent, HTML transferred;
#  - in each output the timing lines agree with their formulas and the
#    Connection Times and percentage tables are well formed;
#  - stderr (progress lines, errors) and the exit status are the same;
#  - the server received the same requests, byte for byte;
#  - -e and -g files have the same structure.
# The comparisons are done by abcmp.py (written to $T below), in one python
# run at the end. Without ab installed the test is skipped.
source "$TESTLIB"

if ! command -v ab > /dev/null; then
    echo "$(basename "$0"): skipped, ab (Debian package apache2-utils) is not installed"
    exit 0
fi

# ---------------------------------------------------------------- helpers --

# Capture server: logs each request's raw bytes (head + body, hex, one line
# per request) so that ab's and volley ab's wire bytes can be compared.
# HTTP/1.0 style like ab expects: keeps the connection only when the request
# says Keep-Alive, and then answers Connection: Keep-Alive + Content-Length.
# /var answers 10 + (k % 7) bytes for the k-th /var request since the last
# /__reset (a path whose length varies, for -l); anything else 6 bytes.
# /chunked (not logged) sends a chunked body of 3 x 5 bytes in three writes;
# /h11 (not logged) answers HTTP/1.1 without Connection and keeps the connection.
cat > "$T/capserver.py" <<'PY'
import os, socket, socketserver, sys, threading, time

log_path, port_file, max_seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
lock = threading.Lock()
state = {"var": 0}
log = open(log_path, "a")

class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        buf = b""
        while True:
            while b"\r\n\r\n" not in buf:
                data = s.recv(65536)
                if not data:
                    return
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            head += b"\r\n\r\n"
            lines = head.decode("latin-1").split("\r\n")
            method, target = lines[0].split(" ")[:2]
            hdrs = {}
            for l in lines[1:]:
                if ":" in l:
                    k, v = l.split(":", 1)
                    hdrs[k.strip().lower()] = v.strip()
            n = int(hdrs.get("content-length", "0"))
            while len(buf) < n:
                data = s.recv(65536)
                if not data:
                    return
                buf += data
            body, buf = buf[:n], buf[n:]
            keep = "keep-alive" in hdrs.get("connection", "").lower()
            if target == "/h11":
                # HTTP/1.1, kept open, without the word Keep-Alive
                s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
                continue
            if target == "/chunked":
                # three 5-byte chunks, each in its own write a little apart
                s.sendall(b"HTTP/1.1 200 OK\r\nServer: PyCap/1.0\r\nTransfer-Encoding: chunked\r\n" +
                          (b"Connection: Keep-Alive\r\n\r\n" if keep else b"Connection: close\r\n\r\n"))
                for part in (b"5\r\nabcde\r\n", b"5\r\nfghij\r\n", b"5\r\nklmno\r\n0\r\n\r\n"):
                    time.sleep(0.002)
                    s.sendall(part)
                if not keep:
                    s.shutdown(socket.SHUT_WR)
                    return
                continue
            with lock:
                if target == "/__reset":
                    state["var"] = 0
                else:
                    log.write((head + body).hex() + "\n")
                    log.flush()
                if target.startswith("/var"):
                    out = b"v" * (10 + state["var"] % 7)
                    state["var"] += 1
                else:
                    out = b"hello\n"
            resp = (b"HTTP/1.0 200 OK\r\nServer: PyCap/1.0 (test)\r\nContent-Type: text/plain\r\n"
                    b"Content-Length: %d\r\n" % len(out))
            resp += b"Connection: Keep-Alive\r\n\r\n" if keep else b"Connection: close\r\n\r\n"
            s.sendall(resp if method == "HEAD" else resp + out)
            if not keep:
                s.shutdown(socket.SHUT_WR)
                return

class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

srv = Server(("127.0.0.1", 0), Handler)
threading.Timer(max_seconds, lambda: os._exit(0)).start()
with open(port_file + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(port_file + ".tmp", port_file)
srv.serve_forever()
PY

# The comparison of one case. Prints one line per check, "ok WHAT" or
# "FAIL WHAT: details" (details may continue on indented lines).
#   abcmp.py report DIR NAME [--timed | --counts] : NAME.{ab,v}.{out,err,rc}
#   abcmp.py files DIR NAME            : NAME.{ab,v}.{csv,tsv} and .out
#   abcmp.py wire DIR NAME             : NAME.{ab,v}.wire, one hex request a line
#   abcmp.py batch DIR < lines "report NAME [OPTS]" ...: all of them, in order
# --timed (for -t runs): the counts may differ too, only their shape is
# compared, and stderr has the progress lines of a -t run. --counts: the
# counts may differ, stderr is compared as it is.
cat > "$T/abcmp.py" <<'PY'
import difflib, re, sys, time

def out(ok, what, why=""):
    print(("ok " + what) if ok else ("FAIL %s: %s" % (what, why)))

def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("latin-1")
    except FileNotFoundError:
        return None

NUM = re.compile(r"\d+(?:\.\d+)?")
def shape(line):
    return re.sub(r" +", " ", NUM.sub("#", line)).rstrip()

CT_ROW = re.compile(r"^(Connect|Processing|Waiting|Total):\s")
CT_HTML = re.compile(r"<th[^>]*>(Connect|Processing|Total):</th><td")
PCT_ROW = re.compile(r"^ {1,2}\d+%  ")
TIMING_LABELS = ("Time taken for tests:", "Requests per second:", "Time per request:", "Transfer rate:")
COUNT_LABELS = ("Complete requests:", "Failed requests:", "Write errors:", "Non-2xx responses:",
                "Keep-Alive requests:", "Total transferred:", "Total body sent:", "HTML transferred:")
WARN_FIRST = re.compile(r"^(WARNING|ERROR): The median and mean for the (initial connection|processing|waiting|total) time are ")
WARN_TEXT = {
    "WARNING": ("not within a normal deviation", "        These results are probably not that reliable."),
    "ERROR": ("more than twice the standard", "       deviation apart. These results are NOT reliable."),
}

def html_label(line):
    m = re.search(r"<th[^>]*>([^<]*:)</th>", line)
    return m.group(1) if m else ""

def kind(line, timed):
    """exact: must be byte-identical; shape: the numbers may differ."""
    label = html_label(line) or line
    if CT_ROW.match(line) or CT_HTML.search(line) or PCT_ROW.match(line):
        return "shape"
    if label.startswith(TIMING_LABELS) or line.rstrip().endswith(("kb/s sent", "kb/s total")) \
            or "kb/s sent</td>" in line or "kb/s total</td>" in line:
        return "shape"
    if timed and (label.startswith(COUNT_LABELS) or "(Connect:" in line):
        return "shape"
    return "exact"

def strip_volley_usage(ve, ae, name):
    """volley ab's usage text is ab's followed by its own options (a
    "volley ab only:" heading and indented lines): checked to be there
    whenever ab printed its usage, then left out of the comparison."""
    if "volley ab only:" not in ve:
        out("Options are:" not in ae, name + ": volley ab's own options after ab's usage", "missing")
        return ve
    i = ve.index("volley ab only:")
    j = i + 1
    while j < len(ve) and ve[j].startswith("    "):
        j += 1
    out(j > i + 1 and ve[i + 1].startswith("    --tls-resume "), name + ": volley ab's own options", "%r" % ve[i:j])
    return ve[:i] + ve[j:]

def strip_warnings(lines, who, name):
    """The median/mean WARNING and ERROR lines depend on timing: checked for
    their wording, then left out of the comparison."""
    kept, i = [], 0
    while i < len(lines):
        m = WARN_FIRST.match(lines[i])
        if m:
            level = m.group(1)
            good = lines[i].endswith(WARN_TEXT[level][0]) and i + 1 < len(lines) and lines[i + 1] == WARN_TEXT[level][1]
            out(good, "%s %s: median/mean %s lines" % (name, who, level), "%r" % (lines[i:i + 2],))
            i += 2
            continue
        kept.append(lines[i])
        i += 1
    return kept

def fields(lines):
    """Label -> value of 'Label:   value' lines (first occurrence), text or html."""
    f = {}
    for l in lines:
        m = re.match(r"^([A-Z][A-Za-z0-9/ -]*):\s+(.*)$", l) or re.search(r"<th[^>]*>([^<]*):</th><td[^>]*>([^<]*)</td>", l)
        if m and m.group(1) not in f:
            f[m.group(1)] = m.group(2).strip()
    b = [l for l in lines if l.startswith("   (Connect:") or "<td colspan=4" in l]
    if b:
        f["breakdown"] = re.sub(r"<[^>]*>", "", b[0]).strip()
    return f

def first_num(s):
    m = NUM.search(s or "")
    return float(m.group(0)) if m else None

def check_formulas(lines, who, name):
    f = fields(lines)
    tag = "%s %s" % (name, who)
    html = any(l.startswith("<table") for l in lines)
    if "Time taken for tests" not in f:
        return
    t = first_num(f["Time taken for tests"])
    done = int(first_num(f.get("Complete requests")))
    c = int(first_num(f.get("Concurrency Level")))
    total = int(first_num(f.get("Total transferred")))
    posted = int(first_num(f["Total body sent"])) if "Total body sent" in f else None
    rps_line = f.get("Requests per second")
    if done == 0 or rps_line is None:
        out(rps_line is None and done == 0, tag + ": rates printed iff requests completed", "%r, %d" % (rps_line, done))
        return
    # The exact time taken lies within the printed one's rounding, and
    # Requests per second = complete / time taken narrows it further.
    rps = first_num(rps_line)
    lo, hi = max(t - 0.0005, 1e-9), t + 0.0005
    lo = max(lo, done / (rps + 0.005))
    if rps > 0.005:
        hi = min(hi, done / (rps - 0.005))
    out(lo <= hi * (1 + 1e-9), tag + ": Requests per second = complete / time taken",
        "rps %s, time %s, complete %d" % (rps, t, done))
    lo, hi = min(lo, hi), max(lo, hi)
    def within(what, value, fn, eps):
        a, b = sorted((fn(lo), fn(hi)))
        out(value is not None and a - eps - 1e-9 <= value <= b + eps + 1e-9, "%s: %s" % (tag, what),
            "printed %s, formula gives %.4f..%.4f" % (value, a, b))
    if not html:
        tpr = [first_num(l.split(":", 1)[1]) for l in lines if l.startswith("Time per request:")]
        out(len(tpr) == 2, tag + ": two Time per request lines", str(tpr))
        if len(tpr) == 2:
            within("Time per request = c * time * 1000 / n", tpr[0], lambda x: c * x * 1000 / done, 0.0005)
            within("Time per request (across all) = time * 1000 / n", tpr[1], lambda x: x * 1000 / done, 0.0005)
    within("Transfer rate = total / 1024 / time", first_num(f["Transfer rate"]), lambda x: total / 1024 / x, 0.005)
    if posted is not None:
        rates = [first_num(re.sub(r"<[^>]*>", " ", l)) for l in lines if "kb/s sent" in l or "kb/s total" in l]
        out(len(rates) == 2, tag + ": sent and total rate lines", str(rates))
        if len(rates) == 2:
            within("kb/s sent = body sent / 1024 / time", rates[0], lambda x: posted / 1024 / x, 0.005)
            within("kb/s total = (total + sent) / 1024 / time", rates[1], lambda x: (total + posted) / 1024 / x, 0.005)
    if html:
        rows = {}
        for l in lines:
            m = CT_HTML.search(l)
            if m:
                rows[m.group(1)] = [int(v) for v in re.findall(r"<td[^>]*>\s*(\d+)</td>", l)]
        for k in ("Connect", "Total"):
            v = rows.get(k)
            # ab's HTML avg is round_ms(sum) / done, printed as an integer: it can
            # be 1 below a min that was rounded up (min 1, avg 0 at 0.6 ms each).
            out(v is not None and len(v) == 3 and v[0] - 1 <= v[1] <= v[2], "%s: html %s row min - 1 <= avg <= max" % (tag, k), str(v))
        v = rows.get("Processing")
        out(v is not None and len(v) == 3, "%s: html Processing row" % tag, str(v))
        return
    rows = {}
    sform = "              min   avg   max" in lines
    lab = r"^(Connect:    |Processing: |Waiting:    |Total:      )"
    fmt = re.compile(lab + (r"[ \d]{4}\d [ \d]{4}\d[ \d]{4}\d$" if sform else
                            r"[ \d]{4}\d [ \d]{3}\d [ \d]{2}\d\.\d [ \d]{5}\d [ \d]{6}\d$"))
    for l in lines:
        m = CT_ROW.match(l)
        if m:
            wide = any(len(x) > 4 for x in NUM.findall(l))  # a value wider than its column
            out(bool(fmt.match(l)) or wide, "%s: %s row format" % (tag, m.group(1)), repr(l))
            rows[m.group(1)] = [float(x) for x in NUM.findall(l)]
    for k in ("Connect", "Processing", "Waiting", "Total"):
        v = rows.get(k)
        if sform:
            out(v is not None and len(v) == 3 and v[0] <= v[1] <= v[2], "%s: %s min <= avg <= max" % (tag, k), str(v))
        else:
            out(v is not None and len(v) == 5 and v[0] <= v[1] <= v[4] and v[0] <= v[3] <= v[4],
                "%s: %s min <= mean <= max, min <= median <= max" % (tag, k), str(v))
    pct = [(l, re.match(r"^ {1,2}(\d+)%  ([ \d]{4}\d)( \(longest request\))?$", l)) for l in lines if PCT_ROW.match(l)]
    if pct:
        out(all(m for _, m in pct), tag + ": percentage rows format", str([l for l, m in pct if not m]))
        ps = [int(m.group(1)) for _, m in pct if m]
        vs = [int(m.group(2)) for _, m in pct if m]
        out(ps == [50, 66, 75, 80, 90, 95, 98, 99, 100], tag + ": percentages 50..100", str(ps))
        out(vs == sorted(vs), tag + ": percentage table monotonic", str(vs))
        if rows.get("Total") and len(rows["Total"]) == 5 and vs:
            out(vs[-1] == rows["Total"][4], tag + ": 100% row = Total max", "%s vs %s" % (vs[-1], rows["Total"]))
            out(vs[0] >= rows["Total"][0], tag + ": 50% row >= Total min", "%s vs %s" % (vs[0], rows["Total"]))

def report(d, name, timed, counts_vary):
    A = {k: read("%s/%s.ab.%s" % (d, name, k)) or "" for k in ("out", "err", "rc")}
    V = {k: read("%s/%s.v.%s" % (d, name, k)) or "" for k in ("out", "err", "rc")}
    out(A["rc"].strip() == V["rc"].strip(), name + ": exit status", "ab %s, volley ab %s" % (A["rc"].strip(), V["rc"].strip()))
    al = strip_warnings(A["out"].split("\n"), "ab", name)
    vl = strip_warnings(V["out"].split("\n"), "volley ab", name)
    vary = timed or counts_vary
    ka = [kind(l, vary) for l in al]
    same = len(al) == len(vl) and all(
        (a == v) if k == "exact" else (shape(a) == shape(v)) for a, v, k in zip(al, vl, ka))
    if same:
        out(True, name + ": stdout lines (%d)" % len(al))
    else:
        diff = list(difflib.unified_diff(
            [a if k == "exact" else shape(a) for a, k in zip(al, ka)],
            [v if kind(v, vary) == "exact" else shape(v) for v in vl], "ab", "volley ab", n=1, lineterm=""))
        out(False, name + ": stdout lines", "(numbers of timing lines shown as #)\n    " + "\n    ".join(map(repr, diff[:40])))
    fa, fv = fields(al), fields(vl)
    if ("Server Hostname" in fa) != ("Server Hostname" in fv):
        out(False, name + ": the report", "ab %s one, volley ab %s" % (
            "printed" if "Server Hostname" in fa else "did not print", "printed" if "Server Hostname" in fv else "did not print"))
        fa = fv = {}
    for k in ("Server Software", "Server Hostname", "Server Port", "Document Path", "Document Length",
              "Concurrency Level", "Complete requests", "Failed requests", "breakdown", "Write errors",
              "Non-2xx responses", "Keep-Alive requests", "Total transferred", "Total body sent", "HTML transferred"):
        if vary and k not in ("Server Software", "Server Hostname", "Server Port", "Document Path",
                               "Document Length", "Concurrency Level"):
            continue
        if k in fa or k in fv:
            out(fa.get(k) == fv.get(k), "%s: %s" % (name, k), "ab %r, volley ab %r" % (fa.get(k), fv.get(k)))
    ae = [l for l in A["err"].split("\n") if l]
    ve = strip_volley_usage([l for l in V["err"].split("\n") if l], ae, name)
    if timed:
        # -t: a progress line every 5000 requests, then Finished N = Complete requests
        good = bool(ve) and all(re.match(r"^Completed \d*[05]000 requests$", l) for l in ve[:-1]) and \
            ve[-1] == "Finished %s requests" % fv.get("Complete requests")
        out(good, name + ": stderr progress lines", "%r" % ve[-3:])
    else:
        out(ae == ve, name + ": stderr", "ab %r, volley ab %r" % (ae[:6], ve[:6]))
    check_formulas(al, "ab", name)
    check_formulas(vl, "volley ab", name)

def files(d, name):
    for who in ("ab", "v"):
        tag = "%s %s" % (name, "ab" if who == "ab" else "volley ab")
        text = (read("%s/%s.%s.out" % (d, name, who)) or "").split("\n")
        f = fields(text)
        done = int(f.get("Complete requests", "0"))
        tot = [l for l in text if l.startswith("Total:")]
        tmax = int(tot[0].split()[-1]) if tot else None
        csv = (read("%s/%s.%s.csv" % (d, name, who)) or "").split("\n")
        out(csv[0] == "Percentage served,Time in ms" and csv[-1] == "", tag + ": -e header", repr(csv[:1]))
        rows = [re.match(r"^(\d+),(\d+\.\d{3})$", l) for l in csv[1:-1]]
        out(len(rows) == 101 and all(rows), tag + ": -e has 101 rows of %d,%.3f", "%d rows: %r" % (len(rows), csv[1:3]))
        if len(rows) == 101 and all(rows):
            out([int(m.group(1)) for m in rows] == list(range(101)), tag + ": -e percentages 0..100")
            ms = [float(m.group(2)) for m in rows]
            out(ms == sorted(ms), tag + ": -e times monotonic", str(ms[:3]))
            out(tmax is None or int(ms[100] + 0.5) == tmax, tag + ": -e 100% = Total max", "%s vs %s" % (ms[100], tmax))
        tsv = (read("%s/%s.%s.tsv" % (d, name, who)) or "").split("\n")
        out(tsv[0] == "starttime\tseconds\tctime\tdtime\tttime\twait" and tsv[-1] == "", tag + ": -g header", repr(tsv[:1]))
        rows = [l.split("\t") for l in tsv[1:-1]]
        out(len(rows) == done, tag + ": -g has one row per request", "%d rows, %d requests" % (len(rows), done))
        good = all(len(r) == 6 and re.match(r"^[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d \d{4}$", r[0])
                   and all(re.match(r"^\d+$", x) for x in r[1:]) for r in rows)
        out(good, tag + ": -g row format", repr(rows[:1]))
        if good and rows:
            out(all(time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(int(r[1]))) == r[0] for r in rows),
                tag + ": -g starttime is seconds as local time", repr(rows[0][:2]))
            tt = [int(r[4]) for r in rows]
            out(tt == sorted(tt), tag + ": -g rows sorted by ttime")
            out(tmax is None or tt[-1] == tmax, tag + ": -g longest ttime = Total max", "%s vs %s" % (tt[-1], tmax))
            out(all(int(r[2]) <= int(r[4]) and int(r[3]) <= int(r[4]) + 1 for r in rows), tag + ": -g ctime, dtime <= ttime")

def wire(d, name):
    a = (read("%s/%s.ab.wire" % (d, name)) or "").split()
    v = (read("%s/%s.v.wire" % (d, name)) or "").split()
    out(len(a) == len(v) and len(a) > 0, name + ": requests received", "ab %d, volley ab %d" % (len(a), len(v)))
    sa, sv = sorted(set(a)), sorted(set(v))
    dec = lambda xs: [bytes.fromhex(x).decode("latin-1") for x in xs]
    out(sa == sv, name + ": request bytes", "\n    ab sent        %r\n    volley ab sent %r" % (dec(sa)[:2], dec(sv)[:2]))

def run(d, cmd, name, *opts):
    if cmd == "report":
        report(d, name, "--timed" in opts, "--counts" in opts)
    elif cmd == "files":
        files(d, name)
    elif cmd == "wire":
        wire(d, name)

if sys.argv[1] == "batch":  # batch DIR < lines "CMD NAME [OPTS]": one python start for all cases
    for line in sys.stdin:
        if line.split():
            try:
                run(sys.argv[2], *line.split())
            except Exception as e:
                out(False, "abcmp.py " + line.strip(), repr(e))
else:
    run(sys.argv[2], sys.argv[1], *sys.argv[3:])
PY

# tally FILE: counts abcmp.py's verdicts.
tally() {
    local line
    while IFS= read -r line; do
        case $line in
        "ok "*) ok ;;
        "FAIL "*) fail "${line#FAIL }" ;;
        *) echo "$line" >&2 ;;
        esac
    done < "$1"
}
# cmp_py CMD NAME [OPTS]: queues one comparison; compare_all runs them all
# in one python process (a python start costs more than most ab runs).
cmp_py() { echo "$*" >> "$T/queue"; }
compare_all() {
    python3 "$T/abcmp.py" batch "$T" < "$T/queue" > "$T/cmp.txt" 2>&1 ||
        echo "FAIL abcmp.py: $(tail -n 3 "$T/cmp.txt")" >> "$T/cmp.txt"
    tally "$T/cmp.txt"
}

# http_get PORT PATH: the body of a GET, through bash's /dev/tcp (no python start).
http_get() {
    local r
    exec 3<> "/dev/tcp/127.0.0.1/$1"
    printf 'GET %s HTTP/1.0\r\nHost: x\r\n\r\n' "$2" >&3
    r=$(cat <&3)
    exec 3<&-
    printf '%s\n' "${r#*$'\r\n\r\n'}"
}
# vt_received: volley-target's "received" counter.
vt_received() { local j; j=$(http_get "$PORT" /__stats); j=${j#*\"received\":}; echo "${j%%,*}"; }
cap_lines() { wc -l < "$CAPLOG"; }

# one WHO NAME ARGS...: runs ab (WHO=ab) or volley ab (WHO=v) with ARGS in
# $T/w, where @WHO@ in an argument becomes WHO (for -e/-g file names).
# Output in $T/NAME.WHO.{out,err,rc}; what the servers received in
# $T/NAME.WHO.{recv,wire}. Each run is bounded to 20 s (ONE_TIMEOUT: the
# options of timeout(1) instead of "-s KILL 20").
one() {
    local who=$1 name=$2 rc=0 r0 c0 cmd
    shift 2
    if [ "$who" == ab ]; then cmd=(ab); else cmd=("$VOLLEY" ab); fi
    r0=$(vt_received)
    c0=$(cap_lines)
    http_get "$CAPPORT" /__reset > /dev/null
    # shellcheck disable=SC2086 # ONE_TIMEOUT is a list of words
    (cd "$T/w" && timeout ${ONE_TIMEOUT:--s KILL 20} "${cmd[@]}" "${@//@WHO@/$who}" < /dev/null \
        > "$T/$name.$who.out" 2> "$T/$name.$who.err") || rc=$?
    echo "$rc" > "$T/$name.$who.rc"
    echo $(($(vt_received) - r0)) > "$T/$name.$who.recv"
    tail -n +$((c0 + 1)) "$CAPLOG" > "$T/$name.$who.wire"
}

# pair NAME ARGS...: ab, then volley ab, with the same ARGS; compares their
# reports, what the servers received (count; bytes on the capture server)
# and the exit statuses. PAIR_OPTS=--timed for -t runs.
pair() {
    local name=$1 t0=$EPOCHREALTIME
    shift
    one ab "$name" "$@"
    one v "$name" "$@"
    cmp_py report "$name" ${PAIR_OPTS:-}
    if [ -z "${PAIR_OPTS:-}" ] && [ -z "${ONE_TIMEOUT:-}" ]; then
        check_eq "$(cat "$T/$name.v.recv")" "$(cat "$T/$name.ab.recv")" "$name: requests volley-target received (volley ab vs ab)"
        if [ -s "$T/$name.ab.wire" ] || [ -s "$T/$name.v.wire" ]; then cmp_py wire "$name"; fi
    fi
    [ -z "${AB_PARITY_TIMES:-}" ] || echo "time $name $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')" >&2
}

# ---------------------------------------------------------------- servers --
mkdir -p "$T/w"
printf 'a=1&b=2\n' > "$T/w/post.txt"
head -c 3000 /dev/zero | tr '\0' 'p' > "$T/w/big.txt"
start_target
url="http://127.0.0.1:$PORT"
CAPLOG=$T/cap.log
: > "$CAPLOG"
python3 "$T/capserver.py" "$CAPLOG" "$T/cap.port" 90 &
TARGET_PIDS+=($!)
for _ in $(seq 1 250); do [ -s "$T/cap.port" ] && break; sleep 0.02; done
[ -s "$T/cap.port" ] || { echo "capture server did not start" >&2; exit 1; }
CAPPORT=$(cat "$T/cap.port")
cap="http://127.0.0.1:$CAPPORT"
# A loopback port nobody listens on: bound, then closed.
DEAD=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# ------------------------------------------------------------------ cases --
# volley ab runs at all (without it every case below would fail the same way)
RC=0
"$VOLLEY" ab -V > "$T/V.out" 2>&1 || RC=$?
check_eq "$RC" 0 "volley ab -V: exit status"
ab -V > "$T/V.ab.out" 2>&1 || true
check_eq "$(cat "$T/V.out")" "$(cat "$T/V.ab.out")" "volley ab -V: the banner"
[ "$RC" == 0 ] || finish

# -n / -c and the progress lines (n > 150: a line every 100, then Finished)
pair basic -n 200 -c 10 "$url/"
pair n1 -n 1 -c 1 "$url/"
pair default "$url/"
pair n151 -n 151 -c 3 "$url/bytes/100"
pair n300t -t 1 -n 300 -c 5 "$url/" # -n after -t: stops at 300, well before 1 s
# keep-alive: volley-target answers HTTP/1.0 + Connection: Keep-Alive with
# "Connection: keep-alive" and a Content-Length, which ab accepts
pair keepalive -k -n 200 -c 10 "$url/"
check_grep "$T/keepalive.ab.out" '^Keep-Alive requests:    200$' "keepalive: ab kept the connections (the server fits ab)"
pair ka-bytes -k -n 50 -c 2 "$url/bytes/20000"
# HEAD
pair head -i -n 20 -c 2 "$url/bytes/50"
pair head-ka -i -k -n 20 -c 2 "$url/bytes/50"
# non-2xx, and a response read until close (no Content-Length)
pair s404 -n 50 -c 5 "$url/status/404"
pair s503-ka -k -n 50 -c 5 "$url/status/503"
pair s301 -n 10 -c 2 "$url/status/301"
pair http10 -n 20 -c 2 "$url/http10"
pair http10-ka -k -n 20 -c 2 "$url/http10"
pair s204-ka -k -n 10 -c 2 "$url/status/204"
# the server closes a kept-alive connection after every 3rd response
pair close3-ka -k -n 10 -c 1 "$url/close/3"
# big bodies, many reads each
pair big -n 6 -c 2 "$url/bytes/1000000"
pair big-ka -k -n 6 -c 2 "$url/bytes/1000000"
# a name with two addresses: ab tries ::1, then 127.0.0.1, where the server is
pair localhost -n 3 -c 1 "http://localhost:$PORT/"
# output options
pair quiet -q -n 300 -c 5 "$url/"
pair nopct -d -n 200 -c 10 "$url/"
pair S -S -n 200 -c 10 "$url/"
pair qSd -q -S -d -n 200 -c 10 "$url/"
pair html -w -n 200 -c 10 "$url/"
pair html-xyz -x border=1 -y 'class=r' -z align=right -n 20 -c 2 -p "$T/w/post.txt" "$url/"
# -v 2: the request head once, every response head
pair v2 -v 2 -n 3 -c 1 "$url/"
pair v2-404 -v 2 -n 2 -c 1 -k "$url/status/404"
pair v3 -v 3 -n 2 -c 1 "$url/"
# -e and -g files
pair files -n 200 -c 10 -e "$T/files.@WHO@.csv" -g "$T/files.@WHO@.tsv" "$url/"
cmp_py files files
# socket and timeout options that do not change the report
pair sockopts -b 65536 -s 5 -B 127.0.0.1 -n 20 -c 2 "$url/"

# Request bytes on the wire (capture server), and the report with a Server header
pair get -n 5 -c 2 "$cap/plain?q=1"
pair get-ka -k -n 10 -c 2 "$cap/"
pair wire-head -i -n 3 -c 1 "$cap/"
pair post -p post.txt -T application/x-www-form-urlencoded -n 30 -c 3 "$cap/post"
pair post-default-type -k -p big.txt -n 10 -c 2 "$cap/post"
pair put -u post.txt -T text/csv -n 3 -c 1 "$cap/put"
pair method -m DELETE -n 3 -c 1 "$cap/thing"
pair headers -H 'X-A: 1' -H 'Accept: x' -C a=1 -C b=2 -n 5 -c 1 "$cap/"
pair overrides -H 'Host: example.test' -H 'User-Agent: mine/1' -A user:pass -P proxy:secret -n 3 -c 1 "$cap/"
pair proxy -X "127.0.0.1:$CAPPORT" -n 3 -c 1 "http://example.test/via?proxy=1"
# -l: a body whose length varies; without -l those are Length failures
pair var-l -l -n 50 -c 3 "$cap/var"
pair var-l-ka -l -k -n 30 -c 2 "$cap/var"
pair var -n 20 -c 1 "$cap/var"

# A port nobody listens on: ab exits 111 at once.
pair refused -n 10 -c 2 "http://127.0.0.1:$DEAD/"
# With -r, ab reports n Complete requests with Receive n and Exceptions
# about n/2 failures; volley ab reports what happened: no request
# completed, n Connect failures (docs/ab.md, differences).
one ab refused-r -r -n 10 -c 2 "http://127.0.0.1:$DEAD/"
one v refused-r -r -n 10 -c 2 "http://127.0.0.1:$DEAD/"
check_eq "$(cat "$T/refused-r.v.rc")" 0 "refused -r: volley ab exit status"
check_eq "$(cat "$T/refused-r.ab.rc")" 0 "refused -r: ab exit status"
check_grep "$T/refused-r.v.out" '^Complete requests:      0$' "refused -r: nothing completed"
check_grep "$T/refused-r.v.out" '^Failed requests:        10$' "refused -r: every request failed"
check_grep "$T/refused-r.v.out" '^   \(Connect: 10, Receive: 0, Length: 0, Exceptions: 0\)$' "refused -r: as connect failures"
check_grep "$T/refused-r.ab.out" '^Complete requests:      10$' "refused -r: ab counts them complete"

# The server closes without answering: ab counts a 0-byte response (a
# Complete request, not a failure), with -r too; volley ab counts a
# Receive failure and goes on, with or without -r (docs/ab.md).
for r in "" -r; do
    one ab "drop$r" $r -n 5 -c 1 "$url/drop"
    one v "drop$r" $r -n 5 -c 1 "$url/drop"
    check_eq "$(cat "$T/drop$r.v.rc")" "$(cat "$T/drop$r.ab.rc")" "drop $r: exit status as ab"
    check_grep "$T/drop$r.ab.out" '^Complete requests:      5$' "drop $r: ab counts them complete"
    check_grep "$T/drop$r.v.out" '^Complete requests:      0$' "drop $r: volley ab: nothing completed"
    check_grep "$T/drop$r.v.out" '^   \(Connect: 0, Receive: 5, Length: 0, Exceptions: 0\)$' "drop $r: Receive failures"
done

# -s: no answer within 1 s ends ab with status 119
pair timeout -s 1 -n 1 -c 1 "$url/delay/1500"

# SIGINT (Ctrl-C) after 2 s: the report at once, status 1 (2 s: a loaded
# machine may take more than 1 s to start a sanitizer build, and a SIGINT
# before the run has started ends the process before there is a report)
ONE_TIMEOUT="--preserve-status -k 10 -s INT 2" PAIR_OPTS=--counts pair sigint -n 100000 -c 5 "$url/delay/5"

# Usage errors: message, usage text and exit status 22
pair c-gt-n -n 5 -c 10 "$url/"
pair badopt -j "$url/"
pair help -h
pair nourl -n 5

# -t 1: counts depend on speed; shapes, formulas and progress lines compared
PAIR_OPTS=--timed pair timed -t 1 -c 5 "$url/"

# volley-ab: the same program under the name users type from habit
ln -s "$VOLLEY" "$T/volley-ab"
RC=0
"$T/volley-ab" -n 5 -c 1 "$url/" > "$T/vab.out" 2>&1 || RC=$?
check_eq "$RC" 0 "volley-ab: exit status"
check_grep "$T/vab.out" '^Complete requests:      5$' "volley-ab: runs ab"

# Where ab is wrong and volley ab is right: a chunked body is counted
# without its framing (ab counts the chunk-size lines too), and with -k the
# stream stays in step.
one ab chunked -n 20 -c 2 "$url/chunked/100"
one v chunked -n 20 -c 2 "$url/chunked/100"
check_grep "$T/chunked.ab.out" '^Document Length:        111 bytes$' "chunked: ab counts the framing"
check_grep "$T/chunked.v.out" '^Document Length:        100 bytes$' "chunked: volley ab counts the body"
check_grep "$T/chunked.v.out" '^HTML transferred:       2000 bytes$' "chunked: volley ab HTML transferred"
check_eq "$(grep '^Total transferred:' "$T/chunked.v.out")" "$(grep '^Total transferred:' "$T/chunked.ab.out")" "chunked: Total transferred (every byte read) as ab"
check_eq "$(cat "$T/chunked.v.rc")" 0 "chunked: volley ab exit status"
one v chunked-ka -k -s 5 -n 20 -c 2 "$url/chunked/100"
check_eq "$(cat "$T/chunked-ka.v.rc")" 0 "chunked -k: volley ab exit status"
check_grep "$T/chunked-ka.v.out" '^Complete requests:      20$' "chunked -k: volley ab completes"
check_grep "$T/chunked-ka.v.out" '^Failed requests:        0$' "chunked -k: no failures"
check_grep "$T/chunked-ka.v.out" '^Keep-Alive requests:    20$' "chunked -k: kept alive"
check_grep "$T/chunked-ka.v.out" '^Document Length:        100 bytes$' "chunked -k: body length"
# The chunks in separate writes: ab -k takes the response as complete after
# its head and loses step; it usually ends on the -s timeout (status 119).
one ab split-ka -k -s 1 -n 6 -c 1 "$cap/chunked"
one v split-ka -k -s 1 -n 6 -c 1 "$cap/chunked"
if [ "$(cat "$T/split-ka.ab.rc")" != 0 ] || ! grep -q '^Failed requests:        0$' "$T/split-ka.ab.out"; then ok; else
    fail "split chunks -k: ab did not lose step (the chunks came in one read?)"; fi
check_eq "$(cat "$T/split-ka.v.rc")" 0 "split chunks -k: volley ab exit status"
check_grep "$T/split-ka.v.out" '^Complete requests:      6$' "split chunks -k: volley ab completes"
check_grep "$T/split-ka.v.out" '^Keep-Alive requests:    6$' "split chunks -k: volley ab keeps the connection"
check_grep "$T/split-ka.v.out" '^Document Length:        15 bytes$' "split chunks -k: volley ab body length"
# 100 Continue, then the real response: ab takes the 100 for the response
# (a Non-2xx, and the 200 response as its body); volley ab reads on to the 200.
one ab continue -n 4 -c 1 "$url/continue"
one v continue -n 4 -c 1 "$url/continue"
check_grep "$T/continue.ab.out" '^Document Length:        95 bytes$' "100 Continue: ab counts the final response as body"
check_grep "$T/continue.v.out" '^Document Length:        11 bytes$' "100 Continue: volley ab reads the final response"
check_eq "$(grep -c '^Non-2xx' "$T/continue.v.out")" 0 "100 Continue: volley ab sees the 200s"
# An HTTP/1.1 server that keeps the connection without saying Keep-Alive:
# ab waits for the close until -s; volley ab sends the next request.
one v h11-ka -k -s 5 -n 3 -c 1 "$cap/h11"
check_eq "$(cat "$T/h11-ka.v.rc")" 0 "HTTP/1.1 keep-alive without the word: volley ab exit status"
check_grep "$T/h11-ka.v.out" '^Keep-Alive requests:    3$' "HTTP/1.1 keep-alive without the word: volley ab keeps the connection"
# -m HEAD with -k: ab expects a body (only -i counts as HEAD for it) and
# stalls until -s; volley ab knows a HEAD response has none.
one v head-m-ka -k -m HEAD -s 5 -n 3 -c 1 "$url/bytes/50"
check_eq "$(cat "$T/head-m-ka.v.rc")" 0 "-k -m HEAD: volley ab exit status"
check_grep "$T/head-m-ka.v.out" '^Keep-Alive requests:    3$' "-k -m HEAD: volley ab completes on one connection"

# ------------------------------------------------------------------- TLS --
# https against nginx (Debian's nginx-light, started by tls_lib.sh): the
# same comparisons, the TLS lines byte for byte. Two servers: one plain TLS,
# one that requires a client certificate from TLS_CA (mutual TLS).
source "$(dirname "$TESTLIB")/tls_lib.sh"

# ab_tls_nginx: both servers. Sets NGINX_PORT and NGINX_MTLS_PORT; returns
# non-zero if nginx is missing or does not start.
ab_tls_nginx() {
    start_nginx_tls "ssl_verify_client on;" "ssl_client_certificate $TLS_CA;" || return 1
    NGINX_MTLS_PORT=$NGINX_PORT
    start_nginx_tls
}

# A TLS server that closes every 3rd TCP connection that sends a
# ClientHello (the 1st is volley's start-up probe), without a handshake.
# It waits 50 ms first: a reset that reaches volley within the call that
# sent the ClientHello counts as a connect error (ab.lua then says
# "Connection refused"), not a TLS one.
cat > "$T/tls_flaky.py" <<'PY'
import os, socket, ssl, sys, threading, time
cert, key, port_file = sys.argv[1:4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
lock, count = threading.Lock(), [0]
def serve(c):
    try:
        if not c.recv(1, socket.MSG_PEEK):
            return
        with lock:
            count[0] += 1
            k = count[0]
        if k % 3 == 0:
            time.sleep(0.05)
            return
        s = ctx.wrap_socket(c, server_side=True)
        buf = b""
        while b"\r\n\r\n" not in buf:
            d = s.recv(4096)
            if not d:
                return
            buf += d
        s.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        s.unwrap()
    except (OSError, ssl.SSLError):
        pass
    finally:
        c.close()
srv = socket.create_server(("127.0.0.1", 0))
threading.Timer(60, lambda: os._exit(0)).start()
with open(port_file + ".tmp", "w") as f:
    f.write("%d\n" % srv.getsockname()[1])
os.rename(port_file + ".tmp", port_file)
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY

# tls_v2_filter NAME: ab's -v 2 over TLS also prints each connection's
# peer certificate (stdout) and session (stderr), which volley ab does not
# (docs/ab.md): left out before the comparison, as are nginx's Date lines
# in the response heads shown (the two runs may straddle a second).
tls_v2_filter() {
    sed -E -e '/^Peer certificate$/,/^Extension Count: [0-9]+$/d' -e 's/^Date: .*/Date: -/' "$T/$1.ab.out" > "$T/$1.ab.tmp"
    sed -E 's/^Date: .*/Date: -/' "$T/$1.v.out" > "$T/$1.v.tmp"
    mv "$T/$1.ab.tmp" "$T/$1.ab.out"
    mv "$T/$1.v.tmp" "$T/$1.v.out"
    : > "$T/$1.ab.err"
}

if ! tls_certs || ! ab_tls_nginx; then
    echo "$(basename "$0"): TLS cases skipped (no certificates or no nginx)" >&2
else
    cat "$TLS_CLIENT_CERT" "$TLS_CLIENT_KEY" > "$T/w/client-both.pem"
    surl="https://127.0.0.1:$NGINX_PORT"
    sname="https://localhost:$NGINX_PORT"
    pair tls-ip -n 100 -c 4 "$surl/"
    check_grep "$T/tls-ip.ab.out" '^SSL/TLS Protocol:       TLSv1\.3,TLS_AES_256_GCM_SHA384,256,256$' "tls-ip: ab's protocol line"
    check_grep "$T/tls-ip.ab.out" '^Server Temp Key:        X25519 253 bits$' "tls-ip: ab's temp key line"
    check_eq "$(grep -c '^TLS Server Name:' "$T/tls-ip.ab.out")" 0 "tls-ip: ab sends no SNI to an IP address"
    pair tls-name -n 200 -c 4 "$sname/"
    check_grep "$T/tls-name.v.out" '^TLS Server Name:        localhost$' "tls-name: the server name line"
    pair tls-ka -k -n 100 -c 4 "$sname/"
    pair tls12 -f TLS1.2 -n 20 -c 2 "$sname/"
    check_grep "$T/tls12.v.out" '^SSL/TLS Protocol:       TLSv1\.2,' "tls12: TLS 1.2"
    pair tls12-cipher -f tls1.2 -Z ECDHE-ECDSA-AES128-GCM-SHA256 -n 20 -c 2 "$sname/"
    check_grep "$T/tls12-cipher.v.out" '^SSL/TLS Protocol:       TLSv1\.2,ECDHE-ECDSA-AES128-GCM-SHA256,256,128$' "tls12-cipher: the cipher"
    pair tls13-suite -Z TLS_AES_128_GCM_SHA256 -f TLS1.3 -n 20 -c 2 "$sname/"
    check_grep "$T/tls13-suite.v.out" '^SSL/TLS Protocol:       TLSv1\.3,TLS_AES_128_GCM_SHA256,256,128$' "tls13-suite: the suite"
    pair tls-cipher-13 -Z ECDHE-ECDSA-AES128-GCM-SHA256 -n 10 -c 2 "$sname/" # no effect on TLS 1.3
    pair tls-all -f TLS1.2 -f ALL -n 10 -c 2 "$sname/"
    pair tls-ssl3 -f SSL3 -n 10 -c 2 "$sname/" # ignored, as ab on OpenSSL 3 ignores it
    pair tls-nosni -I -n 10 -c 2 "$sname/"
    pair tls-host -H 'Host:  example.test ' -n 10 -c 2 "$surl/"
    check_grep "$T/tls-host.v.out" '^TLS Server Name:        example\.test$' "tls-host: -H Host: is the server name"
    pair tls-host-ip -H 'Host: 10.1' -n 10 -c 2 "$sname/"
    pair tls-html -w -n 20 -c 2 "$sname/"
    pair tls-post -p post.txt -n 10 -c 2 "$sname/"
    pair tls-mtls -E "$T/w/client-both.pem" -n 20 -c 2 "https://localhost:$NGINX_MTLS_PORT/"
    check_eq "$(grep -c '^Non-2xx' "$T/tls-mtls.v.out")" 0 "tls-mtls: the client certificate was accepted"
    pair tls-mtls-none -n 10 -c 2 "https://localhost:$NGINX_MTLS_PORT/" # nginx answers 400
    one ab tls-v2 -v 2 -n 3 -c 1 "$sname/"
    one v tls-v2 -v 2 -n 3 -c 1 "$sname/"
    tls_v2_filter tls-v2
    cmp_py report tls-v2
    # -E errors: ab's first line (OpenSSL's error lines after it are not
    # reproduced) and status, before the banner, for http URLs too.
    for e in nofile:/nonexistent.pem nokey:"$TLS_CLIENT_CERT"; do
        name=tls-E-${e%%:*}
        for who in ab v; do one "$who" "$name" -E "${e#*:}" -n 1 "$url/"; done
        check_eq "$(head -n 1 "$T/$name.v.err")" "$(head -n 1 "$T/$name.ab.err")" "$name: the message"
        check_eq "$(cat "$T/$name.v.rc")" "$(cat "$T/$name.ab.rc")" "$name: exit status"
        check_eq "$(cat "$T/$name.v.out")" "$(cat "$T/$name.ab.out")" "$name: stdout"
    done
    # Sessions: ab makes a full handshake on every connection, and so does
    # volley ab unless --tls-resume asks it to resume (nginx's
    # $ssl_session_reused in its log: r or .). With -c 1 each connection
    # opens after the previous one's response, which followed its session
    # ticket: 1 full handshake, then 19 resumed.
    tls_sessions() { # NAME WHO ARGS...: "full resumed" of the run's requests
        local name=$1 who=$2 n0 i
        shift 2
        n0=$(wc -l < "$T/nginx.access")
        one "$who" "$name" "$@"
        for i in $(seq 1 250); do # nginx logs a request just after its response
            [ "$(( $(wc -l < "$T/nginx.access") - n0 ))" -ge 20 ] && break
            sleep 0.02
        done
        tail -n +$((n0 + 1)) "$T/nginx.access" | awk '{ n[$2]++ } END { printf "%d %d\n", n["."], n["r"] }'
    }
    check_eq "$(tls_sessions tls-full ab -n 20 -c 1 "$sname/")" "20 0" "tls-full: ab resumes no session"
    check_eq "$(tls_sessions tls-full v -n 20 -c 1 "$sname/")" "20 0" "tls-full: volley ab resumes no session"
    check_eq "$(tls_sessions tls-resume v --tls-resume -n 20 -c 1 "$sname/")" "1 19" "tls-resume: volley ab --tls-resume resumes"
    check_grep "$T/tls-resume.v.out" '^Complete requests:      20$' "tls-resume: 20 complete"
    # A failed handshake during the run: ab records a 0-byte response for
    # it; volley ab counts a Connect failure (docs/ab.md).
    python3 "$T/tls_flaky.py" "$TLS_CERT" "$TLS_KEY" "$T/flaky.port" &
    TARGET_PIDS+=($!)
    for _ in $(seq 1 250); do [ -s "$T/flaky.port" ] && break; sleep 0.02; done
    one v tls-flaky -n 10 -c 1 "https://127.0.0.1:$(cat "$T/flaky.port")/"
    check_eq "$(cat "$T/tls-flaky.v.rc")" 0 "tls-flaky: volley ab exit status"
    check_grep "$T/tls-flaky.v.out" '^Complete requests:      7$' "tls-flaky: 7 complete"
    check_grep "$T/tls-flaky.v.out" '^   \(Connect: 3, Receive: 0, Length: 0, Exceptions: 0\)$' "tls-flaky: 3 Connect failures"
fi

compare_all
# The median of the Connection Times rows comes from a C selection, not a
# sort: it must agree with a sort.
"$VOLLEY" -q -n 1 -c 1 -s "$(dirname "$TESTLIB")/lua/select_check.lua" "$url/" > "$T/select.out" 2>&1 || true
check_grep "$T/select.out" "^select_pair mismatches[[:space:]]0$" "median selection agrees with a sort"
finish

# HdrHistogram interop: volley's interval log (src/stats/hlog.c, src/stats/hdr_codec.c)
# read by the Java reference implementation (Debian libhdrhistogram-java).
#  - hlog_sample writes a log of seeded distributions in ns, untagged and
#    Tag=service, six intervals each (one of them empty), and prints volley's
#    percentiles of each tag's merged histogram;
#  - HistogramLogProcessor -csv [-tag service] accumulates every interval of
#    the tag: its per-interval counts, total count and total percentiles
#    (50 90 99 99.9 99.99 max, in ms) must agree with volley's within one
#    bucket (1/1024) plus the 3-decimal rounding of its output;
#  - Java's own HistogramLogWriter, given the header times and the histograms
#    Java decoded from volley's log, must write the same text (the blobs are
#    compared decoded, above: deflate output may differ between zlib builds).
# Java is a test dependency (make deps installs it): missing, the test fails.
source "$TESTLIB"
: "${HLOG_SAMPLE:?HLOG_SAMPLE must point to the hlog_sample binary}"

if ! command -v java > /dev/null; then
    echo "$(basename "$0"): java not found: install default-jre-headless (make deps does)" >&2
    exit 1
fi
JAR=""
for j in /usr/share/java/hdrhistogram.jar /usr/share/java/HdrHistogram.jar; do
    if [ -f "$j" ]; then JAR=$j; break; fi
done
if [ -z "$JAR" ]; then
    echo "$(basename "$0"): HdrHistogram jar not found in /usr/share/java:" \
        "install libhdrhistogram-java (make deps does)" >&2
    exit 1
fi

# A zone other than UTC, so the date's zone name is checked too.
if [ -f /usr/share/zoneinfo/America/New_York ]; then export TZ=America/New_York; else export TZ=UTC; fi

RC=0
"$HLOG_SAMPLE" "$T/sample.hlog" > "$T/volley.txt" 2> "$T/sample.err" || RC=$?
check_eq "$RC" 0 "hlog_sample exit status ($(cat "$T/sample.err"))"
check_grep "$T/sample.hlog" '^#\[Histogram log format version 1\.3\]$' "format version line"
check_grep "$T/sample.hlog" '^Tag=service,[0-9.]+,[0-9.]+,[0-9.]+,HISTF' "tagged interval line"

processor() {
    RC=0
    java -cp "$JAR" org.HdrHistogram.HistogramLogProcessor -i "$T/sample.hlog" -csv "$@" \
        > "$T/processor.out" 2>&1 || RC=$?
}
processor -o "$T/java.untagged"
check_eq "$RC" 0 "HistogramLogProcessor (untagged) exit status: $(head -c 300 "$T/processor.out")"
processor -tag service -o "$T/java.service"
check_eq "$RC" 0 "HistogramLogProcessor -tag service exit status: $(head -c 300 "$T/processor.out")"

# One "ok <what>" or "fail <what>" line per check.
python3 - "$T" > "$T/compare.out" <<'PY' || fail "comparison script failed: $(tail -5 "$T/compare.out")"
import csv, sys
T = sys.argv[1]
volley = {}
for line in open(f"{T}/volley.txt"):
    tag, what, value = line.split()
    volley[(tag, what)] = float(value)

def check(ok, what):
    print(("ok " if ok else "fail ") + what)

for tag, expected_counts in (("untagged", [20000] * 6), ("service", [20000] * 3 + [0] + [20000] * 2)):
    rows = [r for r in csv.reader(open(f"{T}/java.{tag}")) if r and not r[0].startswith("#")]
    header, rows = rows[0], rows[1:]
    check(header[:2] == ["Timestamp", "Int_Count"] and header[-1] == "Total_Max",
          f"{tag}: Java's CSV legend {header}")
    check([int(r[1]) for r in rows] == expected_counts,
          f"{tag}: Java's per-interval counts {[r[1] for r in rows]}, expected {expected_counts}")
    last = dict(zip(header, rows[-1]))
    check(int(last["Total_Count"]) == int(volley[(tag, "count")]),
          f"{tag}: total count Java {last['Total_Count']} volley {int(volley[(tag, 'count')])}")
    for col, p in (("Total_50%", "p50"), ("Total_90%", "p90"), ("Total_99%", "p99"),
                   ("Total_99.9%", "p99.9"), ("Total_99.99%", "p99.99"), ("Total_Max", "p100")):
        j, v = float(last[col]), volley[(tag, p)]
        # One bucket (relative 1/1024) plus Java's %.3f rounding.
        tol = v / 1024 + 0.0005 + 1e-9
        check(abs(j - v) <= tol, f"{tag} {p}: Java {j:.3f} ms, volley {v:.6f} ms (tolerance {tol:.4f})")
PY
while read -r status what; do
    if [ "$status" = ok ]; then ok; else fail "$what"; fi
done < "$T/compare.out"
check_eq "$(grep -c . "$T/compare.out")" 18 "number of comparisons"

# Java's HistogramLogWriter writing what Java read from volley's log.
cat > "$T/Rewrite.java" <<'JAVA'
import org.HdrHistogram.*;
import java.io.*;
import java.nio.ByteBuffer;
import java.nio.file.*;
import java.util.*;

public class Rewrite {
    public static void main(String[] args) throws Exception {
        HistogramLogWriter w = new HistogramLogWriter(new PrintStream(new FileOutputStream(args[1])));
        for (String line : Files.readAllLines(Paths.get(args[0]))) {
            if (line.startsWith("#[StartTime: ")) {
                w.outputStartTime(Math.round(Double.parseDouble(line.substring(13).split(" ")[0]) * 1000));
            } else if (line.startsWith("#[BaseTime: ")) {
                w.outputBaseTime(Math.round(Double.parseDouble(line.substring(12).split(" ")[0]) * 1000));
            } else if (line.startsWith("#[Histogram log format version ")) {
                w.outputLogFormatVersion();
            } else if (line.startsWith("#")) {
                w.outputComment(line.substring(1));
            } else if (line.startsWith("\"")) {
                w.outputLegend();
            } else {
                String tag = null;
                if (line.startsWith("Tag=")) {
                    tag = line.substring(4, line.indexOf(','));
                    line = line.substring(line.indexOf(',') + 1);
                }
                String[] f = line.split(",");
                double start = Double.parseDouble(f[0]), length = Double.parseDouble(f[1]);
                Histogram h = Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(f[3])), 0);
                h.setTag(tag);
                w.outputIntervalHistogram(start, start + length, h, 1e6);
            }
        }
        w.close();
    }
}
JAVA
RC=0
java -cp "$JAR" "$T/Rewrite.java" "$T/sample.hlog" "$T/java.hlog" > "$T/rewrite.out" 2>&1 || RC=$?
check_eq "$RC" 0 "Java HistogramLogWriter rewrite: $(head -c 300 "$T/rewrite.out")"
if [ "$RC" = 0 ]; then
    strip() { sed -E 's/,HISTF[A-Za-z0-9+\/=]*$/,<histogram>/' "$1"; }
    if diff <(strip "$T/sample.hlog") <(strip "$T/java.hlog") > "$T/rewrite.diff"; then
        ok
    else
        fail "Java's HistogramLogWriter writes different text: $(head -c 800 "$T/rewrite.diff")"
    fi
    check_eq "$(grep -c . "$T/java.hlog")" 17 "lines in Java's rewrite (5 header + 12 intervals)"
    if cmp -s "$T/sample.hlog" "$T/java.hlog"; then
        echo "note: Java's rewrite is byte-identical, deflated histograms included"
    fi
fi

echo "volley vs Java (ms):"
sed 's/^/  /' "$T/compare.out" | grep -E ' p[0-9.]+:' || true
finish

# docs/examples/distributed/k8s-job.yaml and k8s-launch.sh, offline (no
# cluster is contacted): Debian 12's kubectl is 1.20, older than Indexed
# Jobs, and its dry run needs a cluster's schema. So the manifest is parsed
# (python3-yaml) and its fields checked: an Indexed Job whose completions
# equal its parallelism, the shard from JOB_COMPLETION_INDEX, --start-at,
# --run-id, no restarts, results on a shared volume, and a merge Job on the
# same volume. The launcher's rendered manifest parses, carries the start
# time and run id it printed, and the volley options exactly. Then the pods'
# and the merge Job's commands, expanded as Kubernetes expands $(VAR), run
# here against volley-target (the volume a folder): the merged count is the
# server's.
source "$TESTLIB"
DIR=$(cd "$(dirname "$0")/../../.." && pwd)/docs/examples/distributed

if ! python3 -c 'import yaml' 2> /dev/null; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: python3-yaml is not installed (make test installs it)" >&2
        exit 1
    fi
    echo "$(basename "$0"): skipped: python3 has no yaml module (apt-get install python3-yaml)"
    exit 0
fi

# check_manifest FILE MODE [SHARDS START RUN_ID ARGS_FILE]: the checks on
# the template (MODE raw) or on a rendered manifest (MODE rendered, with
# the values it must carry and the volley options, one a line, NUL-free).
check_manifest() {
    python3 - "$@" <<'PY'
import re, sys, yaml
path, mode = sys.argv[1], sys.argv[2]
docs = [d for d in yaml.safe_load_all(open(path)) if d is not None]
kinds = [(d["apiVersion"], d["kind"]) for d in docs]
assert kinds == [("v1", "PersistentVolumeClaim"), ("batch/v1", "Job"), ("batch/v1", "Job")], kinds
pvc, job, merge = docs
assert "ReadWriteMany" in pvc["spec"]["accessModes"], pvc["spec"]

s = job["spec"]
assert s["completionMode"] == "Indexed", s
assert s["completions"] == s["parallelism"], s
assert s["backoffLimit"] == 0, s
pod = s["template"]["spec"]
assert pod["restartPolicy"] == "Never", pod
(c,) = pod["containers"]
argv = c["command"] + c["args"]
assert argv[0] == "volley", argv
def after(opt):
    assert argv.count(opt) == 1, (opt, argv)
    return argv[argv.index(opt) + 1]
assert re.fullmatch(r"\$\(JOB_COMPLETION_INDEX\)/\$\(SHARDS\)", after("--shard")), argv
assert after("--start-at") == "$(START_AT)", argv
assert after("--run-id") == "$(RUN_ID)", argv
assert after("--json") == "/results/shard-$(JOB_COMPLETION_INDEX).json", argv
env = {e["name"]: e for e in c["env"]}
assert env["JOB_COMPLETION_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"] == \
    "metadata.annotations['batch.kubernetes.io/job-completion-index']", env
for k in ("SHARDS", "START_AT", "RUN_ID"):
    assert isinstance(env[k]["value"], str), env[k]

def results_volume(pod, c):
    (m,) = [m for m in c["volumeMounts"] if m["mountPath"] == "/results"]
    assert m["subPathExpr"] == "$(RUN_ID)", m
    (v,) = [v for v in pod["volumes"] if v["name"] == m["name"]]
    return v["persistentVolumeClaim"]["claimName"]
assert results_volume(pod, c) == pvc["metadata"]["name"]

ms = merge["spec"]
assert "completionMode" not in ms and ms["backoffLimit"] == 0, ms
mpod = ms["template"]["spec"]
assert mpod["restartPolicy"] == "Never", mpod
(mc,) = mpod["containers"]
assert results_volume(mpod, mc) == pvc["metadata"]["name"]
script = mc["command"][-1]
assert "volley merge /results/shard-*.json" in script, script
menv = {e["name"]: e["value"] for e in mc["env"]}

if mode == "rendered":
    shards, start, rid, argsfile = int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
    text = open(path).read()
    assert "${" not in text, re.findall(r"\$\{[^}]*\}", text)
    assert s["completions"] == shards and s["parallelism"] == shards, s
    assert (env["SHARDS"]["value"], env["START_AT"]["value"], env["RUN_ID"]["value"]) == (str(shards), start, rid), env
    assert (menv["SHARDS"], menv["RUN_ID"]) == (str(shards), rid), menv
    assert int(menv["WAIT_UNTIL"]) > int(start), menv
    name = job["metadata"]["name"]
    for n in (name, merge["metadata"]["name"]):
        assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", n) and len(n) <= 63, n
    assert merge["metadata"]["name"] == name + "-merge"
    want = open(argsfile).read().split("\0")[:-1]
    # What the container runs: Kubernetes turns $$ into $ and leaves a
    # $(NAME) of no defined variable as it is.
    def expand(a, env):
        return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                      lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), a)
    got = [expand(a, {}) for a in c["args"][8:]]
    assert got == want, (got, want)
PY
}

# The template as it is in the repository.
if check_manifest "$DIR/k8s-job.yaml" raw; then ok; else fail "k8s-job.yaml: the template's fields"; fi

# Rendered by hand as the template says: envsubst with the list of names.
if command -v envsubst > /dev/null; then
    NAME=volley-hand IMAGE=volley:1 SHARDS=4 START_AT=1767225600 RUN_ID=hand CPU=2 DEADLINE=960 \
        WAIT_UNTIL=1767226500 MERGE_DEADLINE=1260 \
        envsubst '${NAME} ${IMAGE} ${SHARDS} ${START_AT} ${RUN_ID} ${CPU} ${DEADLINE} ${WAIT_UNTIL} ${MERGE_DEADLINE}' \
        < "$DIR/k8s-job.yaml" > "$T/hand.yaml"
    : > "$T/noargs"
    if check_manifest "$T/hand.yaml" rendered 4 1767225600 hand "$T/noargs"; then ok; else fail "envsubst: the rendered manifest"; fi
fi

# The launcher in print mode: the manifest on stdout, a line on stderr.
# The volley options include what YAML and Kubernetes would change if
# copied naively: quotes, a backslash, a tab, a newline, a $(VAR), a '#'.
args=(-n 600 -c 3 -t 1 -H 'X-Odd: "q" \x	$(HOME) #c' -b "$(printf 'l1\nl2')" "http://127.0.0.1:1/")
printf '%s\0' "${args[@]}" > "$T/args"
before=$(date +%s)
RC=0
bash "$DIR/k8s-launch.sh" -n 5 -l 30 -r Run_7.b -- "${args[@]}" > "$T/r.yaml" 2> "$T/r.err" || RC=$?
after=$(date +%s)
check_eq "$RC" 0 "launch: exit status"
start=$(sed -n 's/.* start at \([0-9]*\) (.*/\1/p' "$T/r.err")
check_grep "$T/r.err" "^k8s-launch.sh: run Run_7.b \(Jobs volley-run-7-b and volley-run-7-b-merge\), 5 shards, start at [0-9]+ \(" "launch: the line on stderr"
if [ -n "$start" ] && [ "$start" -ge $((before + 30)) ] && [ "$start" -le $((after + 30)) ]; then ok; else
    fail "launch: start '$start' is not 30 s after the launch ($before .. $after)"; fi
if check_manifest "$T/r.yaml" rendered 5 "$start" Run_7.b "$T/args"; then ok; else fail "launch: the rendered manifest"; fi

# A default run id: allowed characters, and Kubernetes names from it.
RC=0
bash "$DIR/k8s-launch.sh" -- -n 1 "http://127.0.0.1:1/" > "$T/d.yaml" 2> "$T/d.err" || RC=$?
check_eq "$RC" 0 "default id: exit status"
rid=$(sed -n 's/^k8s-launch.sh: run \([^ ]*\) .*/\1/p' "$T/d.err")
if [[ $rid =~ ^[A-Za-z0-9._-]{1,64}$ ]]; then ok; else fail "default id: '$rid'"; fi
printf '%s\0' -n 1 "http://127.0.0.1:1/" > "$T/dargs"
dstart=$(sed -n 's/.* start at \([0-9]*\) (.*/\1/p' "$T/d.err")
if check_manifest "$T/d.yaml" rendered 3 "$dstart" "$rid" "$T/dargs"; then ok; else fail "default id: the rendered manifest"; fi

# Bad launcher options: exit 2 and one line.
for bad in "-n 0" "-n x" "-l soon" "-r has/slash" "--bogus"; do
    RC=0
    # shellcheck disable=SC2086
    bash "$DIR/k8s-launch.sh" $bad -- -n 1 "http://127.0.0.1:1/" > "$T/bad.out" 2> "$T/bad.err" || RC=$?
    check_eq "$RC" 2 "launch $bad: exit status"
    check_eq "$(wc -l < "$T/bad.err")/$(wc -c < "$T/bad.out")" 1/0 "launch $bad: one line on stderr, no manifest"
done

# The pods and the merge Job, run here: each pod's argv with its
# JOB_COMPLETION_INDEX, /results being the run's folder of the volume; the
# pods at once, the merge Job after them. A pod that was not ready by the
# start refuses to start: the machine being slow, not the manifest, so the
# run is made again with twice the lead (three tries).
mkdir -p "$T/bin"
ln -s "$VOLLEY" "$T/bin/volley"
cat > "$T/pods.py" <<'PY'
import re, shlex, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None]
t = sys.argv[2]
_, job, merge = docs
def expand(a, env):
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), a)
def container(spec, index):
    (c,) = spec["template"]["spec"]["containers"]
    env = {}
    for e in c["env"]:
        env[e["name"]] = str(index) if "valueFrom" in e else expand(e["value"], env)
    (m,) = c["volumeMounts"]
    mount = t + "/vol/" + expand(m["subPathExpr"], env)
    argv = [expand(a, env).replace("/results", mount) for a in c["command"] + c.get("args", [])]
    return mount, argv
for i in range(job["spec"]["completions"]):
    mount, argv = container(job["spec"], i)
    print("mkdir -p %s" % shlex.quote(mount))
    print("timeout -s KILL 60 %s > %s 2>&1 &" % (" ".join(map(shlex.quote, argv)), shlex.quote("%s/pod-%d.out" % (t, i))))
print("wait")
mount, argv = container(merge["spec"], None)
print("timeout -s KILL 60 %s" % " ".join(map(shlex.quote, argv)))
PY
lead=2
for _ in 1 2 3; do
    start_target
    rm -rf "$T/vol"
    RC=0
    bash "$DIR/k8s-launch.sh" -n 3 -l "$lead" -w 60 -r k8s-local -- -n 600 -c 3 -t 1 "http://127.0.0.1:$PORT/" \
        > "$T/l.yaml" 2> "$T/l.err" || RC=$?
    python3 "$T/pods.py" "$T/l.yaml" "$T" > "$T/pods.sh"
    MRC=0
    (cd "$T/bin" && PATH=$T/bin:$PATH bash "$T/pods.sh") > "$T/merge.out" 2> "$T/merge.err" || MRC=$?
    RECEIVED=$(target_stat received)
    stop_target
    grep -q 'not starting' "$T"/pod-?.out || break
    echo "local: a pod was not ready by the start ($lead s ahead at most); again with $((lead * 2)) s" >&2
    lead=$((lead * 2))
done
check_eq "$RC" 0 "local: launcher's exit status"
check_eq "$MRC" 0 "local: the merge Job's exit status"
for i in 0 1 2; do
    check_eq "$(jget "$T/vol/k8s-local/shard-$i.json" run.shard)/$(jget "$T/vol/k8s-local/shard-$i.json" run.id)" "$i/k8s-local" "local: pod $i's shard and run id"
    check_eq "$(jget "$T/vol/k8s-local/shard-$i.json" requests.completed)" 200 "local: pod $i's completed requests"
done
check_eq "$(jget "$T/vol/k8s-local/merged.json" requests.completed)" 600 "local: merged completed"
check_eq "$(jget "$T/vol/k8s-local/merged.json" run.shards)" 3 "local: merged run.shards"
check_grep "$T/merge.out" "^  600 requests in [0-9.]+s, " "local: the merged report, the merge Job's log"
if [ -s "$T/vol/k8s-local/merged.html" ]; then ok; else fail "local: no merged.html"; fi
check_eq "$RECEIVED" 600 "local: server received"
finish

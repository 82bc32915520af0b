"""The `volley` that test_doc_examples' examples call (doc_examples.py
puts it first on PATH): it points the URL at the test's servers and
bounds the run, runs the real volley (VOLLEY), and appends what it ran,
its exit status, its stderr and a flow's iterations and checks (from
--json) to DOCX_LOG, one JSON line a call.

    doc_wrap.py ARGS...

Env: VOLLEY, DOCX_TARGET (volley-target's port), DOCX_TLS (a TLS one's),
DOCX_H2C (nghttpd --h2c's, or empty), DOCX_SHOP (doc_shop.py's),
DOCX_WORK (the example's directory), DOCX_START_AT (--start-at's value
for every shard of the example), DOCX_LOG.
"""
import json
import os
import re
import subprocess
import sys

VALUE_OPTS = set("""-c --connections -t --threads -d --duration -n --requests --iterations -R --rate
--max-rps --spin --stages -s --script -H --header -m --method -b --body --body-file --targets --targets-order
-T --timeout --yield-timeout --max-body --heartbeat --json --html --hlog --hlog-interval --threshold
--fail-if --progress --show-errors --seed --source --shard --start-at --run-id --setup-only --setup-data --tls-min --tls-max
--ciphers --ciphersuites --groups --sni --cacert --cert --key --tls-resume --streams
--h2-window""".split())


def number(s):
    m = re.match(r"^(\d+(?:\.\d+)?)([kKmM]?)$", s)
    return float(m.group(1)) * {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6}[m.group(2)] if m else None


def flow_kind(script, work):
    """None (no flow), "flow", or "shop" (a flow that logs in to a shop)."""
    if script == "examples.shop":
        return "shop"
    p = os.path.join(work, script)
    text = open(p).read() if script and os.path.isfile(p) else ""
    if not re.search(r"user\(u\)", text) and not re.search(r"\bscenarios\s*=", text):
        return None
    return "shop" if '"/login"' in text else "flow"


# volley llm's options capped (value at most): a few short streams.
LLM_CAPS = {"--num-prompts": 10, "--max-concurrency": 5, "--random-input-len": 32,
            "--random-output-len": 8, "--input-len": 32, "--output-len": 8}


def rewrite_llm(args, env):
    """volley llm's args: the server is the test's volley-target, the run a few
    short streams (vLLM's options take one value each, but --goodput,
    --header and --metadata's lists, which are kept as they are)."""
    out, i, url = ["llm"], 1, "http://127.0.0.1:" + env["DOCX_TARGET"]
    while i < len(args):
        a = args[i]
        if a == "--":
            out += args[i:]
            break
        if a in LLM_CAPS and i + 1 < len(args):
            out += [a, str(min(int(float(args[i + 1])), LLM_CAPS[a]))]
            i += 2
            continue
        if a == "--base-url" and i + 1 < len(args):
            out += [a, url]
            i += 2
            continue
        out.append(url if re.match(r"^https?://", a) else a)
        i += 1
    if "--num-prompts" not in out:
        out[1:1] = ["--num-prompts", "10"]
    return out


def rewrite(args, env):
    """args with the URL on the test's servers and the run bounded."""
    if args and args[0] == "llm":
        return rewrite_llm(args, env)
    if args[:3] == ["-s", "llm", "--"]:
        return ["-s", "llm", "--"] + rewrite_llm(["llm"] + args[3:], env)[1:]
    if not args or args[0] in ("report", "compare", "merge", "help", "convert") or args[0].startswith("--v") \
            or args[0] in ("-h", "--help"):
        return args
    ab = args[0] == "ab"
    opts = {}
    i, out = (1, ["ab"]) if ab else (0, [])
    while i < len(args):
        a = args[i]
        if a == "--":
            out += args[i:]
            break
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if not ab and name in VALUE_OPTS and not eq and i + 1 < len(args):
            val = args[i + 1]
            i += 1
        elif ab and re.match(r"^-[a-zA-Z]$", a) and a not in ("-k", "-v", "-r", "-S", "-d", "-w", "-i", "-q", "-V", "-h") \
                and i + 1 < len(args):
            val = args[i + 1]
            i += 1
        elif not eq:
            val = None
        opts[name] = val
        out.append((name, val, eq))
        i += 1
    rate = number(opts.get("-R") or opts.get("--rate") or "") or 0
    script = opts.get("-s") or opts.get("--script") or ""
    flow = flow_kind(script, env["DOCX_WORK"])
    fixed, has_bound, url_at = [], False, None
    for x in out:
        if isinstance(x, str):
            fixed.append(x)
            continue
        name, val, eq = x
        if val is None:
            if name.startswith(("http://", "https://")) and url_at is None:
                url_at = len(fixed)
            fixed.append(name)
            continue
        if ab:
            if name == "-n":
                val = str(min(int(number(val)), 100))
            elif name == "-c":
                val = str(min(int(number(val)), 10))
            elif name == "-t":
                val = "1"
        elif name in ("-d", "--duration"):
            val, has_bound = ("5s" if flow else "300ms"), True
        elif name in ("-n", "--requests"):
            cap = max(6, int(rate * 0.3)) if rate else 100
            val, has_bound = str(min(int(number(val)), cap)), True
        elif name == "--iterations":
            val, has_bound = str(min(int(number(val)), 3)), True
        elif name in ("-c", "--connections"):
            val = str(min(int(number(val)), 10))
        elif name in ("-t", "--threads"):
            val = str(min(int(number(val)), 2))
        elif name == "--stages":
            val = ",".join("100ms:%s" % (s.split(":")[1] if rate or "-R" in opts else min(int(s.split(":")[1]), 10))
                           for s in val.split(","))
            has_bound = True
        elif name == "--start-at":
            val = env["DOCX_START_AT"]
        fixed += [name + "=" + val] if eq else [name, val]
    if url_at is not None:
        u = fixed[url_at]
        m = re.match(r"^(https?)://([^/]+)(.*)$", u)
        scheme, host, rest = m.groups()
        if scheme == "https":
            host = re.sub(r":\d+$", "", host) + ":" + env["DOCX_TLS"]
        elif "--h2c" in opts and env.get("DOCX_H2C"):
            host, rest = "127.0.0.1:" + env["DOCX_H2C"], "/"
        else:
            host = "127.0.0.1:" + (env["DOCX_SHOP"] if flow == "shop" else env["DOCX_TARGET"])
        fixed[url_at] = "%s://%s%s" % (scheme, host, rest)
    k = fixed.index("--") if "--" in fixed else len(fixed)
    if not ab and not has_bound and (url_at is not None or script or "--targets" in opts):
        fixed[k:k] = ["-d", "5s" if flow else "300ms"]
    # a script of several scenarios gives its own bounds (--iterations is refused)
    path = os.path.join(env["DOCX_WORK"], script)
    scenarios = flow and os.path.isfile(path) and re.search(r"\bscenarios\s*=", open(path).read())
    if flow and not scenarios and "--iterations" not in opts:   # a flow's sleeps: a few iterations, not a time
        fixed[k:k] = ["--iterations", "2"]
    if flow and "--json" not in opts:
        fixed[k:k] = ["--json", os.path.join(env["DOCX_WORK"], "flow.json")]
    return fixed


def wrap(args):
    env = os.environ
    new = rewrite(args, env)
    for i, a in enumerate(new):   # a script's own URLs (options()) too
        if a.endswith(".lua") and os.path.isfile(a):
            t = open(a).read()
            t2 = re.sub(r"127\.0\.0\.1:8080", "127.0.0.1:" + env["DOCX_TARGET"], t)
            if t2 != t:
                open(a, "w").write(t2)
    try:
        r = subprocess.run([env["VOLLEY"]] + new, stderr=subprocess.PIPE, text=True, timeout=40)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        rc, err = -1, "timed out after 40 s"
    sys.stderr.write(err)
    flow = None
    if "--json" in new and new[new.index("--json") + 1] != "-" and "--iterations" in new:
        try:
            doc = json.load(open(new[new.index("--json") + 1]))
            flow = {"iterations": doc["iterations"], "checks": doc["checks"]}
        except (OSError, ValueError, KeyError, TypeError):
            flow = {}
    with open(env["DOCX_LOG"], "a") as f:
        f.write(json.dumps({"args": args, "ran": new, "rc": rc, "stderr": err[-2000:], "flow": flow}) + "\n")
    return rc if rc >= 0 else 124


if __name__ == "__main__":
    sys.exit(wrap(sys.argv[1:]))

"""Runs the code examples of README.md and docs/*.md, so that an example
that no longer runs fails the suite (test_doc_examples.sh).

    doc_examples.py SRC WORK

An example is a code block (fenced, or indented by 4 blanks):
- a ```lua block that is a whole script (it returns a table, or sets wrk
  globals) is run with volley: by the doc's own command that names it
  (`-s items.lua` after a block the text calls items.lua), else alone
  with -n 20 -c 2 (a flow: --iterations 3). A flow's fragment
  (`u:check(...)`) runs inside a user(u), a done() fragment inside
  done(). A busted spec runs under busted beside the doc's flow SPECS
  names, or else is compiled.
- every `volley ...` command of a shell block (the `$ ` lines when the
  block has them) is run by bash in a directory of its own (the fixtures
  copied: saved results, shards, usage.md's targets file, data files),
  where `volley` is doc_wrap.py: it points the URL at the test's servers
  (volley-target, a TLS one, nghttpd for --h2c, doc_shop.py for the shop
  flows) and bounds the run (-d 300ms, -n <= 100, -c <= 10; a flow
  --iterations <= 3, -d 5s). A block of shell (a for loop, variables) runs as
  one script. Each volley it ran must exit 0 (or 3 with -R, 99 with a
  threshold, or what EXPECT says the example shows) with no Lua error on
  stderr and no note that a --fail-if reads backwards; a flow must
  complete an iteration with no failed iteration and no failed check.
- a command with a placeholder (URL is filled in; I/4, SCRIPT, [options],
  OPTIONS... are not) is a synopsis, not run, but its --options must be
  in `volley help`. SKIP lists what cannot run here, each with its reason.
- every `volley.NAME.` or `volley.NAME(` in the docs names a field of
  the volley table.

Prints one line per failure, "FILE:LINE: what", then the counts; exits 1
if any failed.

Env: VOLLEY, DOCX_TARGET (volley-target's port), DOCX_TLS (a TLS
volley-target's port), DOCX_H2C (nghttpd --h2c's port, or empty).
"""
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# (file, a substring of the command or the block's first line): why it is
# not run here. Keep it short: every entry is an example nobody checks.
SKIP = {
    ("docs/usage.md", "#!/usr/bin/env bash"):
        "a CI script around the user's own service (./bin/my-service, make -C third_party/volley); "
        "its volley command is run on its own",
    ("docs/scripting.md", "-- volley -s shop.lua --allow-host 127.0.0.2:8081"):
        "needs a second server on 127.0.0.2 beside the target: test_flow_hosts.sh runs such flows",
    ("docs/usage.md", "--allow-host 127.0.0.2:8081,auth.test"):
        "a journey.lua the doc does not give, and hosts of the user's own: test_flow_hosts.sh runs such flows",
    ("docs/scripting.md", "package.path = \"./?.lua;\" .. package.path"):
        "a busted spec of a scenario.lua the doc does not give: compiled only",
}

# (file, a spec block's first line): (file, first line of the doc's flow
# it tests, its file name): run under busted next to it.
SPECS = {
    ("docs/scripting.md", "-- VOLLEY_LUA: the lua/ folder of a volley source tree"):
        ("docs/flows-compared.md", "-- shop.lua: volley -s shop.lua", "shop.lua"),
}

# The first line of usage.md's example of a --targets file: the
# examples' targets.txt.
TARGETS_SAMPLE = "# lines beginning with # are comments"

# (file, a substring of the command): exit statuses the example shows,
# besides 0, with the reason.
EXPECT = {
    ("docs/output.md", "/never"): ({1}, "every request times out: no response completed"),
    ("docs/output.md", "/status/503"): ({99}, "the thresholds fail: that is the example"),
    ("docs/output.md", "examples.json_check http://127.0.0.1:32981/ -- bad"):
        ({1}, "every response fails validation: no response completed, exit 1, as the text says"),
    ("docs/scripting.md", "examples.json_check http://127.0.0.1:8080/ -- bad"):
        ({1}, "-- bad asks for broken documents: every response fails, exit 1"),
    ("docs/usage.md", "merge --partial shard-0.json shard-2.json"): ({11}, "a partial merge exits 11, as the text says"),
    ("docs/convert.md", "convert cut.har"): ({1}, "a HAR cut short is refused, exit 1, as the text says"),
}

# (file, a substring of the command): shell run before it in the same
# unit, what the doc's text says was run with it.
WITH = {
    ("docs/output.md", "--shard 1/3 --start-at 1796160617"):
        "for i in 0 2; do volley -q --shard $i/3 --start-at 1796160617 --source 127.0.0.$((i + 2)) "
        "-n 3000 -c 30 --json e$i.json http://127.0.0.1:35653/ & done\n",
}

SYNOPSIS = re.compile(r"^(FILE|SCRIPT|F|N|OPTIONS\.\.\.|\.\.\.|[A-Z]+\.json(\.\.\.)?|[A-Z]+\.hlog\.\.\.|I/\d+)$")
LUA_ERROR = re.compile(r"\.lua:\d+:|in (options|setup|init|connect|request|delay|response|done|user)\(\)|attempt to ")
BACKWARDS = re.compile(r"--fail-if .* fails the (run|comparison) when")


# ---------------------------------------------------------------- blocks

def blocks(path):
    """(tag, first line number, lines) of each code block: fenced (tag
    'lua', 'sh', '' ...) or indented by 4 blanks (tag None)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)```\s*(\w*)", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            ind = len(m.group(1))
            out.append((m.group(2), i + 2, [l[ind:] for l in lines[i + 1:j]]))
            i = j + 1
            continue
        if lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or (not lines[j].strip() and
                                      j + 1 < len(lines) and lines[j + 1].startswith("    "))):
                j += 1
            body = [l[4:] for l in lines[i:j]]
            ind = min((len(l) - len(l.lstrip()) for l in body if l.strip()), default=0)
            out.append((None, i + 1, [l[ind:] for l in body]))
            i = j
            continue
        i += 1
    return out, lines


def lua_name(lines, start, body):
    """The file name the doc gives a Lua block: its first comment's
    (`-- shop.lua: ...`) or the line before it (`` `think.lua`: ``)."""
    m = re.match(r"--\s*([\w./-]+\.lua)\b", body[0]) if body else None
    if m:
        return os.path.basename(m.group(1))
    k = start - 3
    while k >= 0 and not lines[k].strip():
        k -= 1
    m = re.search(r"`([\w./-]+\.lua)`", lines[k]) if k >= 0 else None
    return os.path.basename(m.group(1)) if m and lines[k].rstrip().endswith(":") else None


def commands(body, start):
    """(line, text) of the volley commands of a shell block, continuation
    lines joined. With `$ ` prompts only those lines are commands."""
    prompt = any(l.startswith("$ ") for l in body)
    out, i = [], 0
    while i < len(body):
        l = body[i]
        if prompt:
            l = l[2:] if l.startswith("$ ") else ""
        if re.match(r'^(volley|"\$volley")( |$)', l) and not re.match(r"^volley( \w+)?:|^volley \d", l):
            text, first = l, i
            while text.endswith("\\") and i + 1 < len(body):
                i += 1
                text = text[:-1] + " " + body[i].strip()
            out.append((start + first, text))
        i += 1
    return out


def is_shell_script(body):
    return any(re.match(r"^(for |while |[A-Za-z_]+=)", l) for l in body)


# ---------------------------------------------------------------- running


def recording():
    """convert.md's recording.har: a page, its assets, then two API calls
    half a second later, as Chromium records them (headers included), on
    http://127.0.0.1:8080 (the examples' URL)."""
    browser = [["User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0 Safari/537.36"],
               ["sec-ch-ua-platform", '"Linux"'], ["Sec-Fetch-Mode", "no-cors"],
               ["Accept-Language", "en-US,en;q=0.9"], ["Cookie", "sid=abc"]]
    def entry(ms, rtype, method, path, mime, time_ms, headers=(), post=None, status=200):
        e = {"startedDateTime": "2026-12-08T10:00:%06.3fZ" % (ms / 1000.0), "time": time_ms,
             "_resourceType": rtype,
             "request": {"method": method, "url": "http://127.0.0.1:8080" + path, "httpVersion": "HTTP/1.1",
                         "headers": [{"name": n, "value": v} for n, v in list(headers) + browser],
                         "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1},
             "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1", "headers": [],
                          "cookies": [], "content": {"size": 0, "mimeType": mime}, "redirectURL": "",
                          "headersSize": -1, "bodySize": -1},
             "cache": {}, "timings": {"send": 0, "wait": time_ms, "receive": 0}}
        if post:
            e["request"]["postData"] = {"mimeType": post[0], "text": post[1]}
        return e
    return {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [],
                    "entries": [
        entry(0, "document", "GET", "/", "text/html", 40, [["Accept", "text/html"]]),
        entry(60, "stylesheet", "GET", "/app.css", "text/css", 30),
        entry(61, "script", "GET", "/app.js", "application/javascript", 45),
        entry(62, "image", "GET", "/img/logo.png", "image/png", 25),
        entry(412, "fetch", "GET", "/json/items/2", "application/json", 20, [["Accept", "application/json"]]),
        entry(935, "fetch", "POST", "/login", "application/json", 30,
              [["Content-Type", "application/x-www-form-urlencoded"]], ("application/x-www-form-urlencoded",
                                                                       "user=ann&password=s3cret")),
    ]}}


class Runner:
    def __init__(self, src, work):
        self.src, self.work = src, work
        self.volley = os.environ["VOLLEY"]
        self.fails, self.counts = [], {"commands run": 0, "lua run by a doc command": 0, "scripts run": 0, "fragments run": 0,
                                       "specs run": 0, "compiled": 0, "synopses": 0, "skipped": 0}
        self.skips, self.times, self.synopses, self.helps, self.jobs = [], [], [], {}, []
        os.makedirs(os.path.join(work, "bin"), exist_ok=True)
        wrap = os.path.join(work, "bin", "volley")
        with open(wrap, "w") as f:
            f.write('#!/bin/sh\nexec "%s" -B "%s" "$@"\n' % (sys.executable, os.path.join(HERE, "doc_wrap.py")))
        os.chmod(wrap, 0o755)
        sys.path.insert(0, HERE)
        import doc_shop
        self.shop_server, shop_port = doc_shop.start()
        self.env = dict(os.environ, PATH=os.path.join(work, "bin") + ":" + os.environ["PATH"],
                        DOCX_SHOP=str(shop_port))
        self.fixtures()

    def fail(self, where, what):
        self.fails.append("%s: %s" % (where, what))

    def fixtures(self):
        """The files the examples read: saved results, shards, a targets
        file, data files, a body."""
        w, url = os.path.join(self.work, "fixtures"), "http://127.0.0.1:%s/" % os.environ["DOCX_TARGET"]
        os.makedirs(w)
        def real(*args):
            subprocess.run([self.volley, "-q", "-n", "30", "-c", "3", "-t", "1"] + list(args) + [url],
                           cwd=w, check=True, timeout=60, stdout=subprocess.DEVNULL)
        real("--json", "result.json")
        for name in ("before", "after", "base", "slow", "new", "run"):
            shutil.copy(os.path.join(w, "result.json"), os.path.join(w, name + ".json"))
        for i in range(3):
            real("--shard", "%d/3" % i, "--run-id", "docs", "--json", "shard-%d.json" % i)
            shutil.copy(os.path.join(w, "shard-%d.json" % i), os.path.join(w, "e%d.json" % i))
        # The targets file the examples read is usage.md's example of one.
        sample = [b for b in blocks(os.path.join(self.src, "docs/usage.md"))[0]
                  if b[0] == "" and b[2] and b[2][0] == TARGETS_SAMPLE]
        if len(sample) != 1:
            self.fail("docs/usage.md", "no fenced block begins %r (the targets file's example)" % TARGETS_SAMPLE)
        with open(os.path.join(w, "targets.txt"), "w") as f:
            f.write("\n".join(sample[0][2]).replace("127.0.0.1:8080/", url[7:]) + "\n" if sample else "GET %s\n" % url)
        os.makedirs(os.path.join(w, "bodies"))
        with open(os.path.join(w, "bodies", "item.json"), "w") as f:
            f.write('{"name": "x"}\n')
        shutil.copy(os.path.join(w, "targets.txt"), os.path.join(w, "t.txt"))
        with open(os.path.join(w, "users.csv"), "w") as f:
            f.write("user,password,pass\n" + "".join("user%d,pw-user%d,x%d\n" % (i, i, i) for i in range(1, 21)))
        with open(os.path.join(w, "users.txt"), "w") as f:
            f.write("".join("user%d\n" % i for i in range(1, 21)))
        with open(os.path.join(w, "body.json"), "w") as f:
            f.write('{"id": 1}\n')
        # files the upload examples send (volley.file)
        os.makedirs(os.path.join(w, "photos"))
        for name in ("cat.jpg", os.path.join("photos", "cat.jpg")):
            with open(os.path.join(w, name), "wb") as f:
                f.write(b"\xff\xd8\xff\xe0 not really a JPEG\r\n\0")
        with open(os.path.join(w, "recording.har"), "w") as f:
            json.dump(recording(), f, indent=1)
        with open(os.path.join(w, "recording.har")) as f, open(os.path.join(w, "cut.har"), "w") as g:
            g.write(f.read(300))  # a download cut short

    def skipped(self, doc, first):
        for (d, key), why in SKIP.items():
            if d == doc and key in first:
                return why
        return None

    def run_bash(self, where, script, expect, scripts):
        """Queues script (shell): run_jobs runs it in a directory of its
        own (the fixtures copied) with the wrap as volley."""
        self.jobs.append((where, script, expect, scripts))

    def run_jobs(self):
        """The queued scripts, two at a time; each volley one ran must end
        in an allowed status, with no Lua error."""
        import concurrent.futures
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for fails in pool.map(self.job, range(len(self.jobs))):
                self.fails += fails

    def job(self, k):
        where, script, expect, scripts = self.jobs[k]
        d = os.path.join(self.work, "unit-%d" % k)
        shutil.copytree(os.path.join(self.work, "fixtures"), d)
        for name, text in scripts.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        log = os.path.join(d, "calls.log")
        open(log, "w").close()
        env = dict(self.env, DOCX_START_AT="%.3f" % (time.time() + 3), DOCX_LOG=log, DOCX_WORK=d)
        t0 = time.time()
        try:
            r = subprocess.run(["bash", "-c", script], cwd=d, env=env, timeout=60,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        except subprocess.TimeoutExpired:
            return ["%s: did not end within 60 s" % where]
        self.times.append((time.time() - t0, where))
        calls = [json.loads(l) for l in open(log)]
        shutil.rmtree(d, ignore_errors=True)
        if not calls:
            return ["%s: ran no volley (bash: %s)" % (where, r.stderr.strip()[-300:])]
        fails = []
        for c in calls:
            allowed = {0} | expect
            if "-R" in c["args"] or any(a.startswith(("--rate", "--request-rate")) for a in c["args"]) or \
                    c["args"][:1] in (["merge"], ["report"]):   # -R's rate judged again
                allowed.add(3)
            if any(a.startswith(("--threshold", "--fail-if")) for a in c["args"]):
                allowed.add(99)
            err = c["stderr"]
            what = "%s: volley %s" % (where, shlex.join(c["args"]))
            if c["rc"] not in allowed:
                fails.append("%s: exit %d (%s)" % (what, c["rc"], err.strip()[-400:]))
            elif LUA_ERROR.search(err):
                fails.append("%s: a Lua error: %s" % (what, err.strip()[-400:]))
            elif c["flow"] is not None and not flow_ok(c["flow"]):
                fails.append("%s: a flow that did not pass: %s" % (what, flow_summary(c["flow"])))
            elif BACKWARDS.search(err):
                fails.append("%s: a --fail-if that reads backwards: %s" % (what, err.strip()[-300:]))
        return fails

    def synopsis(self, where, toks):
        """A synopsis is not run, but each --option it names must be one
        that `volley help` (or `volley help COMMAND`) lists."""
        sub = toks[1] if len(toks) > 1 and toks[1] in ("report", "compare", "merge", "ab", "llm", "help", "convert") else ""
        if sub in ("ab", "help"):
            return
        if sub not in self.helps:
            r = subprocess.run([self.volley, "help", sub] if sub else [self.volley, "--help"],
                               capture_output=True, text=True, timeout=30)
            self.helps[sub] = set(re.findall(r"--[a-z][\w.-]*", r.stdout + r.stderr))
        for t in toks:
            m = re.match(r"^\[?(--[a-z][\w.-]*[a-z0-9])", t)
            if m and m.group(1) not in self.helps[sub]:
                self.fail(where, "%s: not an option of volley %s (volley help %s)" % (m.group(1), sub, sub))

    def lua_blocks(self, doc, blks, lines):
        """The Lua blocks of one doc: (line, name, text) in order."""
        out = []
        for tag, start, body in blks:
            if tag == "lua":
                out.append((start, lua_name(lines, start, body), "\n".join(body) + "\n"))
        return out

    def script_for(self, luas, name, line):
        """The doc's block called name nearest before line, else the first after."""
        before = [b for b in luas if b[1] == name and b[0] < line]
        after = [b for b in luas if b[1] == name and b[0] > line]
        return (before[-1] if before else after[0]) if before or after else None

    def doc(self, doc):
        blks, lines = blocks(os.path.join(self.src, doc))
        luas = self.lua_blocks(doc, blks, lines)
        used = set()
        for tag, start, body in blks:
            if tag not in (None, "", "sh", "bash", "console", "shell"):
                continue
            where = "%s:%d" % (doc, start)
            why = self.skipped(doc, body[0] if body else "")
            cmds = commands(body, start)
            if why and not any(c[1].startswith('"$volley"') for c in cmds):
                self.skips.append("%s: %s" % (where, why))
                self.counts["skipped"] += 1
                continue
            if cmds and is_shell_script(body) and not why:
                units = [(start, "\n".join(body), cmds)]
            else:
                units = [(n, t, [(n, t)]) for n, t in cmds]
            for n, script, cs in units:
                where = "%s:%d" % (doc, n)
                text = " ".join(t for _, t in cs)
                why = self.skipped(doc, text)
                for m in re.finditer(r"-s (/\S+)", text):
                    if not os.path.exists(m.group(1)):
                        why = "%s is not installed here (Debian's wrk package)" % m.group(1)
                if "--h2c" in text and not os.environ.get("DOCX_H2C"):
                    why = "--h2c needs an HTTP/2 server (nghttpd), not installed here"
                if why:
                    self.skips.append("%s: %s" % (where, why))
                    self.counts["skipped"] += 1
                    continue
                try:
                    toks = shlex.split(text.replace("$((", "").replace("))", ""), comments=True)
                except ValueError:
                    toks = text.split()
                toks = [t for t in toks if t != "URL"]
                if any(SYNOPSIS.match(t) or t.startswith("[") or t.endswith("]") or "$(" in t and "JOB" in t
                       for t in toks):
                    self.counts["synopses"] += 1
                    self.synopses.append(where)
                    self.synopsis(where, toks)
                    continue
                script = re.sub(r'^"\$volley"', "volley", script, flags=re.M).replace(" URL", " http://127.0.0.1:8080/")
                script = script.replace("127.0.0.1:PORT", "127.0.0.1:8080")
                files = {}
                for m in re.finditer(r"-s\s+(?:\./)?([\w.-]+\.lua)\b", script):
                    b = self.script_for(luas, m.group(1), n)
                    if b:
                        used.add(b[0])
                        files[m.group(1)] = b[2]
                for (d, key), pre in WITH.items():
                    if d == doc and key in text:
                        script = pre + script + "\nwait\n"
                expect = set()
                for (d, key), (codes, _) in EXPECT.items():
                    if d == doc and key in text:
                        expect |= codes
                self.counts["commands run"] += 1
                self.run_bash(where, script, expect, files)
        for start, name, text in luas:
            if start in used:
                self.counts["lua run by a doc command"] += 1
                continue
            self.lua(doc, start, name, text)

    def lua(self, doc, start, name, text):
        where = "%s:%d" % (doc, start)
        why = self.skipped(doc, text.split("\n")[0])
        whole = re.search(r"^return\s+\w+\s*$|^return\s*\{", text, re.M) or \
            re.search(r"^(wrk\.\w+|function (init|request|response|setup|delay|done))\b", text, re.M)
        spec = SPECS.get((doc, text.split("\n")[0]))
        if spec and shutil.which("busted"):
            self.counts["specs run"] += 1
            return self.busted(where, text, spec)
        if why or re.search(r"^describe\(", text, re.M):
            self.counts["compiled"] += 1
            if why:
                self.skips.append("%s: %s" % (where, why))
                self.counts["skipped"] += 1
            return self.compile(where, text)
        name = name or "example-%d.lua" % start
        if whole:
            self.counts["scripts run"] += 1
            bound = "--iterations 3 -c 2" if re.search(r"\.user\(u\)|function user\(u\)", text) else "-n 20 -c 2"
        elif re.search(r"\bu:\w+", text):
            self.counts["fragments run"] += 1
            text = "local s = {}\nfunction s.user(u)\n%send\nreturn s\n" % text
            bound = "--iterations 2 -c 1"
        elif re.search(r"\blatency\(", text):
            self.counts["fragments run"] += 1
            text = "function done(summary, latency, requests)\n%send\n" % text
            bound = "-n 20 -c 2"
        else:
            self.counts["compiled"] += 1
            return self.compile(where, text)
        self.run_bash(where, "volley -t 1 %s -s %s http://127.0.0.1:8080/" % (bound, name), set(), {name: text})

    def busted(self, where, text, spec):
        """Runs a spec under busted, next to the doc's flow it is for."""
        sdoc, first, name = spec
        blks, lines = blocks(os.path.join(self.src, sdoc))
        flow = [b for b in self.lua_blocks(sdoc, blks, lines) if b[2].startswith(first)]
        if len(flow) != 1:
            return self.fail(where, "the flow it tests (%s: %s) is not one block of %s" % (sdoc, first, sdoc))
        d = os.path.join(self.work, "busted")
        os.makedirs(os.path.join(d, "spec"), exist_ok=True)
        with open(os.path.join(d, name), "w") as f:
            f.write(flow[0][2])
        with open(os.path.join(d, "spec", "doc_spec.lua"), "w") as f:
            f.write(text)
        env = dict(os.environ, VOLLEY_LUA=os.path.join(self.src, "lua"))
        r = subprocess.run(["busted", "--lua=luajit", "spec"], cwd=d, env=env, capture_output=True,
                           text=True, timeout=60)
        if r.returncode != 0:
            out = (r.stdout + r.stderr).split("\n")
            at = next((i for i, l in enumerate(out) if "->" in l), 0)
            self.fail(where, "busted: %s" % " | ".join(l.strip() for l in out[at:at + 6] if l.strip())[:500])

    def compile(self, where, text):
        r = subprocess.run(["luajit", "-e", "assert(loadstring(io.read('*a')))"], input=text,
                           text=True, capture_output=True, timeout=30)
        if r.returncode != 0:
            self.fail(where, "does not compile: %s" % r.stderr.strip()[-300:])


def flow_summary(f):
    it, ch = f.get("iterations") or {}, f.get("checks") or {}
    return "iterations %s started, %s completed, %s failed %s; checks %s passed, %s failed %s" % (
        it.get("started"), it.get("completed"), it.get("failed"), json.dumps(it.get("failures"))[:200],
        ch.get("passed"), ch.get("failed"), json.dumps(ch.get("names"))[:200])


def flow_ok(f):
    """A flow's run passed: an iteration completed, none failed, every check passed."""
    it, ch = f.get("iterations") or {}, f.get("checks") or {}
    return it.get("completed", 0) > 0 and it.get("failed") == 0 and ch.get("failed", 0) == 0


def volley_fields(r, docs):
    """Each `volley.NAME.` or `volley.NAME(` the docs use (in code or in
    prose) names a field of the volley table a thread's script sees (read,
    not listed: a field may be loaded at its first read); a module that
    is only require()d (volley.json) is not one."""
    uses = []
    for doc in docs:
        for n, line in enumerate(open(os.path.join(r.src, doc), encoding="utf-8"), 1):
            uses += [(doc, n, name) for name in re.findall(r"\bvolley\.([a-z_]\w*)[.({]", line)]
    names = sorted({u[2] for u in uses})
    keys = os.path.join(r.work, "keys.lua")
    with open(keys, "w") as f:
        f.write("function init()\n  for _, n in ipairs({%s}) do\n"
                "    io.stderr:write('field ', n, ' ', tostring(volley[n] ~= nil), '\\n')\n  end\nend\n"
                % ", ".join('"%s"' % n for n in names))
    p = subprocess.run([r.volley, "-q", "-n", "1", "-c", "1", "-t", "1", "-s", keys,
                        "http://127.0.0.1:%s/" % os.environ["DOCX_TARGET"]], capture_output=True, text=True, timeout=30)
    seen = dict(re.findall(r"^field (\w+) (true|false)$", p.stderr, re.M))
    if set(seen) != set(names):
        return r.fail("volley.*", "the volley table's fields not read: %s" % p.stderr.strip()[-300:])
    for doc, n, name in uses:
        if seen[name] != "true":
            r.fail("%s:%d" % (doc, n), "volley.%s: not a field of the volley table" % name)


def run(src, work):
    r = Runner(src, work)
    docs = ["README.md"] + sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.md")))
    volley_fields(r, docs)
    for doc in docs:
        r.doc(doc)
    r.run_jobs()
    for f in r.fails:
        print("FAIL " + f)
    print("synopses (placeholders, not run): " + " ".join(r.synopses))
    for t, where in sorted(r.times)[-5:]:
        print("slowest: %s %.1f s" % (where, t))
    print("units took %.1f s in all" % sum(t for t, _ in r.times))
    for s in r.skips:
        print("skipped " + s)
    print("doc examples: " + ", ".join("%s %d" % kv for kv in r.counts.items()) + ", failed %d" % len(r.fails))
    return 1 if r.fails else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1], sys.argv[2]))

#!/usr/bin/env bash
# volley llm's requests as the server sees them: POST to the endpoint,
# Content-Type: application/json, Authorization: Bearer from
# OPENAI_API_KEY (the environment only), the --header pairs, an
# X-Request-Id per prompt, volley's User-Agent unless --header gives one,
# and vLLM's body (chat: messages, max_completion_tokens, stream,
# stream_options.include_usage, model, ignore_eos). The server is a few
# lines of Python that keeps each request and answers one token with usage.
source "$TESTLIB"
source "$(dirname "$0")/../llm_lib.sh"

cat > "$T/server.py" <<'PY'
import json, socket, sys, threading
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
open(sys.argv[1], "w").write(str(srv.getsockname()[1]))
out = open(sys.argv[2], "a")
lock = threading.Lock()
chunk = lambda d: "%x\r\n%s\r\n" % (len(d), d)
events = ['data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n',
          'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\n', "data: [DONE]\n\n"]
answer = ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "".join(chunk(e) for e in events) + "0\r\n\r\n").encode()
def serve(c):
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            d = c.recv(65536)
            if not d:
                return
            buf += d
        head, buf = buf.split(b"\r\n\r\n", 1)
        n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
        while len(buf) < n:
            buf += c.recv(65536)
        body, buf = buf[:n], buf[n:]
        with lock:
            out.write(json.dumps({"head": head.decode(), "body": json.loads(body)}) + "\n")
            out.flush()
        c.sendall(answer)
srv.settimeout(30)
while True:
    try:
        c, _ = srv.accept()
    except socket.timeout:
        break
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
/usr/bin/python3 "$T/server.py" "$T/port" "$T/requests" &
TARGET_PIDS+=($!)
wait_port_file "$T/port" "$!" || { echo "server did not start" >&2; exit 1; }
PORT=$(cat "$T/port")

OPENAI_API_KEY=sk-test run_llm h --backend openai-chat --base-url "http://127.0.0.1:$PORT" --model org/m \
    --num-prompts 3 --random-input-len 3 --random-output-len 5 --max-concurrency 1 \
    --header X-A=1 "X-B = two" --request-id-prefix r-
check_eq "$RC" 0 "exit status"
check_eq "$(report_value h 'Successful requests')" 3 "successful"
check_eq "$(report_value h 'Total generated tokens')" 3 "tokens from usage"
UA="volley/$("$VOLLEY" --version | awk 'NR == 1 { print $2 }')"
/usr/bin/python3 - "$T/requests" "$UA" <<'PY' || fail "the requests as sent"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 3, reqs
ids = set()
for r in reqs:
    lines = r["head"].split("\r\n")
    assert lines[0] == "POST /v1/chat/completions HTTP/1.1", lines[0]
    h = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
    assert h["content-type"] == "application/json", h
    assert h["authorization"] == "Bearer sk-test", h
    assert h["x-a"] == "1" and h["x-b"] == "two", h
    agents = [l for l in lines[1:] if l.lower().startswith("user-agent:")]
    assert agents == ["User-Agent: " + sys.argv[2]], agents
    ids.add(h["x-request-id"])
    b = r["body"]
    assert b["model"] == "org/m" and b["stream"] is True and b["stream_options"] == {"include_usage": True}, b
    assert b["max_completion_tokens"] == 5 and b["ignore_eos"] is True, b
    assert b["messages"][0]["role"] == "user" and len(b["messages"][0]["content"].split()) == 3, b
assert ids == {"r-0", "r-1", "r-2"}, ids
PY
ok
# --header User-Agent=... replaces volley's (one User-Agent, the given one).
: > "$T/requests"
run_llm ua --backend openai-chat --base-url "http://127.0.0.1:$PORT" --model org/m \
    --num-prompts 2 --random-input-len 3 --random-output-len 5 --max-concurrency 1 --header user-agent=bench/1
check_eq "$RC" 0 "--header user-agent: exit status"
check_eq "$(grep -o '[Uu]ser-[Aa]gent: [^\]*' "$T/requests" | sort | uniq -c | awk '{ $1 = $1; print }')" \
    "2 user-agent: bench/1" "--header user-agent: replaces volley's"
# The key is never a command-line option.
run_llm key --base-url "http://127.0.0.1:$PORT" --api-key sk-x --num-prompts 1
check_eq "$RC" 2 "--api-key: not an option (exit 2)"
finish

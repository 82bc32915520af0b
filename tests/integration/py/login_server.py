"""A loopback HTTP/1.1 server with a login, for a flow's setup data
(test_flow_setup.sh). Every request adds one line to LOG, written as it
comes (flushed):

    <target> <authorization>

authorization: the Authorization header's value with spaces as '_' (- if
none).

  /login       a new token each time ("tok-1", "tok-2", ...): the body is
               {"token": "tok-N"}
  /fail-login  500, for a setup that fails
  /logout      200; with /login's token, as /api
  /api         200 "ok" with "Authorization: Bearer tok-1" (the first
               login's token), 401 otherwise
  anything else 200 "ok"

Usage: login_server.py PORT_FILE LOG SECONDS (it exits after SECONDS)."""
import itertools
import sys
import threading

from loopback import heads, listen, serve_for

LOGINS = itertools.count(1)
LOCK = threading.Lock()


def response(target, auth):
    """The status and body of target, asked with auth."""
    if target == "/login":
        with LOCK:
            n = next(LOGINS)
        return 200, b'{"token": "tok-%d"}' % n
    if target == "/fail-login":
        return 500, b"no"
    if target in ("/api", "/logout"):
        return (200, b"ok") if auth == "Bearer tok-1" else (401, b"who?")
    return 200, b"ok"


def serve(conn, log):
    try:
        for head in heads(conn, 1 << 20):
            lines = head.split(b"\r\n")
            target = lines[0].split(b" ")[1].decode()
            auth = "-"
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"authorization":
                    auth = value.strip().decode()
            with LOCK:
                log.write("%s %s\n" % (target, auth.replace(" ", "_")))
                log.flush()
            status, body = response(target, auth)
            out = [b"HTTP/1.1 %d X" % status, b"Content-Length: %d" % len(body), b"", body]
            conn.sendall(b"\r\n".join(out))
    except OSError:
        pass
    finally:
        conn.close()


def main():
    ls = listen(sys.argv[1])
    log = open(sys.argv[2], "w")
    serve_for(ls, float(sys.argv[3]), serve, timeout=20, args=(log,))


if __name__ == "__main__":
    main()

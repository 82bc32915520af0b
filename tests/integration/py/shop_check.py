"""Checks a run of examples.shop against the test shop's request log
(apps/shop/app.rb: one line per request, "METHOD PATTERN SID USER VUSER
STATUS") and volley's --json. Prints one line per check that failed and
exits 1 if any did; prints the counts either way.

    shop_check.py LOG JSON USERS
"""
import collections
import json
import sys

# Each request name of examples.shop and the routes its requests reach: a
# followed redirect is counted under its request's name, so "login" is the
# POST and the GET /home it was sent on to.
NAMES = {
    "login": ("POST /login", "GET /home"),
    "item": ("GET /items/:id",),
    "cart": ("POST /cart",),
    "pay": ("POST /checkout",),
}


def read_log(path):
    """The log's lines as (route, sid, user, vuser, status) tuples."""
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != 6:
                raise SystemExit(f"{path}:{n}: expected 6 fields, got {line.rstrip()!r}")
            method, pattern, sid, user, vuser, status = parts
            rows.append((f"{method} {pattern}", sid, user, vuser, int(status)))
    return rows


def main():
    log_path, json_path, users = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rows = read_log(log_path)
    run = json.load(open(json_path))
    names = run.get("names") or {}
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    by_route = collections.Counter(r[0] for r in rows)
    by_route_status = collections.Counter((r[0], r[4]) for r in rows)
    print("log:", len(rows), "lines;", ", ".join(f"{k} {v}" for k, v in sorted(by_route_status.items())))

    # The server and volley saw the same requests: every route's count is
    # its name's, nothing else reached the server, nothing failed.
    completed = run["requests"]["completed"]
    check(run["requests"]["failed"] == 0, f"volley: {run['requests']['failed']} requests failed: {run.get('errors')}")
    check(len(rows) == completed, f"log lines {len(rows)} != volley's completed requests {completed}")
    routes = set()
    for name, name_routes in NAMES.items():
        routes.update(name_routes)
        got = names.get(name, {}).get("requests", {}).get("completed", 0)
        want = sum(by_route[r] for r in name_routes)
        print(f"name {name}: volley {got}, log {want} ({' + '.join(name_routes)})")
        check(got == want, f'name "{name}": volley completed {got}, the log has {want} ({" + ".join(name_routes)})')
    check(set(by_route) <= routes, f"routes no name accounts for: {sorted(set(by_route) - routes)}")

    # Every flow went through: logins answered 303, the rest 200 (no 401:
    # the session cookie always came back; no 409: never an empty cart).
    bad = {k: v for k, v in by_route_status.items() if k[1] != (303 if k[0] == "POST /login" else 200)}
    check(not bad, f"unexpected statuses: {bad}")
    logins = by_route_status[("POST /login", 303)]
    check(logins > 0, "no login succeeded")
    # The redirect after each login was followed, once.
    check(by_route["GET /home"] == logins, f"GET /home {by_route['GET /home']} != successful logins {logins}")
    # One checkout per login (the iteration went through), 1 or 2 cart
    # additions per checkout.
    check(by_route["POST /checkout"] == logins, f"checkouts {by_route['POST /checkout']} != logins {logins}")
    check(logins <= by_route["POST /cart"] <= 2 * logins,
          f"cart additions {by_route['POST /cart']} not within 1 to 2 per login ({logins})")

    # Sessions: every request came with X-Vuser; no session was used by two
    # users; each session belongs to the user who sent it (user<VUSER>), so
    # no user ever sent another's cookie; a new session at each login.
    check(all(r[3] != "-" for r in rows), "a request without X-Vuser")
    vusers_of = collections.defaultdict(set)
    for route, sid, user, vuser, _ in rows:
        if sid == "-":
            continue
        vusers_of[sid].add(vuser)
        check(user == f"user{vuser}", f"{route}: session {sid} of {user} sent by vuser {vuser}")
    shared = {sid: sorted(v) for sid, v in vusers_of.items() if len(v) > 1}
    check(not shared, f"sessions used by two users: {dict(list(shared.items())[:5])}")
    check(len(vusers_of) == logins, f"{len(vusers_of)} sessions for {logins} logins")
    seen = {r[3] for r in rows}
    missing = [i for i in range(1, users + 1) if str(i) not in seen]
    check(not missing, f"vusers never seen: {missing}")
    check(seen <= {str(i) for i in range(1, users + 1)}, f"vusers out of 1..{users}: {sorted(seen)[:5]}")
    print("sessions:", len(vusers_of), "users:", len(seen))

    for f in failures[:20]:
        print("FAIL:", f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

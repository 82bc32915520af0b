# Response framing: chunked, large bodies, read-until-close, HEAD, 1xx, 204,
# 304, non-2xx, HTTP/1.0 requests, keep-alive and --no-keepalive.
source "$TESTLIB"

start_target
url="http://127.0.0.1:$PORT"

run_volley chunked -n 500 -c 5 "$url/chunked/5000"
check_adds_up chunked
check_eq "$(jget "$T/chunked.json" status.200)" 500 "chunked: completed"
check_eq "$(jget "$T/chunked.json" connections_opened)" 5 "chunked: keep-alive kept"

run_volley big -n 50 -c 2 "$url/bytes/300000"
check_adds_up big
check_eq "$(jget "$T/big.json" status.200)" 50 "big body: completed"
check_ge "$(jget "$T/big.json" bytes.read)" 15000000 "big body: bytes read"

run_volley eof -n 100 -c 4 "$url/http10"
check_adds_up eof
check_eq "$(jget "$T/eof.json" status.200)" 100 "read-until-close: completed"
check_eq "$(jget "$T/eof.json" connections_opened)" 100 "read-until-close: a connection each"

run_volley head -n 200 -c 4 -m HEAD "$url/bytes/1000"
check_adds_up head
check_eq "$(jget "$T/head.json" status.200)" 200 "HEAD: completed"
check_eq "$(jget "$T/head.json" connections_opened)" 4 "HEAD: no body expected, keep-alive kept"

run_volley s204 -n 200 -c 4 "$url/status/204"
check_eq "$(jget "$T/s204.json" status.204)" 200 "204: completed"
run_volley s304 -n 200 -c 4 "$url/status/304"
check_eq "$(jget "$T/s304.json" status.304)" 200 "304: completed"
run_volley s404 -n 200 -c 4 "$url/status/404"
check_eq "$(jget "$T/s404.json" status.404)" 200 "404: counted by status"
check_eq "$(jget "$T/s404.json" requests.failed)" 0 "404: not a failure"
check_grep "$T/s404.out" "Non-2xx or 3xx responses: 200" "404: wrk's Non-2xx line"
check_grep "$T/s404.out" "Status 404: 200" "404: status line"

run_volley cont -n 200 -c 4 "$url/continue"
check_adds_up cont
check_eq "$(jget "$T/cont.json" status.200)" 200 "100 Continue: final status counted once"

run_volley nokeep -n 300 -c 5 --no-keepalive "$url/"
check_adds_up nokeep
check_eq "$(jget "$T/nokeep.json" status.200)" 300 "no-keepalive: completed"
check_eq "$(jget "$T/nokeep.json" connections_opened)" 300 "no-keepalive: a connection per request"

run_volley h10 -n 300 -c 5 --http1.0 "$url/"
check_adds_up h10
check_eq "$(jget "$T/h10.json" status.200)" 300 "http1.0: completed"
check_eq "$(jget "$T/h10.json" options.http_version)" 1.0 "http1.0: in options"

run_volley post -n 100 -c 2 -m POST -b 'hello=world' -H 'Content-Type: application/x-www-form-urlencoded' "$url/"
check_adds_up post
check_eq "$(jget "$T/post.json" status.200)" 100 "POST: completed"

check_eq "$(target_stat received)" 2350 "server received every request"
finish

# A flow's u:batch under --http2 against a TLS server whose ALPN picks
# HTTP/1.1 (found while fixing issue 29, item 6): before the handshake the
# user's connection queued several of the batch's items as HTTP/2 streams,
# and the fallback took over only one of them, as the user's own request,
# not as its item: the batch never ended and --iterations never came. Now a
# connection whose handshake has not chosen carries one item, the fallback
# takes it as that item, and the rest go on HTTP/1.1 and the user's lanes.
# volley-target speaks HTTP/1.1 only, so every run here falls back.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/tls_lib.sh"
S=$T/scripts
mkdir -p "$S"
tls_certs
start_target --tls-cert "$TLS_CERT" --tls-key "$TLS_KEY" --log "$T/alpn.log"

cat > "$S/batch.lua" <<'LUA'
local s = {}
function s.user(u)
  local rs = u:batch({ "/a", "/b", "/c", { path = "/d", name = "d" }, "/e", "/f", "/g", "/h" })
  if #rs ~= 8 then u:fail("a batch of 8 gave " .. #rs) end
  for i = 1, #rs do
    if rs[i].status ~= 200 then u:fail("item " .. i .. ": " .. tostring(rs[i].status)) end
  end
end
return s
LUA
for c in 1 3; do
    run_volley "alpn$c" -s "$S/batch.lua" --http2 -c "$c" -t 1 --iterations 12 "https://127.0.0.1:$PORT/"
    check_eq "$RC" 0 "-c $c: exit status"
    check_eq "$(jget "$T/alpn$c.json" iterations.completed)" 12 "-c $c: every iteration completed"
    check_eq "$(jget "$T/alpn$c.json" requests.completed)" 96 "-c $c: every item answered"
    check_eq "$(jget "$T/alpn$c.json" tls.alpn)" "http/1.1" "-c $c: the handshakes fell back to HTTP/1.1"
done
stop_target
check_eq "$(wc -l < "$T/alpn.log")" 192 "the server's log holds every request"
finish

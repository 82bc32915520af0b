-- Marks an LLM server's streamed tokens (tests/integration/py/sse_server.py):
-- every "tok" event is one output token, the usage event gives the
-- server's count ({"usage": N}) and 3 prompt tokens, "[DONE]" is neither.
-- done() prints the stream figures it is given (test_stream_report.sh).
local s = {}

function s.event(conn, ev)
  if ev.data == "[DONE]" then return end
  local usage = ev.data:match('"usage": (%d+)')
  if usage then
    ev.total_tokens = tonumber(usage)
    ev.prompt_tokens = 3
    return
  end
  ev.tokens = 1
end

function s.done(r)
  local st = r.stream
  print(("done: streams %d events %d tokens %d/%d ttft %d itl %d tpot %d e2el %d per_stream %d..%d cpu %s"):format(
    st.streams, st.events, st.tokens_out, st.tokens_in, st.ttft.count, st.itl.count, st.tpot.count,
    st.e2el.count, st.events_per_stream.min, st.events_per_stream.max,
    tostring(r.cpu.seconds >= 0 and r.cpu.share >= 0 and r.cpu.share <= 1)))
end

return s

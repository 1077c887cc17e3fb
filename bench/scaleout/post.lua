-- wrk: POST one GraphQL query (bench/scaleout/run.sh). Every answer's body
-- is checked (wrk counts only non-2xx statuses); each thread counts its
-- wrong answers, summed by done() from the threads' states.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"query":"{ hero { name friends { name } } }"}'
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
bad = 0
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"name":"R2-D2"', 1, true) then
    bad = bad + 1
  end
end
function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do
    total = total + t:get("bad")
  end
  io.write(string.format("wrong answers: %d\n", total))
end

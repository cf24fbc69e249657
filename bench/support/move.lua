-- wrk script of bench/reference.py: every wrk thread has one connection and plays one Tally game,
-- its two seats alternating. GAMES_FILE lines: "game_id token0 token1 version seat_to_move".
-- MODE: "move" (POST move), "key" (POST move with a fresh Idempotency-Key), "ref" (the reference).
-- MAX_REQUESTS per thread (0: until the duration ends).
local games, counter = {}, 0
for line in io.lines(os.getenv("GAMES_FILE")) do
  local g, t0, t1, v, s = line:match("(%S+) (%S+) (%S+) (%d+) (%d+)")
  games[#games + 1] = { id = g, tokens = { t0, t1 }, version = tonumber(v), seat = tonumber(s) }
end
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
  table.insert(threads, thread)
end

local game, mode, sent, limit, bad, run

function init(args)
  game = games[index]
  mode = os.getenv("MODE") or "move"
  limit = tonumber(os.getenv("MAX_REQUESTS") or "0")
  run = os.getenv("RUN_ID") or "run"  -- keys are unique across runs: a reused key would replay
  sent, bad = 0, 0
end

function request()
  sent = sent + 1
  if mode == "ref" then
    return wrk.format("POST", "/ref", { ["Content-Type"] = "application/json" },
      '{"move":{"type":"add"},"expected_version":' .. sent .. '}')
  end
  local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. game.tokens[game.seat + 1],
  }
  if mode == "key" then headers["Idempotency-Key"] = run .. "-" .. index .. "-" .. sent end
  return wrk.format("POST", "/v1/games/" .. game.id .. "/moves", headers,
    '{"move":{"type":"add"},"expected_version":' .. game.version .. '}')
end

function response(status, headers, body)
  if mode ~= "ref" then
    local version
    for v in body:gmatch('"version":%s*(%d+)') do version = tonumber(v) end
    if status == 201 then
      game.version = version
      game.seat = 1 - game.seat
    else
      bad = bad + 1
      if version then game.version = version end
    end
  end
  if limit > 0 and sent >= limit then wrk.thread:stop() end
end

function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  -- the latency histogram, [microseconds, count] per distinct value: bench/reference.py merges the
  -- histograms of a mode's short runs and takes its percentiles from the whole
  local histogram = {}
  for i = 1, #latency do
    local value, count = latency(i)
    histogram[#histogram + 1] = string.format("[%d,%d]", value, count)
  end
  io.write(string.format(
    '{"requests":%d,"duration_s":%.3f,"per_s":%.1f,"p50_ms":%.2f,"p99_ms":%.2f,"errors":%d,"latency_us":[%s]}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors, table.concat(histogram, ",")))
end

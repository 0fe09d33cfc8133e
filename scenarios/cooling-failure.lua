-- A cooling failure mid-run: the rack heats up, the GPUs throttle, and recover when cooling returns
local P = mlviz.params{
  { "loss", 1.0, "share of the rack's cooling lost" },
  { "fail_at", "10m", "when the cooling fails" },
  { "restore_at", "25m", "when it comes back" },
  { "duration", "45m", "simulated time" },
}
local story = require("story")
local plot = require("plot")
say("Four 8-GPU servers share a rack with a rear-door heat exchanger.")
focus("infrastructure")
local s = mlviz.load("default"):set{ name = "4 DGX H100 in a rear-door rack", cluster = { nodes = 4 }, training = { global_batch = 256 },
  facility = { cooling = "rear-door", nodes_per_rack = 4 } }
local sim = mlviz.sim(s, { seed = mlviz.seed, thermal = true })
local log = {}
sim:at(P.fail_at, { event = "cooling_loss", value = P.loss })
sim:at(P.fail_at, function(x) log[#log + 1] = string.format("%s: cooling lost", mlviz.format_duration(x:time())) end)
sim:at(P.restore_at, { event = "cooling_restore" })
sim:at(P.restore_at, function(x) log[#log + 1] = string.format("%s: cooling restored", mlviz.format_duration(x:time())) end)
sim:run(P.fail_at)
local before = sim:counters()
mark("cooling fails")
say(string.format("At %s the rack loses %s of its cooling.", P.fail_at, story.pct(P.loss)))
-- Halfway through the outage: what limits the run now, said the way the
-- screen decides it (the racks throttling below the steady state's clocks
-- make the infrastructure the live bottleneck).
local fail_s, restore_s = mlviz.parse_duration(P.fail_at), mlviz.parse_duration(P.restore_at)
local half_s = (restore_s - fail_s) / 2
sim:run(half_s)
local steady = s:eval()
local thr_now, temp_now = sim:series("throttle"), sim:series("rack_temp_c")
thr_now, temp_now = thr_now[#thr_now] or 1, temp_now[#temp_now] or 0
if thr_now < steady.power.throttle_factor - 0.01 then
  say(string.format("Halfway through the outage the rack is at %.0f C and the GPUs run at %s of their clocks: "
    .. "the bottleneck is infrastructure (the rack cannot shed the heat; with cooling it would be the %s).",
    temp_now, story.pct(thr_now), steady.bottleneck))
else
  say(string.format("Halfway through the outage the rack is at %.0f C, still under its limit: %s.",
    temp_now, story.verdict(steady)))
end
show(sim) -- the picture is this run, not a fresh one of the setup just evaluated
pause()
sim:run(restore_s - fail_s - half_s)
local during = sim:counters()
mark("cooling restored")
say("Cooling is back. Watch the temperature fall and the clocks recover.")
sim:run(mlviz.parse_duration(P.duration) - mlviz.parse_duration(P.restore_at))
local c = sim:counters()
for _, line in ipairs(log) do print(line) end
plot.series(sim:series("rack_temp_c"), { title = "rack temp C" })
plot.series(sim:series("throttle"), { title = "speed kept " })
plot.series(sim:series("tokens_per_s"), { title = "tokens/s   " })
local thr = sim:series("throttle")
local min_thr = math.huge
for _, v in ipairs(thr) do min_thr = math.min(min_thr, v) end
local lost_tokens = (before.tokens / before.time_s) * c.time_s - c.tokens
story.conclude("the rack peaked at %.1f C, the GPUs ran throttled for %s (down to %s of full speed) and the run lost about %s tokens (%s of the work)",
  c.max_rack_temp_c, mlviz.format_duration(c.throttled_s), story.pct(min_thr),
  mlviz.format_si(math.max(lost_tokens, 0), ""), story.pct(math.max(lost_tokens, 0) / (c.tokens + math.max(lost_tokens, 0))))
return { throttled_s = c.throttled_s, max_temp_c = c.max_rack_temp_c, min_throttle = min_thr,
         throttled_during = during.throttled_s > before.throttled_s }

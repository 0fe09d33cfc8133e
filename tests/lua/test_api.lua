-- API tests: each check prints PASS or FAIL (run by tests/lua/run.sh).
local failed = 0
local function check(name, cond, why)
  if cond then print("PASS lua api: " .. name) else failed = failed + 1; print("FAIL lua api: " .. name .. ": " .. tostring(why)) end
end
local function raises(name, fn, pattern)
  local ok, err = pcall(fn)
  check(name, not ok and tostring(err):find(pattern), ok and "no error" or err)
end

-- setups
local s = mlviz.load("default")
check("load preset", s:get("cluster.nodes") == 1, s:get("cluster.nodes"))
check("get string", s:get("cluster.node.accelerator") == "h100-sxm", s:get("cluster.node.accelerator"))
check("get bool", s:get("training.flash_attention") == true)
check("get auto", s:get("cluster.storage_bw_gbs") == "auto", s:get("cluster.storage_bw_gbs"))
check("set chains", s:copy():set("cluster.nodes", 4):set("training.global_batch", 256):get("cluster.nodes") == 4)
local c = s:copy(); c:set("cluster.nodes", 2)
check("copy is independent", s:get("cluster.nodes") == 1 and c:get("cluster.nodes") == 2)
check("set table form", s:copy():set{ cluster = { nodes = 3 }, ["training.global_batch"] = 96 }:get("training.global_batch") == 96)
raises("set unknown field suggests", function() s:set("cluster.nodez", 2) end, "did you mean 'cluster.nodes'")
raises("set out of range", function() s:copy():set("training.zero_stage", 7) end, "training.zero_stage")
raises("set bad enum", function() s:copy():set("training.precision", "fp7") end, "training.precision")
raises("error names the script line", function() s:set("cluster.nodez", 2) end, "test_api.lua:%d+: set:")
local built = mlviz.setup{ cluster = { nodes = 2, node = { accelerator = "a100-sxm-80gb" } }, training = { global_batch = 64 } }
check("setup from table", built:get("cluster.node.accelerator") == "a100-sxm-80gb" and built:get("cluster.nodes") == 2)
check("setup from preset table", mlviz.setup{ preset = "gpt3-175b-a100" }:get("cluster.nodes") == 128)
raises("setup unknown key", function() mlviz.setup{ clusterr = { nodes = 1 } } end, "unknown field")
raises("load missing preset", function() mlviz.load("nope") end, "no preset 'nope'")
raises("load outside sandbox", function() mlviz.load("/etc/passwd.yaml") end, "sandbox")

-- eval has the fields of `mlviz eval --format json`
local r = s:eval()
for _, k in ipairs{ "step_time_s", "tokens_per_s", "mfu", "bottleneck", "bottleneck_reason" } do
  check("eval has " .. k, r[k] ~= nil)
end
for _, k in ipairs{ "layout", "breakdown_s", "utilization", "stages", "memory", "suggestions", "power", "cost", "reliability", "checks" } do
  check("eval has section " .. k, type(r[k]) == "table")
end
check("eval memory fits", r.memory.fits == true)
check("eval devices", r.layout.devices == 8)
local sum = 0
for _, v in pairs(r.breakdown_s) do sum = sum + v end
check("breakdown adds up to the step", math.abs(sum - r.step_time_s) < 1e-6 * r.step_time_s + 1e-9, sum .. " vs " .. r.step_time_s)
-- The report fills itself as it is read (engine/lua/lua_report.c): each
-- figure read alone from a fresh report is the figure of a whole one, a
-- group read after a figure is whole, and pairs() lists every field.
local whole, count, differ = {}, 0, nil
for k, v in pairs(s:eval()) do whole[k] = v; count = count + 1 end
local scalars = 0
for k, v in pairs(whole) do
  if type(v) ~= "table" then
    scalars = scalars + 1
    if s:eval()[k] ~= v then differ = k .. ": " .. tostring(s:eval()[k]) .. " vs " .. tostring(v) end
  end
end
check("a report read one figure at a time has the whole report's figures", scalars > 10 and differ == nil, differ)
local lazy = s:eval()
local _ = lazy.tokens_per_s
check("a group read after a figure is whole", lazy.memory.fits == whole.memory.fits and #lazy.suggestions == #whole.suggestions)
local listed = 0
local lazy2 = s:eval(); _ = lazy2.mfu
for _ in pairs(lazy2) do listed = listed + 1 end
check("pairs lists every field of a report read in part", listed == count, listed .. " of " .. count)
local mine = s:eval(); mine.tokens_per_s = -1
check("a value set in a report stays when it fills", mine.tokens_per_s == -1 and mine.memory ~= nil and mine.tokens_per_s == -1)
raises("eval of an unrunnable layout", function() s:copy():set("training.tensor_parallel", 3):eval() end, "eval:")
local ok, msg = s:copy():set("training.tensor_parallel", 3):check()
check("check returns nil, message", ok == nil and type(msg) == "string", msg)

-- catalog
check("catalog number", mlviz.catalog.accelerators["h100-sxm"].bf16_tflops > 900)
check("catalog string", mlviz.catalog.links.nvlink4.kind == "nvlink")
raises("catalog is read-only", function() mlviz.catalog.accelerators["h100-sxm"].bf16_tflops = 1 end, "read%-only")
raises("catalog unknown id suggests", function() return mlviz.catalog.accelerators["h100-sxn"] end, "did you mean 'h100%-sxm'")
check("catalog absent value is nil", mlviz.catalog.accelerators["v100-sxm2-32gb"].bf16_tflops == nil)
local n = 0
for id, e in pairs(mlviz.catalog.accelerators) do n = n + 1; assert(e.id == id) end
check("catalog pairs in order", n == #mlviz.catalog.accelerators and n > 10, n)

-- sweeps
local rows = mlviz.sweep(s, { { "training.micro_batch", { 1, 2 } }, { "training.precision", { "bf16", "fp8" } } },
  { fields = { "tokens_per_s", "memory.per_device_gb" } })
check("sweep size", #rows == 4, #rows)
check("sweep odometer order", rows[1]["training.micro_batch"] == 1 and rows[2]["training.precision"] == "fp8" and rows[3]["training.micro_batch"] == 2)
check("sweep matches eval", math.abs(rows[2].tokens_per_s - s:copy():set("training.precision", "fp8"):eval().tokens_per_s) < 1e-6)
check("sweep columns", rows.columns[1] == "training.micro_batch" and rows.columns[4] == "memory.per_device_gb")
local map = mlviz.sweep(s, { ["cluster.nodes"] = { 1, 2 } })
check("sweep map form and default fields", #map == 2 and map[1].bottleneck ~= nil)
local bad = mlviz.sweep(s, { { "training.tensor_parallel", { 1, 3 } } })
check("sweep keeps unrunnable rows", bad[2].runnable == false and type(bad[2].error) == "string")
raises("sweep unknown result field", function() mlviz.sweep(s, { ["cluster.nodes"] = { 1 } }, { fields = { "mfuu" } }) end, "no result field 'mfuu'")
-- sweep values go into the setup exactly as set() puts them: booleans, "auto",
-- numbers as text for a text field, and the same errors
local kinds = mlviz.sweep(s, { { "training.sequence_parallel", { true, false } }, { "cluster.storage_bw_gbs", { "auto", 50 } } },
  { fields = { "tokens_per_s" } })
local function via_set(sp, bw) return s:copy():set("training.sequence_parallel", sp):set("cluster.storage_bw_gbs", bw):eval().tokens_per_s end
check("sweep booleans and auto as set", #kinds == 4 and kinds[1].tokens_per_s == via_set(true, "auto")
  and kinds[4].tokens_per_s == via_set(false, 50), kinds[4] and kinds[4].tokens_per_s)
raises("sweep value of a bad type", function() mlviz.sweep(s, { ["cluster.nodes"] = { {} } }) end,
  "sweep: value for 'cluster.nodes' must be a number, string or boolean %(got table%)")
raises("set value of a bad type", function() s:copy():set("cluster.nodes", {}) end,
  "set: value for 'cluster.nodes' must be a number, string or boolean %(got table%)")
raises("sweep value out of range", function() mlviz.sweep(s, { ["training.zero_stage"] = { 7 } }) end, "sweep: training.zero_stage: ")
raises("sweep unknown axis suggests", function() mlviz.sweep(s, { ["cluster.nodez"] = { 1 } }) end, "sweep: .*did you mean 'cluster.nodes'")

-- output
mlviz.print_table(rows)
local path = mlviz.write_csv("api.csv", rows)
check("write_csv returns the path", path:find("api.csv", 1, true))
check("write_json", mlviz.write_json("api.json", { a = 1, b = { 1, 2, 3 }, c = "x" }):find("api.json", 1, true))

-- sims
local sim = mlviz.sim(s, { seed = 7 })
local called = 0
sim:at(2, function(x) called = called + 1; check("callback gets the sim", x:time() >= 2) end)
sim:at("3s", { event = "set", path = "data.loader_workers_per_device", value = 2 })
sim:run(5)
check("sim callback ran once", called == 1, called)
check("sim event applied", sim:setup():get("data.loader_workers_per_device") == 2)
local cnt = sim:counters()
check("sim counters time", math.abs(cnt.time_s - 5) < 1e-6, cnt.time_s)
-- derived counters, as `mlviz sim` prints them: 1 kWh = 3.6e6 J
check("sim counters energy_kwh", cnt.energy_j > 0 and math.abs(cnt.energy_kwh - cnt.energy_j / 3.6e6) <= 1e-12 * cnt.energy_j, cnt.energy_kwh)
local long = mlviz.sim(s, { seed = 1 }):run(120):counters()
check("sim counters tokens_per_s", long.tokens > 0 and math.abs(long.tokens_per_s - long.tokens / long.time_s) <= 1e-9 * long.tokens_per_s, long.tokens_per_s)
check("sim counters avg_facility_kw", math.abs(cnt.avg_facility_kw - cnt.energy_j / cnt.time_s / 1e3) <= 1e-9 * cnt.avg_facility_kw, cnt.avg_facility_kw)
check("sim series length", #sim:series("tokens_per_s") >= 4, #sim:series("tokens_per_s"))
raises("sim unknown series suggests", function() sim:series("tokens_per_sec") end, "did you mean 'tokens_per_s'")
raises("sim unknown event suggests", function() sim:at(1, { event = "fail_devise" }) end, "did you mean 'fail_device'")
raises("sim bad duration", function() sim:run("5 parsecs") end, "bad duration")
raises("sim unknown option", function() mlviz.sim(s, { seeed = 1 }) end, "did you mean 'seed'")
local a = mlviz.sim(s, { seed = 3, jitter = true }):run(20):counters()
local b = mlviz.sim(s, { seed = 3, jitter = true }):run(20):counters()
check("sim is deterministic", a.tokens == b.tokens and a.steps == b.steps)
-- Headless, without tick_s, the tick is automatic (sim_auto_tick): GPT-3's
-- 30 s steps run at a coarse tick whose results are a ten times finer
-- tick's; an explicit tick_s stays; runs of a part of a tick add up.
local g = mlviz.load("gpt3-175b-a100")
local auto_sim = mlviz.sim(g, { seed = 2 })
local tick, auto = auto_sim:tick()
check("sim tick automatic headless", auto == true and tick >= 0.1, tick)
local fine_sim = mlviz.sim(g, { seed = 2, tick_s = tick / 10 })
local fine_tick, fine_auto = fine_sim:tick()
check("sim tick_s given stays", fine_auto == false and fine_tick == tick / 10, fine_tick)
local ca, cf = auto_sim:run("2h"):counters(), fine_sim:run("2h"):counters()
check("sim automatic tick leaves the results", ca.steps == cf.steps and math.abs(ca.tokens - cf.tokens) <= 1e-4 * cf.tokens
  and math.abs(ca.energy_j - cf.energy_j) <= 1e-4 * cf.energy_j, ca.tokens .. " vs " .. cf.tokens)
for _ = 1, 10 do auto_sim:run(tick / 10) end
check("sim runs of a tenth of a tick add up to one", math.abs(auto_sim:time() - (7200 + tick)) < 1e-6, auto_sim:time())

-- sandbox
check("math.random is seeded", (function() math.randomseed(); local x = math.random(); math.randomseed(); return x == math.random() end)())
raises("undeclared global read", function() return undefined_thing end, "undeclared global 'undefined_thing'")
check("os.clock allowed", type(os.clock()) == "number")
raises("load binary mode refused", function() load("return 1", "x", "b") end, "binary")
check("load text works", load("return 1 + 1")() == 2)
local helper = require("story")
check("require scripts/", type(helper.conclude) == "function")
check("require is cached", require("story") == helper)
check("hooks are harmless headless", pcall(function() say("hello"); pause(); focus("data"); focus(5); mark("m") end))
raises("focus bad stage", function() focus("dta") end, "did you mean 'data'")
check("duration parse", mlviz.parse_duration("2h") == 7200)
check("collective", (mlviz.collective("all-reduce", "ring", 1e9, { devices = 8 })) > 0)
raises("an option out of range names its range", function()
  return mlviz.collective("all-reduce", "ring", 1e9, { devices = 0 })
end, "option 'devices' must be within 1%.%.1e%+08 %(got 0%)")
check("fields", #mlviz.fields() > 30)

-- serving
local inf = s:infer()
check("infer report", inf.runnable == true and inf.ttft_s > 0 and inf.layout.software == "vllm", inf.why_not)
local one, many = s:infer{ batch = 1 }, s:infer{ batch = 64 }
check("infer settings apply to a copy", s:get("inference.batch") == "auto" and one.batch == 1 and many.batch == 64)
check("infer batch buys throughput with latency", many.output_tokens_per_s > 8 * one.output_tokens_per_s and many.tpot_s > one.tpot_s)
raises("infer unknown setting", function() s:infer{ bacth = 2 } end, "did you mean 'inference.batch'")
raises("infer bad layout", function() s:infer{ tensor_parallel = 3 } end, "inference.tensor_parallel")

if failed > 0 then error(failed .. " API checks failed") end

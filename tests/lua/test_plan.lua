-- mlviz.plan and setup:eval with names (run by tests/lua/run.sh): the
-- planner's top 10 equals an exhaustive Lua sweep over the same space.
local failed = 0
local function check(name, cond, why)
  if cond then print("PASS lua plan: " .. name) else failed = failed + 1; print("FAIL lua plan: " .. name .. ": " .. tostring(why)) end
end
local function raises(name, fn, pattern)
  local ok, err = pcall(fn)
  check(name, not ok and tostring(err):find(pattern), ok and "no error" or err)
end

local s = mlviz.load("default")

-- setup:eval with names returns the same values as the whole report.
local full = s:eval()
local tps, fits, days, bn = s:eval("tokens_per_s", "memory.fits", "cost.days_to_train", "bottleneck")
check("eval names: numbers", tps == full.tokens_per_s and days == full.cost.days_to_train, tps)
check("eval names: boolean and string", fits == full.memory.fits and bn == full.bottleneck, bn)
local a, b = s:eval{ "mfu", "power.facility_kw" }
check("eval names as an array", a == full.mfu and b == full.power.facility_kw, a)
raises("eval unknown name", function() s:eval("tokens_per_sec") end, "no result field 'tokens_per_sec'")
raises("eval name of a wrong type", function() s:eval(3) end, "must be strings")

-- The space the planner searches for 8 GPUs with micro-batches 1, 2, 4, in
-- its own order (the last field turns fastest).
local function divisors(n, max)
  local d = {}
  for k = 1, math.min(n, max or n) do if n % k == 0 then d[#d + 1] = k end end
  return d
end
local has_cp = pcall(s.get, s, "training.context_parallel")
local dims = { { "training.tensor_parallel", divisors(8) } }
local vary = { "training.micro_batch=1,2,4" }
if has_cp then -- context parallelism joins when the model has it
  dims[#dims + 1] = { "training.context_parallel", { 1, 2 } }
  vary[#vary + 1] = "training.context_parallel=1,2"
end
for _, d in ipairs{
  { "training.pipeline_parallel", divisors(8) },
  { "training.virtual_stages", divisors(s:get("model.layers"), 64) },
  { "training.micro_batch", { 1, 2, 4 } },
  { "training.recompute", { "none", "selective", "full" } },
  { "training.zero_stage", { 0, 1, 2, 3 } },
  { "training.sequence_parallel", { false, true } },
  { "training.flash_attention", { false, true } },
  { "training.overlap_grad_sync", { false, true } },
} do dims[#dims + 1] = d end
local rows, index = {}, 0
local digit = {}
for i = 1, #dims do digit[i] = 1 end
local c = s:copy()
repeat
  for i, d in ipairs(dims) do c:set(d[1], d[2][digit[i]]) end
  if c:check() then
    local t, run, dd = c:eval("tokens_per_s", "runnable", "cost.days_to_train")
    if run and dd > 0 and t > 0 then rows[#rows + 1] = { tps = t, index = index } end
  end
  index = index + 1
  local i = #dims
  while i >= 1 do
    digit[i] = digit[i] + 1
    if digit[i] <= #dims[i][2] then break end
    digit[i] = 1
    i = i - 1
  end
until i == 0
table.sort(rows, function(x, y)
  if x.tps ~= y.tps then return x.tps > y.tps end
  return x.index < y.index
end)
-- The closed form's ranking (rescore = false) is the sweep's; the default
-- re-scores the best rows by the step-schedule simulator.
local plan = mlviz.plan(s, { vary = vary, top = 10, threads = 2, rescore = false })
check("plan counts the same space", plan.candidates == index, plan.candidates .. " vs " .. index)
check("plan counts the same runnable configurations", plan.runnable == #rows,
  plan.runnable .. " vs " .. #rows)
local same = #plan.top == 10
for k = 1, math.min(10, #plan.top) do
  same = same and plan.top[k].tokens_per_s == rows[k].tps
end
check("top 10 equals an exhaustive Lua sweep", same, #plan.top)
local best = plan.top[1]
check("a ranked setup reproduces its figures", best.setup:eval("tokens_per_s") == best.tokens_per_s
  and best.setup:eval("cost.days_to_train") == best.days)
local rescored = mlviz.plan(s, { vary = vary, top = 3, threads = 2 })
local r1 = rescored.top[1]
check("re-scored rows carry the simulated step and the closed form's",
  r1.simulated_step_s == r1.step_time_s and r1.closed_form_step_s == r1.setup:eval("step_time_s")
  and best.simulated_step_s == nil, r1.simulated_step_s)
raises("plan bad rescore", function() mlviz.plan(s, { rescore = 1 }) end, "rescore must be true or false")
local changed = 0
for path, v in pairs(best.changes) do
  changed = changed + 1
  if best.setup:get(path) ~= v then changed = -100 end
end
check("changes match the ranked setup", changed >= 0, changed)
check("base rank counts better runnable configurations", plan.base.rank >= 1 and plan.base.runnable)
check("front is non-empty and sorted by days", #plan.front >= 1 and
  (not plan.front[2] or plan.front[1].days <= plan.front[2].days))

-- Constraints and bad options.
local limited = mlviz.plan(s, { vary = { ["training.micro_batch"] = { 1, 2 } },
  max = { memory_gb = 40 }, objective = "days", top = 50 })
local ok = #limited.top > 0
for _, r in ipairs(limited.top) do ok = ok and r.memory_gb <= 40 end
check("max holds on every row", ok, #limited.top)
raises("plan unknown option", function() mlviz.plan(s, { bogus = 1 }) end, "unknown option 'bogus'")
raises("plan bad objective", function() mlviz.plan(s, { objective = "speed" }) end, "objective must be")
raises("plan unknown field", function() mlviz.plan(s, { vary = { "cluster.nodez=1,2" } }) end,
  "did you mean 'cluster.nodes'")
raises("plan bad max", function() mlviz.plan(s, { max = { devics = 8 } }) end, "did you mean 'devices'")
raises("plan bad top", function() mlviz.plan(s, { top = 0 }) end, "top must be")
raises("plan too large for a script", function()
  mlviz.plan(mlviz.load("gpt3-175b-a100"), { vary = { "cluster.nodes=64..1024", "cluster.node.accelerator=h100-sxm,h200-sxm,b200,a100-sxm-80gb" } })
end, "more than a script may search")

if failed > 0 then error(failed .. " lua plan checks failed") end

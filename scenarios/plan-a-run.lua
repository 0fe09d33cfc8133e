-- Plan a run: 2,048 H100s, 60 days, a 70B model on 15T tokens - which layout?
local P = mlviz.params{
  { "nodes", 256, "8-GPU H100 servers (256 = 2,048 GPUs)" },
  { "days", 60, "days the cluster is yours" },
  { "tokens_t", 15, "training tokens, in trillions" },
}
local story = require("story")
say(string.format("You have %d H100s for %d days. The model: 70B parameters, Llama-style, to be "
  .. "trained on %g trillion tokens.", 8 * P.nodes, P.days, P.tokens_t))
say("How should the GPUs be split between tensor, pipeline and data parallelism, and which "
  .. "micro-batch, recomputation and ZeRO stage make it fastest?")
focus("accelerators")
local base = mlviz.load("default"):set{
  name = "70B on 2,048 H100",
  cluster = { nodes = P.nodes },
  facility = { nodes_per_rack = 4, cooling = "direct-liquid" },
  model = { layers = 80, hidden = 8192, heads = 64, kv_heads = 8, ffn_hidden = 28672,
            seq_len = 4096, vocab = 128256, mlp = "swiglu" },
  -- A first guess, as many teams start: the layout of a smaller run.
  training = { global_batch = 1024, micro_batch = 1, tensor_parallel = 8, pipeline_parallel = 4,
               zero_stage = 1, recompute = "full", tokens = P.tokens_t * 1e12 },
}
local guess = base:eval()
say(string.format("The first guess (TP 8, PP 4, full recomputation) needs %.1f days.",
  guess.cost.days_to_train))
story.show("the first guess", base, guess)
pause()

say("The planner tries every layout of these GPUs and keeps the runnable ones.")
local function layout(s)
  return string.format("TP %d, PP %d, micro-batch %d, recomputation %s, ZeRO %d",
    s:get("training.tensor_parallel"), s:get("training.pipeline_parallel"),
    s:get("training.micro_batch"), s:get("training.recompute"), s:get("training.zero_stage"))
end
local function show(plan, title)
  local rows = {}
  for _, r in ipairs(plan.top) do
    local c = r.setup
    rows[#rows + 1] = {
      rank = r.rank, gpus = r.devices, days = r.days, usd = r.usd_total, mfu = r.mfu,
      tp = c:get("training.tensor_parallel"), pp = c:get("training.pipeline_parallel"),
      mb = c:get("training.micro_batch"), recompute = c:get("training.recompute"),
      zero = c:get("training.zero_stage"),
    }
  end
  mlviz.print_table(rows, { columns = { "rank", "gpus", "days", "usd", "mfu", "tp", "pp", "mb",
    "recompute", "zero" }, title = string.format("%s (%d candidates, %d runnable)", title,
    plan.candidates, plan.runnable) })
end
-- Context parallelism (when the model has it) stays at 1: 4,096-token
-- sequences fit without it, and the search stays short.
local fixed = {}
if pcall(base.get, base, "training.context_parallel") then fixed[1] = "training.context_parallel=1" end
local plan = mlviz.plan(base, { top = 5, vary = fixed })
show(plan, string.format("Fastest layouts on %d H100s", 8 * P.nodes))
story.show("the fastest layout on these GPUs", plan.top[1] and plan.top[1].setup or base)
pause()
if #plan.top == 0 then
  story.conclude("no layout of %d H100s can train this model", 8 * P.nodes)
  return { runnable = false }
end
local best = plan.top[1]
-- The best row reproduces through an ordinary evaluation: its step before
-- the step-schedule simulator re-scored it is the model's.
assert(best.setup:eval("step_time_s") == best.closed_form_step_s, "plan and eval disagree")
say(string.format("The best layout needs %.1f days: %s. The first guess ranks %s.", best.days,
  layout(best.setup), plan.base.rank and tostring(plan.base.rank) or "nowhere (it cannot run)"))
if best.days <= P.days then
  story.conclude("%d H100s finish in %.1f days with %s, %.1fx faster than the first guess (%.1f days)",
    8 * P.nodes, best.days, layout(best.setup), guess.cost.days_to_train / best.days,
    guess.cost.days_to_train)
  return { days = best.days, gpus = 8 * P.nodes }
end
say(string.format("%.1f days is more than the %d you have. More GPUs then: the planner also varies "
  .. "the cluster size and keeps the cheapest layout that finishes in time.", best.days, P.days))
focus("infrastructure")
local grow = { string.format("cluster.nodes=%d..%d", P.nodes, 4 * P.nodes) }
for _, v in ipairs(fixed) do grow[#grow + 1] = v end
local bigger = mlviz.plan(base, { vary = grow, max = { days = P.days }, objective = "usd_total", top = 5 })
show(bigger, string.format("Cheapest runs within %d days", P.days))
say(string.format("The Pareto front over days, cost and energy holds %d configurations.", #bigger.front))
-- The picture names the grown cluster: its title must not say 2,048 over 4,096 GPUs.
local cheapest = bigger.top[1] and bigger.top[1].setup:copy{
  name = string.format("70B on 2,048 H100, grown to %d", bigger.top[1].devices) } or base
story.show(string.format("the cheapest run that finishes in time, on %d H100s",
  bigger.top[1] and bigger.top[1].devices or 8 * P.nodes), cheapest)
pause()
if #bigger.top == 0 then
  story.conclude("%d H100s need %.1f days at best (%s); even %d H100s cannot finish in %d days",
    8 * P.nodes, best.days, layout(best.setup), 32 * P.nodes, P.days)
  return { days = best.days, gpus = 8 * P.nodes }
end
local cheap = bigger.top[1]
story.conclude("%d H100s need %.1f days at best (%s); to finish within %d days the cheapest choice is "
  .. "%d H100s: %.1f days for $%.1f M", 8 * P.nodes, best.days, layout(best.setup), P.days,
  cheap.devices, cheap.days, cheap.usd_total / 1e6)
return { days = best.days, gpus = 8 * P.nodes, in_time_gpus = cheap.devices, in_time_days = cheap.days }

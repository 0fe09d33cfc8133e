-- Device failures at 16,384 GPUs: interruptions per day, checkpoints and goodput, analytic and simulated
local P = mlviz.params{
  { "nodes", 2048, "8-GPU servers (2048 is 16,384 GPUs)" },
  { "duration", "2d", "simulated time" },
}
local story = require("story")
say("Meta trained Llama 3 on 16,384 H100s and saw hundreds of interruptions in under two months.")
say("One GPU fails rarely; sixteen thousand of them fail every few hours.")
focus("infrastructure")
local s = mlviz.load("default"):set{ name = string.format("Llama-8B on %d DGX H100", P.nodes), cluster = { nodes = P.nodes }, training = { global_batch = 8 * P.nodes } }
local r = s:eval()
say(string.format("The model expects %.1f interruptions per day: the job's MTBF is %s.",
  r.reliability.interruptions_per_day, mlviz.format_duration(r.reliability.mtbf_h * 3600)))
story.show(string.format("%d GPUs", r.layout.devices), s, r)
pause()
local sim = mlviz.sim(s, { seed = mlviz.seed, failures = true })
local failures = 0
sim:run(P.duration)
local c = sim:counters()
failures = c.failures
local wall = c.time_s
local useful = c.useful_steps / math.max(c.steps, 1)
local sim_goodput = 1 - c.lost_s / wall - c.checkpoint_s / wall
mlviz.print_table({
  { source = "analytic", interruptions = r.reliability.interruptions_per_day * wall / 86400, goodput = r.reliability.goodput,
    ["checkpoint min"] = r.reliability.checkpoint_interval_min },
  { source = "simulated", interruptions = failures, goodput = sim_goodput, ["checkpoint min"] = r.reliability.checkpoint_interval_min },
}, { columns = { "source", "interruptions", "goodput", "checkpoint min" },
     title = "Over " .. mlviz.format_duration(wall) })
story.conclude("%d GPUs see %.1f interruptions a day; in %s of simulated time %d failures cost %s of the wall time (analytic goodput %s, simulated %s, %s of the steps kept)",
  r.layout.devices, r.reliability.interruptions_per_day, mlviz.format_duration(wall), failures,
  story.pct(c.lost_s / wall), story.pct(r.reliability.goodput), story.pct(sim_goodput), story.pct(useful))
return { interruptions_per_day = r.reliability.interruptions_per_day, failures = failures,
         goodput = r.reliability.goodput, sim_goodput = sim_goodput }

-- Spot instances and checkpoint frequency: how often to save when servers vanish every few hours
local P = mlviz.params{
  { "node_mtbf_h", 24, "mean hours between preemptions of one spot server" },
  { "nodes", 16, "8-GPU servers" },
}
local story = require("story")
local plot = require("plot")
say("Spot servers are cheap because the cloud can take them back at any moment.")
say("Each preemption throws away the work since the last checkpoint, plus a restart.")
focus("infrastructure")
local s = mlviz.load("default"):set{ name = string.format("Llama-8B on %d spot DGX H100", P.nodes), cluster = { nodes = P.nodes }, training = { global_batch = 8 * P.nodes * 2 },
  reliability = { node_mtbf_h = P.node_mtbf_h, restart_min = 5 } }
local auto = s:eval().reliability
local rows = mlviz.sweep(s, { { "reliability.checkpoint_interval_min", { 5, 10, 20, 40, 80, 160, 320 } } },
  { fields = { "reliability.goodput", "reliability.lost_fraction", "reliability.interruptions_per_day" } })
mlviz.print_table(rows, { title = "Goodput by checkpoint interval" })
plot.bars(rows, "reliability.checkpoint_interval_min", "reliability.goodput", { title = "goodput" })
local best
for _, r in ipairs(rows) do
  if not best or r["reliability.goodput"] > best["reliability.goodput"] then best = r end
end
story.show(string.format("checkpoints every %s", mlviz.format_duration(auto.checkpoint_interval_min * 60)), s)
pause()
story.conclude("with %.1f preemptions a day the best interval in the sweep is %d min (goodput %s); the Young/Daly rule picks %s (goodput %s); saving every %d min drops goodput to %s",
  auto.interruptions_per_day, best["reliability.checkpoint_interval_min"], story.pct(best["reliability.goodput"]),
  mlviz.format_duration(auto.checkpoint_interval_min * 60), story.pct(auto.goodput), rows[#rows]["reliability.checkpoint_interval_min"],
  story.pct(rows[#rows]["reliability.goodput"]))
return { best_interval_min = best["reliability.checkpoint_interval_min"], auto_interval_min = auto.checkpoint_interval_min,
         auto_goodput = auto.goodput, best_goodput = best["reliability.goodput"] }

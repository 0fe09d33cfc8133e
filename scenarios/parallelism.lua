-- Data vs tensor vs pipeline parallelism: three ways to split one 30B job over 64 GPUs
local P = mlviz.params{ { "nodes", 8, "8-GPU H100 servers" } }
local story = require("story")
say("Sixty-four GPUs, one 30B model. We can copy it (data parallel), slice every layer (tensor parallel)")
say("or cut the stack of layers into stages (pipeline parallel). Each choice pays a different tax.")
focus("interconnect")
local base = mlviz.load("default"):set{
  name = string.format("30B model on %d DGX H100", P.nodes),
  cluster = { nodes = P.nodes },
  model = { layers = 48, hidden = 7168, heads = 56, kv_heads = 8, ffn_hidden = 20480, seq_len = 4096, vocab = 64000 },
  training = { global_batch = 512, micro_batch = 1, zero_stage = 1, recompute = "selective" },
}
local layouts = {
  { "data parallel (ZeRO-3)", { training = { tensor_parallel = 1, pipeline_parallel = 1, zero_stage = 3 } } },
  { "tensor 8 x data", { training = { tensor_parallel = 8, pipeline_parallel = 1, sequence_parallel = true } } },
  { "pipeline 8 x data", { training = { tensor_parallel = 1, pipeline_parallel = 8 } } },
  { "tensor 4 x pipeline 2", { training = { tensor_parallel = 4, pipeline_parallel = 2, sequence_parallel = true } } },
}
local cases = {}
for _, l in ipairs(layouts) do cases[#cases + 1] = { l[1], base:copy(l[2]) } end
local res = story.evaluate(cases)
story.table(res, { { "tokens_per_s", "tokens/s" }, { "mfu" }, { "memory.per_device_gb", "GB/GPU" },
                   { "memory.fits", "fits" }, { "breakdown_s.tp_comm", "tp comm s" },
                   { "breakdown_s.pp_bubble", "bubble s" }, { "breakdown_s.dp_comm_exposed", "dp comm s" } },
  "One job, four layouts")
local fits = {}
for _, x in ipairs(res) do if x.r.memory.fits then fits[#fits + 1] = x end end
local bi = story.best(fits, "tokens_per_s")
local best = fits[bi]
story.show(best.label, best.setup, best.r)
pause()
local b = best.r.breakdown_s
local costs = { { "tensor-parallel traffic", b.tp_comm }, { "the pipeline bubble", b.pp_bubble },
                { "exposed gradient sync", b.dp_comm_exposed } }
table.sort(costs, function(x, y) return x[2] > y[2] end)
local worst_i = story.best(res, "tokens_per_s", true)
story.conclude("the fastest layout that fits is %s at %.0f tokens/s (MFU %s), %s the slowest (%s); its largest exposed communication cost is %s",
  best.label, best.r.tokens_per_s, story.pct(best.r.mfu), story.times(best.r.tokens_per_s, res[worst_i].r.tokens_per_s),
  res[worst_i].label, costs[1][2] > 0 and string.format("%s (%.3f s per step)", costs[1][1], costs[1][2]) or "none: it is all hidden behind compute")
return { best = best.label, tokens_per_s = best.r.tokens_per_s }

-- Long context: context parallelism splits the sequence over GPUs (ring attention)
local P = mlviz.params{ { "seq_len", 131072, "tokens per sequence" } }
local story = require("story")
say("At long context the activations of one sequence outgrow a GPU; attention work grows with its square.")
say("Context parallelism gives each GPU a slice of the sequence and passes K and V around a ring, under the attention compute.")
focus("accelerators")
local base = mlviz.load("default"):set{
  name = "Llama-8B at long context on 1x DGX H100",
  model = { seq_len = P.seq_len, kv_heads = 8, ffn_hidden = 14336, mlp = "swiglu" },
  training = { global_batch = 8, micro_batch = 1, flash_attention = true, recompute = "full",
               software = "megatron-core", tensor_parallel = 1, zero_stage = 1 },
}
local cases = {}
for _, cp in ipairs{ 1, 2, 4, 8 } do
  cases[#cases + 1] = { "CP " .. cp, base:copy():set("training.context_parallel", cp) }
end
local res = story.evaluate(cases)
story.table(res, { { "memory.activations_gb", "activations GB" }, { "memory.per_device_gb", "GB/device" },
                   { "memory.fits", "fits" }, { "breakdown_s.cp_comm", "ring exposed s" }, { "tokens_per_s", "tokens/s" } },
  "One 8-GPU node, " .. P.seq_len .. "-token sequences")
local first
for _, r in ipairs(res) do
  if r.r.memory.fits and not first then first = r end
end
story.show(first and first.label or res[#res].label, (first or res[#res]).setup, (first or res[#res]).r)
pause()
first = nil
for _, r in ipairs(res) do
  if r.r.memory.fits and not first then first = r end
end
story.conclude("CP 1 needs %.0f GB per device; the first context-parallel size that fits is %s at %.0f GB, with %.3f s of ring exchange left exposed",
  res[1].r.memory.per_device_gb, first and first.label or "none", first and first.r.memory.per_device_gb or 0,
  first and first.r.breakdown_s.cp_comm or 0)
return { fits = first and first.label or "none" }

-- V100 -> A100 -> H100 -> H200: four GPU generations on the same 8B training job
local P = mlviz.params{
  { "nodes", 4, "8-GPU servers in each cluster" },
}
local story = require("story")
say("One job, four generations of NVIDIA datacenter GPUs, eight per server.")
say("The V100 has no bfloat16, so it trains in fp16; the others use bf16.")
focus("accelerators")
local base = mlviz.load("default"):set{ cluster = { nodes = P.nodes, node = { intra_link = "" } },
  training = { global_batch = 64 * P.nodes, zero_stage = 3, recompute = "full" } }
local gens = {
  { "v100-sxm2-32gb", "fp16" }, { "a100-sxm-80gb", "bf16" }, { "h100-sxm", "bf16" }, { "h200-sxm", "bf16" },
}
local cases = {}
for _, g in ipairs(gens) do
  cases[#cases + 1] = { g[1], base:copy():set("cluster.node.accelerator", g[1]):set("training.precision", g[2])
    :set("name", string.format("Llama-8B on %d x 8 %s", P.nodes, g[1])) }
end
local res = story.evaluate(cases)
story.table(res, { { "tokens_per_s", "tokens/s" }, { "mfu" }, { "peak_tflops", "peak TFLOPS" },
                   { "memory.per_device_gb", "GB/device" }, { "cost.days_to_train", "days" },
                   { "cost.usd_total", "USD" } }, "Same job, four generations")
story.show(res[#res].label, res[#res].setup, res[#res].r)
pause()
local first, last = res[1].r, res[#res].r
story.conclude("%s trains %s faster than %s (%.1f vs %.1f days for the token budget); peak dense TFLOPS grew %s",
  res[#res].label, story.times(last.tokens_per_s, first.tokens_per_s), res[1].label,
  last.cost.days_to_train, first.cost.days_to_train, story.times(last.peak_tflops, first.peak_tflops))
return { speedup = last.tokens_per_s / first.tokens_per_s, fastest = res[story.best(res, "tokens_per_s")].label }

-- Fitting a 70B model: ZeRO stages and activation recomputation until it fits in GPU memory
local P = mlviz.params{
  { "nodes", 8, "8-GPU H100 servers" },
  { "seq_len", 4096, "sequence length in tokens" },
}
local story = require("story")
say("A Llama-2-70B-shaped model: 80 layers, hidden 8192, 64 heads with 8 key/value heads.")
say("Adam in mixed precision keeps about 16 bytes per parameter: over a terabyte in total.")
focus("accelerators")
local base = mlviz.load("default"):set{
  name = string.format("Llama-2-70B on %d DGX H100", P.nodes),
  cluster = { nodes = P.nodes },
  model = { layers = 80, hidden = 8192, heads = 64, kv_heads = 8, ffn_hidden = 28672, seq_len = P.seq_len, vocab = 32000 },
  training = { global_batch = 8 * P.nodes * 4, micro_batch = 1, zero_stage = 0, recompute = "none" },
}
local rows = mlviz.sweep(base, { { "training.zero_stage", { 0, 1, 2, 3 } },
                                 { "training.recompute", { "none", "selective", "full" } } },
  { fields = { "memory.per_device_gb", "memory.capacity_gb", "memory.fits", "tokens_per_s", "mfu" } })
mlviz.print_table(rows, { title = "Memory per GPU by ZeRO stage and recomputation" })
story.show("no ZeRO, no recomputation", base)
pause()
local first
for _, r in ipairs(rows) do
  if r["memory.fits"] and not first then first = r end
end
local fastest
for _, r in ipairs(rows) do
  if r["memory.fits"] and (not fastest or r.tokens_per_s > fastest.tokens_per_s) then fastest = r end
end
local worst = rows[1]
if fastest then
  story.show(string.format("ZeRO %d with %s recomputation", fastest["training.zero_stage"], fastest["training.recompute"]),
    base:copy():set("training.zero_stage", fastest["training.zero_stage"])
               :set("training.recompute", fastest["training.recompute"]))
end
if not first then
  story.conclude("no combination fits: even the smallest needs more than the %s a GPU has", mlviz.format_si(worst["memory.capacity_gb"] * 1e9, "B"))
  return { fits = false }
end
-- The device's memory as every screen writes it ("85.5 GB", not "86").
story.conclude("without ZeRO or recomputation a GPU needs %.0f GB (it has %s); the first setting that fits is ZeRO %d with %s recomputation (%.0f GB), and the fastest that fits is ZeRO %d with %s recomputation (%s tokens/s)",
  worst["memory.per_device_gb"], mlviz.format_si(worst["memory.capacity_gb"] * 1e9, "B"), first["training.zero_stage"], first["training.recompute"],
  first["memory.per_device_gb"], fastest["training.zero_stage"], fastest["training.recompute"], mlviz.format_si(fastest.tokens_per_s, ""))
return { fits = true, first_zero = first["training.zero_stage"], first_recompute = first["training.recompute"],
         base_gb = worst["memory.per_device_gb"] }

-- Same chip, different power: GB200 vs GB300 at FP8, and an H100 capped at 500 W
local story = require("story")
say("A GPU raises its clock until it meets its power limit. GB200 and GB300 quote the same FP8")
say("peak, but the GB300 may draw 1,400 W and the GB200 1,200 W; Meta runs its H100s at 500 W.")
focus("accelerators")
local job = mlviz.load("default"):set{ cluster = { nodes = 2, node = { accelerators_per_node = 4,
    cpu = "grace", host_link = "nvlink-c2c" } },
  model = { seq_len = 8192 },
  training = { global_batch = 128, micro_batch = 2, precision = "fp8", software = "nemo",
    zero_stage = 1, recompute = "none", flash_attention = true } }
local h100 = mlviz.load("default"):set{ training = { precision = "bf16", flash_attention = true } }
local res = story.evaluate{
  { "gb300 1400 W", job:copy():set("cluster.node.accelerator", "gb300"):set("name", "Llama-8B FP8 on 8 GB300") },
  { "gb200 1200 W", job:copy():set("cluster.node.accelerator", "gb200"):set("name", "Llama-8B FP8 on 8 GB200") },
  { "h100 700 W", h100:copy():set("name", "Llama-8B on 1x DGX H100 at 700 W") },
  { "h100 500 W", h100:copy():set("cluster.node.power_limit_w", 500):set("name", "Llama-8B on 1x DGX H100 at 500 W") },
}
story.table(res, { { "peak_tflops", "peak TFLOPS" }, { "power.limit_w", "limit W" },
                   { "power.clock_share", "clock kept" }, { "tokens_per_s", "tokens/s" } },
  "Same peak, different power")
story.show(res[2].label, res[2].setup, res[2].r)
pause()
local g3, g2, h7, h5 = res[1].r, res[2].r, res[3].r, res[4].r
story.conclude("at the same %.0f TFLOPS FP8 peak the GB300 trains %.0f%% faster than the GB200 (clock %.0f%% vs %.0f%%); an H100 capped at 500 W keeps %.0f%% of its clock and %s of its speed",
  g3.peak_tflops, 100 * (g3.tokens_per_s / g2.tokens_per_s - 1), 100 * g3.power.clock_share,
  100 * g2.power.clock_share, 100 * h5.power.clock_share,
  string.format("%.0f%%", 100 * h5.tokens_per_s / h7.tokens_per_s))
return { gb300_over_gb200 = g3.tokens_per_s / g2.tokens_per_s, h100_500w_share = h5.tokens_per_s / h7.tokens_per_s }

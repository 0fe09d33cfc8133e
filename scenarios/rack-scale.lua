-- Rack scale: a 72-GPU NVLink domain (GB200 NVL72) against 8-GPU servers
local story = require("story")
say("An NVL72 rack joins 72 GPUs (18 trays of 4) on one NVLink switch fabric; an HGX server joins 8.")
say("Collectives inside the domain run at NVLink speed; only what crosses domains uses the network.")
focus("interconnect")
local moe = {
  model = { layers = 32, hidden = 4096, heads = 32, kv_heads = 8, ffn_hidden = 14336, mlp = "swiglu",
            seq_len = 4096, vocab = 32000, experts = 72, top_k = 8, expert_ffn_hidden = 1792 },
  training = { global_batch = 576, micro_batch = 1, precision = "fp8", tensor_parallel = 2,
               expert_parallel = 36, zero_stage = 1, flash_attention = true, sequence_parallel = true,
               software = "megatron-core" },
}
local hgx = mlviz.load("default"):set(moe):set{
  name = "72 B200 in 9 HGX servers",
  cluster = { nodes = 9, node = { accelerator = "b200", accelerators_per_node = 8 } } }
local nvl = mlviz.load("default"):set(moe):set{
  name = "72 GB200 in one NVL72 rack",
  cluster = { nodes = 18, scaleup_domain = 72,
              node = { accelerator = "gb200", accelerators_per_node = 4, nics_per_node = 4, cpu = "grace",
                       cpu_sockets = 2 } } }
local res = story.evaluate{ { "9 x HGX B200 (8 per domain)", hgx }, { "GB200 NVL72 (72 per domain)", nvl } }
story.table(res, { { "tokens_per_s", "tokens/s" }, { "breakdown_s.ep_comm", "all-to-all s" },
                   { "breakdown_s.dp_comm_exposed", "DP sync exposed s" }, { "bottleneck" } }, "72 Blackwell GPUs, EP 36 x TP 2")
story.show("9 x HGX B200", res[1].setup, res[1].r)
pause()
local a, b = res[1].r, res[2].r
story.show("GB200 NVL72", res[2].setup, b)
story.conclude("with expert parallelism 36 the all-to-alls take %.2f s per step across 8-GPU servers and %.2f s inside the NVL72 domain; the rack trains %s faster",
  a.breakdown_s.ep_comm, b.breakdown_s.ep_comm, story.times(b.tokens_per_s, a.tokens_per_s))
return { hgx = a.breakdown_s.ep_comm, nvl72 = b.breakdown_s.ep_comm }

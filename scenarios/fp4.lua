-- Why FP4 helps a dense 405B more than an MoE: NVFP4 against FP8/MXFP8 on GB300
local story = require("story")
say("Blackwell Ultra's tensor cores run NVFP4 (4-bit numbers, a scale per 16) at three times")
say("their FP8 rate. Only the GEMMs of the linear layers run in it; attention and the output")
say("layer stay BF16, and every GEMM input is quantised first (Transformer Engine's recipes).")
focus("accelerators")
-- Both jobs as Megatron-Bridge runs them on GB300 NVL72 racks (its Llama-3.1-405B
-- and Qwen3-30B-A3B performance recipes; tests/validation/setups/mb-*-gb300-*.yaml).
local gb300 = { accelerator = "gb300", accelerators_per_node = 4, cpu = "grace", cpu_sockets = 2,
  host_ram_gb = 960, host_link = "nvlink-c2c", nic = "ib-xdr", nics_per_node = 4, local_storage = "" }
local dense = mlviz.load("default"):set{
  name = "Llama-405B on 256 GB300",
  cluster = { nodes = 64, scaleup_domain = 72, node = gb300 },
  facility = { cooling = "direct-liquid", nodes_per_rack = 18 },
  model = { tied_embeddings = false, dropout = 0, layers = 126, hidden = 16384, heads = 128, kv_heads = 8,
    ffn_hidden = 53248, seq_len = 8192, vocab = 128256 },
  training = { global_batch = 1536, micro_batch = 1, tensor_parallel = 4, pipeline_parallel = 8,
    virtual_stages = 4, account_for_embedding_in_pipeline_split = true,
    account_for_loss_in_pipeline_split = true, zero_stage = 1, recompute = "none",
    sequence_parallel = true, grad_reduce_precision = "bf16", software = "nemo" } }
local moe = mlviz.load("default"):set{
  name = "Qwen3-30B-A3B MoE on 8 GB300",
  cluster = { nodes = 2, scaleup_domain = 72, node = gb300 },
  facility = { cooling = "direct-liquid", nodes_per_rack = 18 },
  model = { tied_embeddings = false, dropout = 0, layers = 48, hidden = 2048, heads = 32, kv_heads = 4,
    head_dim = 128, seq_len = 4096, vocab = 151936, experts = 128, top_k = 8, expert_ffn_hidden = 768 },
  training = { global_batch = 512, micro_batch = 8, expert_parallel = 8, zero_stage = 1,
    recompute = "none", grad_reduce_precision = "bf16", moe_dispatcher = "deepep",
    ep_comm_overlap = true, software = "nemo" } }
local res = story.evaluate{
  { "dense FP8", dense:copy():set("training.precision", "fp8") },
  { "dense NVFP4", dense:copy():set("training.precision", "nvfp4") },
  { "MoE MXFP8", moe:copy():set("training.precision", "mxfp8") },
  { "MoE NVFP4", moe:copy():set("training.precision", "nvfp4") },
}
story.table(res, { { "peak_tflops", "peak TFLOPS" }, { "tokens_per_s", "tokens/s" },
                   { "breakdown_s.compute", "compute s" }, { "breakdown_s.tp_comm", "TP comm s" },
                   { "stages.ep_comm_s", "all-to-all s" }, { "achieved_fraction", "of peak" } },
  "NVFP4 against FP8 and MXFP8")
local d8, d4, m8, m4 = res[1].r, res[2].r, res[3].r, res[4].r
local function cut(a, b) return story.pct(1 - b / a) end
-- Each case goes on screen before the narration about it; the line naming
-- what the screen marks comes last, where the narration pane ends.
show(res[2].setup)
say(string.format("The dense 405B is GEMMs: NVFP4 trains %s as fast as FP8 (compute %.1f s -> %.1f s, %s less).",
  story.times(d4.tokens_per_s, d8.tokens_per_s), d8.breakdown_s.compute, d4.breakdown_s.compute,
  cut(d8.breakdown_s.compute, d4.breakdown_s.compute)))
say(string.format("Not 3x: attention and the output layer stay BF16, every GEMM input is quantised first, and the tensor-parallel all-reduces (16-bit in both formats) hide less under the shorter GEMMs: %.1f s exposed against %.1f s.",
  d4.breakdown_s.tp_comm, d8.breakdown_s.tp_comm))
story.show(res[2].label, res[2].setup, d4)
pause()
show(res[4].setup)
say(string.format("The MoE gains %s over MXFP8: tripling the GEMM peak takes its compute from %.2f s to %.2f s, %s less.",
  story.pct(m4.tokens_per_s / m8.tokens_per_s - 1), m8.breakdown_s.compute, m4.breakdown_s.compute,
  cut(m8.breakdown_s.compute, m4.breakdown_s.compute)))
say(string.format("Its expert GEMMs are small (128 experts 768 wide, top 8; the step runs at %s of the MXFP8 peak), and beside them every layer runs BF16 attention, the router, the token permutations, element-wise kernels and the quantisation of each GEMM input: there the step stays. The expert all-to-all moves 16-bit tokens in both formats: %.2f s per step with MXFP8, %.2f s with NVFP4 (hidden under compute here).",
  story.pct(m8.achieved_fraction), m8.stages.ep_comm_s, m4.stages.ep_comm_s))
story.show(res[4].label, res[4].setup, m4)
pause()
story.conclude("NVFP4 trains the dense 405B %s as fast as FP8 but the MoE only %s faster than MXFP8 (compute %s less against %s less)",
  story.times(d4.tokens_per_s, d8.tokens_per_s), story.pct(m4.tokens_per_s / m8.tokens_per_s - 1),
  cut(d8.breakdown_s.compute, d4.breakdown_s.compute), cut(m8.breakdown_s.compute, m4.breakdown_s.compute))
return { dense_gain = d4.tokens_per_s / d8.tokens_per_s, moe_gain = m4.tokens_per_s / m8.tokens_per_s,
         moe_a2a_same = m4.stages.ep_comm_s == m8.stages.ep_comm_s }

-- NVLink vs PCIe inside a server, InfiniBand vs Ethernet between servers
local P = mlviz.params{ { "nodes", 16, "8-GPU H100 servers" } }
local story = require("story")
say("Tensor parallelism sends activations between GPUs several times per layer: it needs NVLink.")
say("Data-parallel traffic crosses the network every step: the NIC sets its pace.")
focus("interconnect")
local base = mlviz.load("default"):set{
  name = string.format("34B-class model on %d DGX H100", P.nodes),
  cluster = { nodes = P.nodes },
  model = { layers = 48, hidden = 7168, heads = 56, kv_heads = 8, ffn_hidden = 20480, seq_len = 4096, vocab = 64000 },
  training = { global_batch = 8 * P.nodes * 2, tensor_parallel = 8, zero_stage = 1, sequence_parallel = true },
}
local intra = story.evaluate{
  { "NVLink 4 (" .. mlviz.catalog.links.nvlink4.bw_gbs .. " GB/s)", base:copy():set("cluster.node.intra_link", "nvlink4") },
  { "PCIe 5 x16 (" .. mlviz.catalog.links["pcie5-x16"].bw_gbs .. " GB/s)", base:copy():set("cluster.node.intra_link", "pcie5-x16") },
}
story.table(intra, { { "tokens_per_s", "tokens/s" }, { "breakdown_s.tp_comm", "tp comm s" }, { "bottleneck" } },
  "Inside the server: tensor parallel 8")
story.show("tensor parallel 8 over " .. intra[2].label, intra[2].setup, intra[2].r)
pause()
local dp = base:copy():set("training.tensor_parallel", 1):set("training.sequence_parallel", false):set("training.zero_stage", 3)
dp:set("training.overlap_grad_sync", false)
local inter = story.evaluate{
  { "InfiniBand NDR", dp:copy():set("cluster.node.nic", "ib-ndr") },
  { "Ethernet 400G (RoCE)", dp:copy():set("cluster.node.nic", "eth-400g") },
  { "Ethernet 100G", dp:copy():set("cluster.node.nic", "eth-100g") },
}
story.table(inter, { { "tokens_per_s", "tokens/s" }, { "stages.dp_comm_s", "DP sync s" }, { "bottleneck" } },
  "Between servers: ZeRO-3 data parallel (weights gathered, gradients reduce-scattered), not overlapped")
story.show("ZeRO-3 data parallel over Ethernet 100G", inter[3].setup, inter[3].r)
pause()
local nv, pc = intra[1].r, intra[2].r
local ib, e100 = inter[1].r, inter[3].r
story.conclude("PCIe instead of NVLink makes tensor-parallel traffic %s slower and the job %s slower; a 100G Ethernet NIC instead of InfiniBand NDR stretches data-parallel sync (ZeRO-3 weight gathers and gradient reduce-scatters) from %.2f s to %.2f s per step",
  story.times(pc.breakdown_s.tp_comm, nv.breakdown_s.tp_comm), story.times(nv.tokens_per_s, pc.tokens_per_s),
  ib.stages.dp_comm_s, e100.stages.dp_comm_s)
return { nvlink_speedup = nv.tokens_per_s / pc.tokens_per_s, ib_sync_s = ib.stages.dp_comm_s, eth100_sync_s = e100.stages.dp_comm_s }

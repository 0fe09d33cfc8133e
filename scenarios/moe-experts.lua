-- Mixture of experts: why expert parallelism needs the all-to-all fabric
local P = mlviz.params{ { "nodes", 8, "8-GPU H100 servers" } }
local story = require("story")
say("A mixture-of-experts layer sends every token to its top-k experts and back: two all-to-alls forward, two backward.")
say("Experts are sharded over expert-parallel ranks; where those ranks sit decides which link carries the all-to-all.")
focus("interconnect")
local base = mlviz.load("moe-h100"):set{
  cluster = { nodes = P.nodes },
  training = { global_batch = 32 * P.nodes, expert_parallel = 8 },
}
local res = story.evaluate{
  -- TP 1: the 8 expert ranks are neighbours, one NVLink node.
  { "EP 8 inside a node (TP 1)", base:copy():set("training.tensor_parallel", 1):set("training.sequence_parallel", false) },
  -- TP 2: expert ranks are 2 apart, the group spans two nodes and crosses the NICs.
  { "EP 8 across nodes (TP 2)", base:copy():set("training.tensor_parallel", 2) },
  { "EP 8 across nodes, 2 NICs per node", base:copy():set("training.tensor_parallel", 2):set("cluster.node.nics_per_node", 2) },
}
story.table(res, { { "tokens_per_s", "tokens/s" }, { "breakdown_s.ep_comm", "all-to-all s" },
                   { "memory.experts_gb", "expert GB" }, { "bottleneck" } }, "Where the expert ranks sit")
story.show("EP 8 across nodes with 2 NICs per node", res[3].setup, res[3].r)
pause()
local inside, across, thin = res[1].r, res[2].r, res[3].r
story.conclude("the expert all-to-alls take %.2f s per step inside one NVLink node, %.2f s when the expert group crosses the network (%s) and %.2f s with 2 NICs per node",
  inside.breakdown_s.ep_comm, across.breakdown_s.ep_comm,
  story.times(across.breakdown_s.ep_comm, math.max(inside.breakdown_s.ep_comm, 1e-9)), thin.breakdown_s.ep_comm)
return { inside = inside.breakdown_s.ep_comm, across = across.breakdown_s.ep_comm, thin = thin.breakdown_s.ep_comm }

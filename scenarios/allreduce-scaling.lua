-- Ring vs tree vs hierarchical all-reduce from 8 to 16,384 GPUs
local P = mlviz.params{ { "max_nodes", 2048, "largest cluster, in 8-GPU nodes" } }
local story = require("story")
local plot = require("plot")
say("Every step, data-parallel GPUs average their gradients with an all-reduce.")
say("A ring moves the least data but pays a latency step per GPU; a tree pays only log2(n) steps.")
focus("interconnect")
local base = mlviz.load("default"):set{ name = "Llama-8B, data parallel", training = { zero_stage = 0 } }
local nodes = {}
local n = 1
while n <= P.max_nodes do nodes[#nodes + 1] = n; n = n * 4 end
if nodes[#nodes] ~= P.max_nodes then nodes[#nodes + 1] = P.max_nodes end
local rows = {}
for _, nn in ipairs(nodes) do
  local s = base:copy():set("cluster.nodes", nn):set("training.global_batch", 8 * nn * 2)
  local row = { gpus = 8 * nn }
  for _, a in ipairs{ "ring", "tree", "hierarchical" } do
    row[a] = s:copy():set("training.allreduce", a):eval().stages.dp_comm_s
  end
  row.auto = s:eval().stages.dp_comm_s
  local best = "ring"
  for _, a in ipairs{ "tree", "hierarchical" } do if row[a] < row[best] then best = a end end
  row.fastest = best
  rows[#rows + 1] = row
  row.setup = s
end
local grad_gb = base:eval().params * 2 / 1e9 -- bf16 gradients, 2 bytes each
mlviz.print_table(rows, { columns = { "gpus", "ring", "tree", "hierarchical", "fastest" },
  title = string.format("Gradient all-reduce time per step (s), %.1f GB of bf16 gradients", grad_gb) })
local top = rows[#rows]
-- Without ZeRO an 8B model does not fit in 80 GB: the picture shards the
-- optimizer state (ZeRO-1) and recomputes activations; the gradient
-- all-reduce stays the same.
local shown = top.setup:copy{ name = string.format("Llama-8B, data parallel on %d GPUs", top.gpus),
                              training = { allreduce = top.fastest, zero_stage = 1, recompute = "full" } }
local r = shown:eval()
say(string.format("With ZeRO-1 the gradients are reduce-scattered and the updated weights all-gathered "
  .. "instead: %s per step on screen against %s for the all-reduce in the table.",
  mlviz.format_duration(r.stages.dp_comm_s), mlviz.format_duration(top[top.fastest])))
story.show(string.format("%d GPUs with the %s all-reduce and ZeRO-1", top.gpus, top.fastest), shown, r)
pause()
local small, large = rows[1], rows[#rows]
story.conclude("at %d GPUs the %s all-reduce is fastest (%.3f s); at %d GPUs it is %s (%.3f s vs ring %.3f s)",
  small.gpus, small.fastest, small[small.fastest], large.gpus, large.fastest, large[large.fastest], large.ring)
return { small = small.fastest, large = large.fastest, large_gpus = large.gpus }

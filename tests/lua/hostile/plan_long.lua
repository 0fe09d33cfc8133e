-- A search far longer than the time limit: the workers stop, the limit is reported at this line.
local s = mlviz.load("gpt3-175b-a100")
local vary = { "cluster.nodes=32..1024", "cluster.node.accelerator=a100-sxm-80gb,h100-sxm,b200" }
if pcall(s.get, s, "training.context_parallel") then vary[#vary + 1] = "training.context_parallel=1" end
local p = mlviz.plan(s, { vary = vary })
print(p.candidates)

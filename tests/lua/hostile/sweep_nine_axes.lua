-- More axes than the sweep's fixed arrays hold.
local s = mlviz.load("default")
local axes = {}
for i = 1, 12 do axes[i] = {"cluster.nodes", {1}} end
mlviz.sweep(s, axes)

-- Eight axes of 300 values: 300^8 combinations overflow a 64-bit count.
local s = mlviz.load("default")
local values = {}
for i = 1, 300 do values[i] = 1 end
local axes = {}
for i = 1, 8 do axes[i] = {"cluster.nodes", values} end
local rows = mlviz.sweep(s, axes)
print("rows", #rows)

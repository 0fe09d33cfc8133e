local s = mlviz.load("default")
local sim = mlviz.sim(s, {seed = 1})
sim:at(5, function() error("boom in callback") end)
sim:run(10)

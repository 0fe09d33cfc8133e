-- Running a simulation from its own event callback.
local sim = mlviz.sim(mlviz.load("default"))
sim:at(1, function(x) x:run(5) end)
sim:run(5)

-- Closing a simulation from its own event callback, while sim:run is inside it.
local sim = mlviz.sim(mlviz.load("default"))
sim:at(1, function(x) x:close() end)
sim:run(5)

local s = mlviz.load("default")
local sim = mlviz.sim(s)
sim:at("1m", function() local t = {} ; t.x.y = 1 end)
sim:run("5m")

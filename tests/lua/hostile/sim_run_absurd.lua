-- More ticks than a 64-bit count can take exactly.
local sim = mlviz.sim(mlviz.load("default"))
sim:run(1e300)

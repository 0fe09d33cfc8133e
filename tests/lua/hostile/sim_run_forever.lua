-- A billion seconds of simulated time: the step loop runs in C for hours.
local sim = mlviz.sim(mlviz.load("default"))
sim:run(1e9)
print("finished", sim:time())

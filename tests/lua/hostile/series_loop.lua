-- Reading a long series again and again: each call copies it in C.
local sim = mlviz.sim(mlviz.load("default"), {sample_interval_s = 0.001, series_capacity = 200000})
sim:run(200)
while true do local t = sim:series("time_s") end

-- Series buffers live in C: twenty sims of 27 MiB each, filled, kept alive.
local s = mlviz.load("default")
local sims = {}
for i = 1, 20 do
    local sim = mlviz.sim(s, { series_capacity = 200000, tick_s = 0.01, sample_interval_s = 0.01 })
    sim:run(2000)
    sims[i] = sim
end
print("kept", #sims)

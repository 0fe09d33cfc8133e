-- Many events are legitimate: 90000 callbacks in reverse insertion order
-- (each insertion lands before all others) still run, in time order.
local sim = mlviz.sim(mlviz.load("default"))
local last, calls = -1, 0
for i = 90000, 1, -1 do
    sim:at(i * 0.001, function(s)
        local t = s:time()
        assert(t >= last, "events out of order")
        last, calls = t, calls + 1
    end)
end
sim:run(100)
print("callbacks", calls)

-- Scheduling events without end: refused past the cap with a message.
local sim = mlviz.sim(mlviz.load("default"))
for i = 1, 1e6 do
    sim:at(1e6 - i, function() end)
end

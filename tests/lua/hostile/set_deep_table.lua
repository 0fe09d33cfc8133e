-- setup:set with a table nested 30 levels deep.
local s = mlviz.load("default")
local t = 1
for i = 1, 30 do t = {x = t} end
s:set(t)

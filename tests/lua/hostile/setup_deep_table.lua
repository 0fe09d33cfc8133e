-- A setup table nested 40 levels deep.
local t = {}
local inner = t
for i = 1, 40 do inner.a = {}; inner = inner.a end
inner.b = 1
mlviz.setup(t)

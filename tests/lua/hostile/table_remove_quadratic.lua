-- Removing from the front of a big table again and again: each call shifts
-- every element in C, a handful of instructions per call.
local t = {}
for i = 1, 2000000 do t[i] = i end
while #t > 0 do table.remove(t, 1) end

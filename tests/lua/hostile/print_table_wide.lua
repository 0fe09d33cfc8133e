-- A row of 60 columns of 70 characters: about 4 KiB per printed line.
local r = {}
for i = 1, 60 do r[string.format("c%02d", i)] = string.rep("x", 70) end
mlviz.print_table({ r, r })

-- More parameters than a script may declare (LUAHOST_MAX_PARAMS, 32): an
-- error at this line, not a silent cut.
local list = {}
for i = 1, 33 do list[i] = { "p" .. i, i, "parameter " .. i } end
local P = mlviz.params(list)
print("ran with", P.p33)

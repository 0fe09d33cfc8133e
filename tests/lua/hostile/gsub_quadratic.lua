-- A lazy pattern that never matches: quadratic work inside one gsub call.
local big = string.rep("x", 300000)
local out, n = big:gsub(".-y", "")
print(#out, n)

-- A script that spends a long time before it declares its parameters.
local n = 0
for i = 1, 3e7 do n = n + i % 7 end
local P = mlviz.params{ { "n", 1, "a number" } }
print(P.n, n)

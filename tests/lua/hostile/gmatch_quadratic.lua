-- The same inside a gmatch iteration.
for w in string.gmatch(string.rep("x", 300000), ".-.-y") do print(w) end

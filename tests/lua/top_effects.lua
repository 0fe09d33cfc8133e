-- Side effects before mlviz.load: they must happen once, in the real run.
print("printed at the top")
mlviz.write_csv("top.csv", { { a = 1 } })
local p = mlviz.params { { "n", 2, "a number" } }
local s = mlviz.load("default")
print("n is", p.n)

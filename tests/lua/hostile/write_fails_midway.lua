-- A value that cannot be written, after a good write: the old file stays.
mlviz.write_json("keep.json", {a = 1, b = {1, 2, 3}})
mlviz.write_csv("keep.csv", {{a = 1, b = "x"}})
local ok = pcall(mlviz.write_json, "keep.json", {a = 2, b = string.rep("y", 100000), z = {print}})
assert(not ok)
local ok2 = pcall(mlviz.write_csv, "keep.csv", {{a = 2, b = 1/0}})
assert(not ok2)
mlviz.write_json("keep.json", {a = 3, z = {print}})

-- The map form: nine different field paths.
local s = mlviz.load("default")
mlviz.sweep(s, {
    ["cluster.nodes"] = {1}, ["training.global_batch"] = {8}, ["a"] = {1}, ["b"] = {1},
    ["c"] = {1}, ["d"] = {1}, ["e"] = {1}, ["f"] = {1}, ["g"] = {1},
})

-- A name far too long.
mlviz.write_csv(string.rep("a", 300) .. ".csv", {{a = 1}})

-- A directory sits at the name.
mlviz.write_csv("dir.csv", {{a = 1}})

-- A newline in the name.
mlviz.write_csv("a\nb.csv", {{a = 1}})

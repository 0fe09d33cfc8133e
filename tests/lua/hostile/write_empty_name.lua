-- An empty name.
mlviz.write_csv("", {{a = 1}})

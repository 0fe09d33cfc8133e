mlviz.write_csv("../escape.csv", {{a = 1}})

-- Overwrite the build file one level up.
mlviz.write_csv("../Makefile", {{a = 1}})

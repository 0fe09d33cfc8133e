-- Windows separators.
mlviz.write_csv("..\\..\\Makefile.csv", {{a = 1}})

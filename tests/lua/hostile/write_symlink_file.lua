-- Through a symbolic link to a file outside, planted in the output directory.
mlviz.write_csv("link.csv", {{a = 1}})

-- Through a symbolic link to a directory outside, planted in the output directory.
mlviz.write_csv("linkdir/target.csv", {{a = 1}})

-- A hidden file in the output directory.
mlviz.write_csv(".profile.csv", {{a = 1}})

-- JSON under a CSV name.
mlviz.write_json("data.csv", {a = 1})

mlviz.write_json("/tmp/abs.json", {a = 1})

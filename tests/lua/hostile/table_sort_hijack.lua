-- Replace table.sort: the host must not call it while writing.
table.sort = function() error("hijacked sort") end
mlviz.write_json("sorted.json", { b = 1, a = { d = 2, c = 3 } })
mlviz.write_csv("sorted.csv", { { b = 1, a = 2 } })
mlviz.print_table({ { b = 1, a = 2 } })

-- Numbers that must not reach the output as -0, inf or nan.
mlviz.print_table({ { a = -0.0, b = 1 / 0, c = 0 / 0, d = -1 / 0 } })

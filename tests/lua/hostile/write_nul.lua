-- A NUL byte cutting the name short in C.
mlviz.write_json("x.json\0/../../Makefile", {a = 1})

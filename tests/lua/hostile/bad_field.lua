local s = mlviz.load("default")
s:set("cluster.nodez", 4)

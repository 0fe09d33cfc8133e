-- A duration string whose number overflows once converted to seconds.
print(mlviz.parse_duration("1e308d"))

-- string.rep of an empty string a quadrillion times: the library loops in C.
local s = string.rep("", 1e15)
local t = ("").rep("", 1e15, "")
print("empty", #s, #t)

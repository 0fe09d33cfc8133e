-- A string that cannot fit in the memory cap.
local s = string.rep("abc", 1e9, ",")
print(#s)

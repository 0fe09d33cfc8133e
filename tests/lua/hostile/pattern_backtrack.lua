-- Nested greedy quantifiers: exponential backtracking inside string.find.
local subject = string.rep("a", 40)
print(subject:find(string.rep("a*", 40) .. "b"))

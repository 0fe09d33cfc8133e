local t = {}
while true do t[#t + 1] = string.rep("x", 1000) .. #t end

local ok = pcall(function() while true do end end)
print("survived", ok)
while true do end

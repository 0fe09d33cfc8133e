while true do pcall(function() local t = {} while true do t[#t+1] = {} end end) end

-- An endless loop with a budget too large to matter: the time limit stops it.
local n = 0
while true do n = n + 1 end

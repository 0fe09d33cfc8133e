-- Catching the budget error of a slow pattern does not keep the script alive.
local slow = string.rep("a?", 28) .. string.rep("a", 28)
while true do
    pcall(string.match, string.rep("a", 28), slow)
end

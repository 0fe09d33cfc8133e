-- Lists what the running host registers (run with --trust: it needs debug to
-- look behind the locked metatables). One line per name:
--   mlviz.NAME KIND | setup:NAME | sim:NAME
-- tests/lua/api_surface.py compares the list with docs/lua-api.md and
-- scripts/mlviz.d.lua.
local function methods(obj)
    local index = debug.getmetatable(obj).__index
    local _, list = debug.getupvalue(index, 1) -- method_index keeps the methods here
    local names = {}
    for name in pairs(list) do names[#names + 1] = name end
    table.sort(names)
    return names
end
local names = {}
for name, value in pairs(mlviz) do names[#names + 1] = name .. " " .. type(value) end
table.sort(names)
for _, line in ipairs(names) do print("mlviz." .. line) end
local s = mlviz.load("default")
for _, name in ipairs(methods(s)) do print("setup:" .. name) end
local sim = mlviz.sim(s)
for _, name in ipairs(methods(sim)) do print("sim:" .. name) end
local function keys(prefix, t)
    local list = {}
    for name in pairs(t) do list[#list + 1] = name end
    table.sort(list)
    for _, name in ipairs(list) do print(prefix .. name) end
end
keys("report.", s:eval())
keys("counters.", sim:counters())

-- Tries to read files outside its directories through every way a script
-- names a file: mlviz.load, mlviz.setup{preset=}, require, and the files a
-- loaded setup names (model.hf_config). Each argument is "FN:PRESENT|ABSENT":
-- two names that differ only in pointing at a file that exists or not. The
-- two messages, with those words made equal, must be the same (no probing),
-- and nothing may be loaded.
local fns = {
    load = function(x) return mlviz.load(x) end,
    setup = function(x) return mlviz.setup { preset = x } end,
    require = function(x) return require(x) end,
}
local function try(fn, x)
    local ok, msg = pcall(fn, x)
    if ok then return "LOADED " .. x end
    return (tostring(msg):gsub("present", "X"):gsub("absent", "X"))
end
for i = 1, #arg do
    local fn, a, b = arg[i]:match("^(%w+):([^|]*)|(.*)$")
    local m1, m2 = try(fns[fn], a), try(fns[fn], b)
    print(fn .. " " .. a .. ": " .. m1)
    if m1 ~= m2 then print("DIFFERS " .. fn .. " " .. b .. ": " .. m2) end
end

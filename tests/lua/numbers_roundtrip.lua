-- Engine numbers and awkward values written by write_csv and write_json; the
-- values are also printed with Lua's own %.17g (not the writers) so that
-- tests/lua/numbers_check.py can compare what python reads back.
local s = mlviz.setup { preset = "default" }
local rows = mlviz.sweep(s, { ["training.micro_batch"] = { 1, 2, 4 } },
    { fields = { "step_time_s", "tokens_per_s", "mfu", "memory.per_device_gb", "bottleneck" } })
local odd = {
    1 / 3, 0.1 + 0.2, 1e-300, 1.5e300, 2 ^ 53, 9007199254740993, -1e-7,
    123456789012.5, 12345678901234.0, -0.0, math.pi * 1e20, 42, -17,
}
for i, v in ipairs(odd) do
    rows[#rows + 1] = { ["training.micro_batch"] = -i, step_time_s = v, tokens_per_s = -v,
        mfu = i, ["memory.per_device_gb"] = v * 3, bottleneck = 'odd, "quoted"\r\nrow ' .. i }
end
local cols = rows.columns
local list = {} -- the rows without their `columns` key: a JSON array
for i, row in ipairs(rows) do list[i] = row end
mlviz.write_csv("numbers.csv", rows, { columns = cols })
mlviz.write_json("numbers.json", { columns = cols, rows = list })
local function show(v)
    if math.type(v) == "integer" then return string.format("%d", v) end
    if type(v) == "number" then return string.format("%.17g", v) end
    return tostring(v)
end
for r, row in ipairs(rows) do
    for _, c in ipairs(cols) do
        print(string.format("%d\t%s\t%s\t%s", r, c, type(row[c]), show(row[c])))
    end
end

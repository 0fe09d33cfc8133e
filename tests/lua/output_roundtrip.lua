-- Files written by the output helpers read back with python's csv and json.
local rows = {
    { name = "plain", value = 1, ratio = 0.25, ok = true },
    { name = 'comma, "quote"', value = -2, ratio = 1e-7, ok = false },
    { name = "line\nbreak", value = 3, ratio = -0.0, ok = true },
    { name = " padded ", value = 4, ratio = 12345.678, ok = true },
    { name = string.rep("long", 100), value = 5, ratio = 2, ok = false },
}
print(mlviz.write_csv("rows.csv", rows, { columns = { "name", "value", "ratio", "ok" } }))
print(mlviz.write_json("value.json", {
    text = 'tab\there "q" back\\slash \1 ünï',
    list = { 1, 2.5, -3, true, false, -0.0 },
    nested = { a = { b = { c = "deep" } } },
    empty = {},
    [7] = "seven",
    -- integers past 2^53 with every digit; a double past 2^53 as its exact value
    big = { math.maxinteger, math.mininteger, 9007199254740993, 2 ^ 63 },
}))

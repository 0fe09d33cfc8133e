-- The numbers-only evaluation (model_eval_numbers: no verdict sentences)
-- serves setup:eval's names form and mlviz.sweep when they read no
-- sentence. Each check compares their values with the full evaluation's
-- (setup:eval()), field by field, on setups that fit, do not fit, are MoE
-- or run on CPUs. Each check prints PASS or FAIL (tests/lua/run.sh).
local failed = 0
local function check(name, cond, why)
  if cond then print("PASS lua numbers: " .. name) else failed = failed + 1; print("FAIL lua numbers: " .. name .. ": " .. tostring(why)) end
end

-- The sentences model_eval_numbers leaves out (report_field_is_words).
local words = { why_not = true, bottleneck_reason = true, next_reason = true }

-- Every single value of a report table under its dotted key.
local function flat(r)
  local out = {}
  for k, v in pairs(r) do
    if type(v) ~= "table" then
      out[k] = v
    elseif k ~= "suggestions" then
      for k2, v2 in pairs(v) do
        if type(v2) ~= "table" then out[k .. "." .. k2] = v2 end
      end
    end
  end
  return out
end

local function first_difference(keys, got, full)
  for i, k in ipairs(keys) do
    if got[i] ~= full[k] then return k .. ": " .. tostring(got[i]) .. " vs " .. tostring(full[k]) end
  end
  return nil
end

local function chunks(keys, size)
  local out = {}
  for first = 1, #keys, size do
    out[#out + 1] = { table.unpack(keys, first, math.min(first + size - 1, #keys)) }
  end
  return out
end

-- The names form, within eval's 64 names a call; every other chunk as
-- arguments, the others as one array.
local function named_values(s, keys)
  local got = {}
  for n, chunk in ipairs(chunks(keys, 60)) do
    local vals = n % 2 == 1 and { s:eval(chunk) } or { s:eval(table.unpack(chunk)) }
    for i = 1, #chunk do got[#got + 1] = vals[i] end
  end
  return got
end

local function sweep_values(s, keys)
  -- One row, the setup itself, in chunks within sweep's 48 result fields.
  local got = {}
  for _, chunk in ipairs(chunks(keys, 40)) do
    local rows = mlviz.sweep(s, { { "cluster.nodes", { s:get("cluster.nodes") } } }, { fields = chunk })
    for _, k in ipairs(chunk) do got[#got + 1] = rows[1][k] end
  end
  return got
end

local setups = {
  { "default", mlviz.load("default") },
  { "gpt3", mlviz.load("gpt3-175b-a100") },
  { "gpt3 without recomputation (does not fit)", mlviz.load("gpt3-175b-a100"):set("training.recompute", "none") },
  { "moe", mlviz.load("moe-h100") },
  { "laptop cpu", mlviz.load("laptop-cpu") },
}
for _, c in ipairs(setups) do
  local name, s = c[1], c[2]
  local full = flat(s:eval())
  local keys = {}
  for k in pairs(full) do
    if not words[k] then keys[#keys + 1] = k end
  end
  table.sort(keys)
  local differ = first_difference(keys, named_values(s, keys), full)
  check(name .. ": the names form reads the full evaluation's " .. #keys .. " figures",
    #keys > 50 and differ == nil, differ or #keys)
  differ = first_difference(keys, sweep_values(s, keys), full)
  check(name .. ": a sweep row holds the full evaluation's figures", differ == nil, differ)
  local reason, why = s:eval("bottleneck_reason", "why_not")
  check(name .. ": a verdict sentence by name is the full evaluation's",
    reason == full.bottleneck_reason and why == full.why_not and reason ~= "", reason)
  local rows = mlviz.sweep(s, { { "cluster.nodes", { s:get("cluster.nodes") } } },
    { fields = { "tokens_per_s", "next_reason" } })
  check(name .. ": a sweep that picks a sentence gets the full one",
    rows[1].next_reason == full.next_reason and rows[1].tokens_per_s == full.tokens_per_s, rows[1].next_reason)
end
local unfit = flat(setups[3][2]:eval())
check("the unfit setup says why", unfit["memory.fits"] == false and unfit.why_not ~= "", unfit.why_not)

if failed > 0 then error(failed .. " numbers-path checks failed") end

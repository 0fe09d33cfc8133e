-- story: small helpers for scenario scripts (compare setups, print, conclude).
-- Usage: local story = require("story")
local story = {}

-- The longest setup name (the field table's limit for names).
local NAME_MAX = 63

--- Evaluate each {label, setup} case and keep the label with its result table.
--- Played, every case of several gets its moment: it goes on screen, the
--- narration says what it shows, and the story pauses there.
---@param cases table[] array of {label, setup}
---@return table[] results array of {label=, setup=, r=<eval table>}
function story.evaluate(cases)
  local out = {}
  for i, c in ipairs(cases) do
    out[i] = { label = c[1], setup = c[2], r = c[2]:eval() }
    -- The title names the case when the setup's own name does not.
    local name, label = tostring(c[2]:get("name")), tostring(c[1])
    if #cases > 1 and not name:find(label, 1, true) then
      local room = NAME_MAX - #label - 3 -- " - "
      local shown = room >= 8 and (name:sub(1, room) .. " - " .. label) or label:sub(1, NAME_MAX)
      show(c[2]:copy{ name = shown })
    else
      show(c[2])
    end
    if #cases > 1 then
      say(string.format("Case %d of %d, %s: %s.", i, #cases, c[1], story.verdict(out[i].r)))
      pause()
    end
  end
  return out
end

--- The sentence that names what the screen marks for a result.
---@param r table eval result
function story.verdict(r)
  if not r.runnable then return "it cannot run: " .. tostring(r.why_not) end
  return string.format("the bottleneck is %s (%s)", r.bottleneck, r.bottleneck_reason)
end

--- Put a setup on screen and say what it shows; returns its eval table.
--- Played, the title names the setup and the marked bottleneck is the one said.
---@param label string what the class is looking at
---@param setup userdata
---@param r table|nil its eval result, when already known
function story.show(label, setup, r)
  r = r or setup:eval()
  show(setup)
  say(string.format("On screen: %s; %s.", label, story.verdict(r)))
  return r
end

--- The sentence that names what the inference mode marks for a serving report.
---@param r table infer result (setup:infer())
function story.serve_verdict(r)
  if not r.runnable then return "it cannot serve: " .. tostring(r.why_not) end
  return string.format("the decode bottleneck is %s (%s)", r.decode_bottleneck,
    (r.decode_reason:gsub(":.*", "")))
end

--- Put a setup on screen in the inference mode and say what it shows;
--- returns its infer table. Played, the title names the setup and the
--- marked bottleneck is decode's, the one said.
---@param label string what the class is looking at
---@param setup userdata
---@param r table|nil its infer result, when already known
function story.serve(label, setup, r)
  r = r or setup:infer()
  mode("infer")
  show(setup)
  say(string.format("On screen: %s; %s.", label, story.serve_verdict(r)))
  return r
end

--- Pick dotted keys ("memory.per_device_gb") out of an eval table.
---@param r table eval result
---@param key string
function story.pick(r, key)
  local v = r
  for part in key:gmatch("[^.]+") do
    if type(v) ~= "table" then return nil end
    v = v[part]
  end
  return v
end

-- Keys whose values are shares of 1 (printed as percentages).
local SHARE_KEYS = { mfu = true, hfu = true, starvation = true, goodput = true,
  achieved_fraction = true, cooling_headroom = true, throttle_factor = true, lost_fraction = true,
  clock_share = true }

--- A table cell formatted by what its key holds: shares as percentages,
--- dollars with a "$" and an SI prefix, other numbers with an SI prefix
--- (never "1.2e+06"), text as it is.
---@param key string dotted report key ("cost.usd_total")
---@param v any
function story.cell(key, v)
  if type(v) ~= "number" then return v end
  local last = key:match("([^.]+)$") or key
  if SHARE_KEYS[last] or key:match("^utilization%.") then return string.format("%.1f%%", 100 * v) end
  if last:match("^usd") then return "$" .. mlviz.format_si(v) end
  if math.abs(v) >= 1e3 or (v ~= 0 and math.abs(v) < 1e-2) then return mlviz.format_si(v) end
  return string.format("%.3g", v)
end

--- Print the results as a table with the given columns ({key, heading}).
---@param results table[] from story.evaluate
---@param columns table[] array of {dotted key, heading}
---@param title string|nil
function story.table(results, columns, title)
  local rows, cols = {}, { "case" }
  for _, c in ipairs(columns) do cols[#cols + 1] = c[2] or c[1] end
  for i, res in ipairs(results) do
    local row = { case = res.label }
    for _, c in ipairs(columns) do row[c[2] or c[1]] = story.cell(c[1], story.pick(res.r, c[1])) end
    rows[i] = row
  end
  mlviz.print_table(rows, { columns = cols, title = title })
end

--- Index of the result with the largest (or smallest) value of key.
function story.best(results, key, smallest)
  local best, bi
  for i, res in ipairs(results) do
    local v = story.pick(res.r, key)
    if type(v) == "number" and (not best or (smallest and v < best) or (not smallest and v > best)) then
      best, bi = v, i
    end
  end
  return bi, best
end

--- Print the closing line every scenario ends with; returns the text.
function story.conclude(fmt, ...)
  local text = "Conclusion: " .. string.format(fmt, ...)
  print("")
  print(text)
  return text
end

--- A percentage with no more decimals than useful.
function story.pct(x) return string.format("%.0f%%", 100 * x) end

--- Ratio formatted as "2.3x".
function story.times(a, b) return string.format("%.1fx", a / b) end

return story

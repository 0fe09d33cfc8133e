-- story: small helpers for scenario scripts (compare setups, print, conclude).
-- Usage: local story = require("story")
local story = {}

--- Evaluate each {label, setup} case and keep the label with its result table.
--- Played, each case goes on screen as it is evaluated.
---@param cases table[] array of {label, setup}
---@return table[] results array of {label=, setup=, r=<eval table>}
function story.evaluate(cases)
  local out = {}
  for i, c in ipairs(cases) do
    show(c[2])
    out[i] = { label = c[1], setup = c[2], r = c[2]:eval() }
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

--- Print the results as a table with the given columns ({key, heading}).
---@param results table[] from story.evaluate
---@param columns table[] array of {dotted key, heading}
---@param title string|nil
function story.table(results, columns, title)
  local rows, cols = {}, { "case" }
  for _, c in ipairs(columns) do cols[#cols + 1] = c[2] or c[1] end
  for i, res in ipairs(results) do
    local row = { case = res.label }
    for _, c in ipairs(columns) do row[c[2] or c[1]] = story.pick(res.r, c[1]) end
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

-- plot: text plots of a series or of one column of a sweep.
-- Usage: local plot = require("plot"); plot.series(sim:series("throttle"), {title = "throttle"})
local plot = {}

local BLOCKS = { " ", ".", ":", "-", "=", "+", "*", "#" }

--- Horizontal bars, one per row: label, bar scaled to the largest value, number.
---@param rows table[] rows (e.g. from mlviz.sweep)
---@param label_key string column holding the label
---@param value_key string column holding the number
---@param opts table|nil {width = 40, title = "...", format = "%.3g"}
function plot.bars(rows, label_key, value_key, opts)
  opts = opts or {}
  local width, fmt = opts.width or 40, opts.format or "%.4g"
  local maxv, lw = 0, 0
  for _, r in ipairs(rows) do
    local v = r[value_key]
    if type(v) == "number" and v > maxv then maxv = v end
    lw = math.max(lw, #tostring(r[label_key]))
  end
  if opts.title then print(opts.title) end
  for _, r in ipairs(rows) do
    local v = r[value_key]
    local n = (type(v) == "number" and maxv > 0) and math.floor(v / maxv * width + 0.5) or 0
    print(string.format("  %-" .. lw .. "s |%s%s " .. fmt, tostring(r[label_key]),
      string.rep("#", n), string.rep(" ", width - n), type(v) == "number" and v or 0))
  end
end

--- A one-line sparkline of an array of numbers, resampled to width columns.
---@param values number[]
---@param opts table|nil {width = 60, title = "..."}
---@return string line
function plot.series(values, opts)
  opts = opts or {}
  local width = math.min(opts.width or 60, #values)
  if width == 0 then return "" end
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(values) do lo = math.min(lo, v); hi = math.max(hi, v) end
  local cells = {}
  for c = 1, width do
    local i = math.floor((c - 1) * #values / width) + 1
    local v = values[i]
    local k = hi > lo and math.floor((v - lo) / (hi - lo) * (#BLOCKS - 1) + 0.5) + 1 or 1
    cells[c] = BLOCKS[k]
  end
  local line = table.concat(cells)
  print(string.format("  %s [%s] %s..%s", opts.title or "", line, mlviz.format_si(lo), mlviz.format_si(hi)))
  return line
end

return plot

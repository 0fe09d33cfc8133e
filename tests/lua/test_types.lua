-- Wrong argument types everywhere: every call must raise a clear Lua error.
local s = mlviz.load("default")
local sim = mlviz.sim(s)
local bad = { nil, 42, "text", {}, true, function() end }
local calls = {
  { "mlviz.load", function(x) return mlviz.load(x) end },
  { "mlviz.setup", function(x) return mlviz.setup(x) end },
  { "mlviz.sim", function(x) return mlviz.sim(x) end },
  { "mlviz.sweep", function(x) return mlviz.sweep(s, x) end },
  { "mlviz.print_table", function(x) return mlviz.print_table(x) end },
  { "mlviz.write_csv", function(x) return mlviz.write_csv(x, x) end },
  { "mlviz.write_json", function(x) return mlviz.write_json(x, function() end) end },
  { "mlviz.params", function(x) return mlviz.params(x) end },
  { "setup:get", function(x) return s:get(x) end },
  { "setup:set", function(x) return s:copy():set("cluster.nodes", x) end },
  { "setup:set path", function(x) return s:copy():set(x, 1) end },
  { "setup.eval on a non-setup", function(x) return s.eval(x) end },
  { "sim:at", function(x) return sim:at(x, x) end },
  { "sim:run", function(x) return sim:run(x) end },
  { "sim:series", function(x) return sim:series(x) end },
  { "sim.counters on a non-sim", function(x) return sim.counters(x) end },
  { "say", function(x) return say(x) end },
  { "focus", function(x) return focus(x) end },
  { "mark", function(x) return mark(x) end },
  { "mlviz.collective", function(x) return mlviz.collective(x, x, x, x) end },
}
local failed = 0
for _, c in ipairs(calls) do
  local bad_ok = {}
  for i = 1, 6 do
    local v = bad[i]
    local ok, err = pcall(c[2], v)
    -- Strings and numbers can be legal for some calls; anything that passes
    -- must have been a legal value, anything that fails must say why.
    if not ok and (type(err) ~= "string" or #err < 10) then bad_ok[#bad_ok + 1] = tostring(err) end
    if ok and (type(v) == "table" or type(v) == "function" or type(v) == "boolean") and c[1] ~= "mlviz.setup" and c[1] ~= "mlviz.print_table" and c[1] ~= "mlviz.params" and c[1] ~= "mlviz.sweep" and c[1] ~= "setup:set path" then
      bad_ok[#bad_ok + 1] = "accepted a " .. type(v)
    end
  end
  if #bad_ok == 0 then print("PASS lua types: " .. c[1]) else failed = failed + 1; print("FAIL lua types: " .. c[1] .. ": " .. table.concat(bad_ok, "; ")) end
end
if failed > 0 then error(failed .. " type checks failed") end

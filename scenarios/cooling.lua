-- Air vs rear-door vs direct-liquid vs immersion cooling for a rack of 8-GPU servers
local P = mlviz.params{ { "nodes_per_rack", 4, "8-GPU servers in each rack" } }
local story = require("story")
local base = mlviz.load("default"):set{ name = string.format("%d DGX H100 per rack", P.nodes_per_rack), cluster = { nodes = 2 * P.nodes_per_rack },
  facility = { nodes_per_rack = P.nodes_per_rack }, training = { global_batch = 8 * 2 * P.nodes_per_rack * 2 } }
say(string.format("An 8-GPU H100 server draws about %.1f kW under load. Put %d of them in one rack...",
  base:copy():set("facility.cooling", "immersion"):eval().power.node_w / 1000, P.nodes_per_rack))
focus("infrastructure")
local cases = {}
for _, c in ipairs{ "air", "rear-door", "direct-liquid", "immersion" } do
  cases[#cases + 1] = { c, base:copy():set("facility.cooling", c) }
end
local res = story.evaluate(cases)
story.table(res, { { "power.per_rack_kw", "rack kW" }, { "power.rack_cooling_limit_kw", "limit kW" },
                   { "power.throttled", "throttled" }, { "power.throttle_factor", "speed kept" },
                   { "power.pue", "PUE" }, { "power.facility_kw", "facility kW" }, { "tokens_per_s", "tokens/s" } },
  string.format("%d servers per rack", P.nodes_per_rack))
story.show("air cooling", res[1].setup:copy{ name = string.format("%d DGX H100 per rack, air-cooled", P.nodes_per_rack) }, res[1].r)
pause()
local first_ok
for _, x in ipairs(res) do if not x.r.power.throttled and not first_ok then first_ok = x end end
local air = res[1].r
local need = res[story.best(res, "power.per_rack_kw")].r.power.per_rack_kw
story.conclude("a rack of %d servers needs %.1f kW of heat removed at full speed; air cooling removes %.0f kW so the GPUs %s; the first option without throttling is %s, and the best PUE is %.2f (%s)",
  P.nodes_per_rack, need, air.power.rack_cooling_limit_kw,
  air.power.throttled and string.format("throttle to %s of their speed", story.pct(air.power.throttle_factor)) or "keep full speed",
  first_ok and first_ok.label or "none", res[story.best(res, "power.pue", true)].r.power.pue, res[story.best(res, "power.pue", true)].label)
return { air_throttled = air.power.throttled, first_ok = first_ok and first_ok.label }

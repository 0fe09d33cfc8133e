-- a video model: 150 MB per sample; what happens as the shared storage slows?
local s = mlviz.load("default")
s:set("data.sample_bytes", 150e6)
for _, bw in ipairs{20, 2, 1, 0.5} do
  s:set("cluster.storage_bw_gbs", bw)
  local r = s:eval()
  print(string.format("%5.1f GB/s  %7.0f tokens/s  %-12s %s", bw, r.tokens_per_s,
                      r.bottleneck, r.bottleneck_reason))
end
-- four nodes in one rear-door-cooled rack lose half their cooling for an hour
s:set("cluster.storage_bw_gbs", 20)
s:set("cluster.nodes", 4)
s:set("facility.nodes_per_rack", 4)
s:set("facility.cooling", "rear-door")
local sim = mlviz.sim(s, {seed = 7})
sim:at(3600, {event = "cooling_loss", value = 0.5})
sim:at(7200, {event = "cooling_restore"})
sim:run(3 * 3600)
local c = sim:counters()
print(string.format("throttled %.0f min, hottest rack %.0f C", c.throttled_s / 60, c.max_rack_temp_c))

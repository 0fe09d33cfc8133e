-- The energy and cost of a GPT-3-scale run: 175B parameters, 300B tokens on 1,024 A100s
local P = mlviz.params{
  { "usd_per_kwh", 0.08, "electricity price" },
  { "tokens", 300e9, "training tokens" },
}
local story = require("story")
say("GPT-3 (175B parameters) was trained on about 300 billion tokens.")
say("Here it runs on 128 DGX A100 servers, Megatron-style: tensor 8 x pipeline 8 x data 16.")
focus("infrastructure")
local s = mlviz.load("gpt3-175b-a100"):set("facility.electricity_usd_per_kwh", P.usd_per_kwh):set("training.tokens", P.tokens)
local r = s:eval()
local flops = 6 * r.params * P.tokens
mlviz.print_table({
  { item = "training FLOPs (6 N D)", value = string.format("%.2e", flops) },
  { item = "throughput, tokens/s", value = string.format("%.0f", r.tokens_per_s) },
  { item = "MFU", value = story.pct(r.mfu) },
  { item = "days to train", value = string.format("%.1f", r.cost.days_to_train) },
  { item = "IT power, kW", value = string.format("%.0f", r.power.it_kw) },
  { item = "facility power, kW (PUE " .. string.format("%.2f", r.power.pue) .. ")", value = string.format("%.0f", r.power.facility_kw) },
  { item = "energy, MWh", value = string.format("%.0f", r.cost.energy_mwh) },
  { item = "electricity, USD", value = string.format("%.0f", r.cost.usd_energy) },
  { item = "GPU rental, USD", value = string.format("%.0f", r.cost.usd_devices) },
}, { columns = { "item", "value" }, title = "GPT-3 on " .. r.layout.devices .. " A100s" })
story.show(string.format("GPT-3 on %d A100s", r.layout.devices), s, r)
pause()
story.conclude("%.1f days on %d GPUs, %.0f MWh at the facility meter; electricity costs %s USD, a small share (%s) of the %s USD total",
  r.cost.days_to_train, r.layout.devices, r.cost.energy_mwh, mlviz.format_si(r.cost.usd_energy, ""),
  story.pct(r.cost.usd_energy / r.cost.usd_total), mlviz.format_si(r.cost.usd_total, ""))
return { days = r.cost.days_to_train, energy_mwh = r.cost.energy_mwh, usd_total = r.cost.usd_total }

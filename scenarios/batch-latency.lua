-- Batch buys throughput with latency: serving 1 to 256 users at once
local story = require("story")
say("A server answers many users at once: each decode step then reads the weights once for the whole batch.")
focus("accelerators")
local s = mlviz.load("default")
s:set("inference.prompt_tokens", 512)
s:set("inference.output_tokens", 256)
local rows, results = {}, {}
for _, b in ipairs{ 1, 8, 64, 256 } do
  local c = s:copy():set("inference.batch", b)
  local r = c:infer()
  results[b] = r
  rows[#rows + 1] = { batch = b, ["ms/token"] = string.format("%.1f", r.tpot_s * 1e3),
                      ["tokens/s"] = string.format("%.0f", r.output_tokens_per_s),
                      ["$/Mtok"] = string.format("%.2f", r.cost.usd_per_mtok) }
  say(string.format("Batch %d: %.1f ms per token for each user, %.0f tokens/s for the whole server, $%.2f per million tokens.",
    b, r.tpot_s * 1e3, r.output_tokens_per_s, r.cost.usd_per_mtok))
  story.serve(string.format("%d users at once", b), c, r)
  pause()
end
mlviz.print_table(rows, { "batch", "ms/token", "tokens/s", "$/Mtok" })
local one, many = results[1], results[64]
story.conclude("batch 64 serves %.0fx the tokens of batch 1 for %.1fx the time per token (%.1f ms against %.1f ms)",
  many.output_tokens_per_s / one.output_tokens_per_s, many.tpot_s / one.tpot_s, many.tpot_s * 1e3, one.tpot_s * 1e3)
return { throughput_gain = many.output_tokens_per_s / one.output_tokens_per_s, latency_cost = many.tpot_s / one.tpot_s }

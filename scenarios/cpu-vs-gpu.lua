-- One accelerator vs a CPU: the same small training step on an H100 and on a laptop processor
local P = mlviz.params{ { "layers", 12, "transformer layers of the small model" } }
local story = require("story")
say("A GPT-2-small-sized model, one device each: a laptop CPU and one H100.")
focus("accelerators")
local laptop = mlviz.load("laptop-cpu")
local model = { kind = "transformer", layers = P.layers, hidden = 768, heads = 12, kv_heads = 0, ffn_hidden = 0, seq_len = 1024, vocab = 50257, mlp = "gelu" }
laptop:set{ name = "GPT-2 small on a laptop CPU", model = model }
local gpu = mlviz.load("default"):set{ name = "GPT-2 small on one H100", model = model, cluster = { node = { accelerators_per_node = 1 } },
  training = { global_batch = laptop:get("training.global_batch"), micro_batch = laptop:get("training.micro_batch") } }
local res = story.evaluate{ { "laptop CPU (" .. laptop:get("cluster.node.accelerator") .. ")", laptop }, { "one H100", gpu } }
story.table(res, { { "step_time_s", "step s" }, { "tokens_per_s", "tokens/s" }, { "peak_tflops", "peak TFLOPS" },
                   { "power.device_w", "device W" }, { "power.energy_per_token_j", "J/token" } }, "The same step on two devices")
story.show("the H100", gpu, res[2].r)
pause()
local c, g = res[1].r, res[2].r
story.conclude("one H100 runs the step %s faster than the laptop CPU (%.3f s vs %.1f s) and spends %s less energy per token",
  story.times(c.step_time_s, g.step_time_s), g.step_time_s, c.step_time_s,
  story.times(c.power.energy_per_token_j, g.power.energy_per_token_j))
return { speedup = c.step_time_s / g.step_time_s }

-- FP32 -> TF32 -> BF16 -> FP8: what number formats do to speed and memory on H100
local story = require("story")
local P = mlviz.params{ { "preset", "default", "setup to start from" } }
say("The tensor cores of an H100 run faster the fewer bits each number has.")
focus("accelerators")
local base = mlviz.load(P.preset)
local res = {}
for _, p in ipairs{ "fp32", "tf32", "bf16", "fp8" } do
  res[#res + 1] = { p, base:copy():set("training.precision", p) }
end
res = story.evaluate(res)
story.table(res, { { "peak_tflops", "peak TFLOPS" }, { "tokens_per_s", "tokens/s" }, { "mfu" },
                   { "memory.per_device_gb", "GB/device" }, { "memory.fits", "fits" } }, "One job, four formats")
story.show("fp32", res[1].setup, res[1].r)
pause()
local fp32, bf16, fp8 = res[1].r, res[3].r, res[4].r
story.show("bf16", res[3].setup, bf16)
story.conclude("bf16 is %s faster than fp32 and fp8 another %s (engine peaks %.0f / %.0f / %.0f TFLOPS); fp32 %s in device memory",
  story.times(bf16.tokens_per_s, fp32.tokens_per_s), story.times(fp8.tokens_per_s, bf16.tokens_per_s),
  fp32.peak_tflops, bf16.peak_tflops, fp8.peak_tflops, fp32.memory.fits and "fits" or "does not fit")
return { bf16_over_fp32 = bf16.tokens_per_s / fp32.tokens_per_s, fp8_over_bf16 = fp8.tokens_per_s / bf16.tokens_per_s,
         fp32_fits = fp32.memory.fits }

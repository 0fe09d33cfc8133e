-- Data starvation: an image job waits on its loaders until more workers, a RAM cache and prefetch feed the GPUs
local P = mlviz.params{
  { "workers", 12, "loader workers per device in the cure" },
  { "cache_hit", 0.9, "share of samples served from the host RAM cache in the cure" },
  { "prefetch", 4, "batches prepared ahead in the cure" },
}
local story = require("story")

say("An image classifier (ResNet-152 sized) trains on one 8-GPU H100 server.")
say("Each sample is a 110 KB JPEG that a CPU core must decode and augment.")
focus("data")
-- ResNet-152 at 224x224: 60.2 M parameters and 11.5 G multiply-adds per image
-- forward (He et al. 2016, Table 1, counts 11.3 G; torchvision's model card 11.5 G).
-- One multiply-add is two FLOPs, and training (forward + backward) is about
-- three forwards (Kaplan et al. 2020), so 3 x 2 x 11.5e9 = 69 GFLOPs per image.
local base = mlviz.setup{
  preset = "default", name = "ResNet-152 on 8 x H100",
  model = { kind = "generic", params = 60.2e6, flops_per_sample = 3 * 2 * 11.5e9,
            activation_bytes_per_sample = 100e6 },
  training = { global_batch = 2048, micro_batch = 256, tokens = 1.28e6 * 90 },
  data = { sample_bytes = 110e3, preprocess_us_per_sample = 1000,
           loader_workers_per_device = 1, prefetch_batches = 0 },
  cluster = { storage = "object-store", storage_bw_gbs = 1 },
}
local steps = story.evaluate{
  { "1 worker, no prefetch", base },
  { "more workers", base:copy{ data = { loader_workers_per_device = P.workers } } },
  { "+ RAM cache", base:copy{ data = { loader_workers_per_device = P.workers, cache_hit = P.cache_hit } } },
  { "+ prefetch", base:copy{ data = { loader_workers_per_device = P.workers, cache_hit = P.cache_hit,
                                      prefetch_batches = P.prefetch } } },
}
local first, last = steps[1].r, steps[#steps].r
say(string.format("With one loader per GPU the bottleneck is %s: %s.", first.bottleneck, first.bottleneck_reason))
say(string.format("The GPUs sit idle %s of each step.", story.pct(first.starvation)))
story.show("one loader worker per GPU, no prefetch", base, first)
pause()
focus("cpus")
story.table(steps, { { "samples_per_s", "samples/s" }, { "starvation" }, { "bottleneck" },
                     { "utilization.accelerators", "gpu busy" } }, "Feeding the GPUs, one cure at a time")
story.show("all three cures", steps[#steps].setup:copy{ name = "ResNet-152 on 8 x H100, fed" }, last)
pause()
focus(last.bottleneck)
story.conclude("the bottleneck moves from %s to %s; throughput rises %s (%.0f -> %.0f samples/s), starvation falls from %s to %s",
  first.bottleneck, last.bottleneck, story.times(last.samples_per_s, first.samples_per_s),
  first.samples_per_s, last.samples_per_s, story.pct(first.starvation), story.pct(last.starvation))
return { before = first.bottleneck, after = last.bottleneck,
         speedup = last.samples_per_s / first.samples_per_s }

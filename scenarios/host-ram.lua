-- Host RAM smaller than device memory: why a node needs at least as much RAM as its GPUs hold
local P = mlviz.params{
  { "small_ram_gb", 256, "host RAM of the under-provisioned server" },
  { "accelerator", "h200-sxm", "accelerator of the server" },
}
local story = require("story")
say("A rule of thumb for training servers: host RAM at least equals the memory of all GPUs.")
say("Checkpoints, pinned staging buffers and offloaded optimizer state all pass through it.")
focus("cpus")
local base = mlviz.load("default"):set{ name = "Llama-8B on one 8 x " .. P.accelerator .. " server",
  cluster = { node = { accelerator = P.accelerator } } }
local per_device = mlviz.catalog.accelerators[P.accelerator].mem_gb
local gpus = base:get("cluster.node.accelerators_per_node")
local device_total = per_device * gpus
local cases = story.evaluate{
  { string.format("%d GB host RAM", base:get("cluster.node.host_ram_gb")), base },
  { string.format("%d GB host RAM", P.small_ram_gb), base:copy():set("cluster.node.host_ram_gb", P.small_ram_gb) },
}
story.table(cases, { { "checks.host_ram_ok", "ram ok" }, { "checks.pcie_lanes_ok", "lanes ok" },
                     { "tokens_per_s", "tokens/s" } }, "The same server with two amounts of RAM")
say(string.format("%d x %s hold %.0f GB of device memory.", gpus, P.accelerator, device_total))
story.show(cases[2].label, cases[2].setup, cases[2].r)
pause()
local small = cases[2].r
story.conclude("%d GB of host RAM is %s for %.0f GB of device memory (engine check host_ram_ok = %s); "
  .. "the step time is unchanged (%.3f s) - the risk is checkpointing and offload, not speed",
  P.small_ram_gb, small.checks.host_ram_ok and "enough" or "too little", device_total,
  tostring(small.checks.host_ram_ok), small.step_time_s)
return { host_ram_ok = small.checks.host_ram_ok, device_total_gb = device_total }

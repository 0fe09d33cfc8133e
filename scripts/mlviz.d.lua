---@meta
-- LuaLS annotations of the mlviz scripting API (docs/lua-api.md).
-- Point your editor's Lua language server at this directory to complete it.

---@class mlviz.Setup
local Setup = {}
---Value of a field by its YAML path ("cluster.nodes"); "auto" for automatic numbers.
---@param path string
---@return number|string|boolean
function Setup:get(path) end
---Set a field (or many from a nested / dotted table); returns the setup for chaining.
---@param path string|table
---@param value? number|string|boolean
---@return mlviz.Setup
function Setup:set(path, value) end
---An independent copy, optionally with changes applied (same table forms as set).
---@param changes? table
---@return mlviz.Setup
function Setup:copy(changes) end
---The analytic model: the same fields as `mlviz eval --format json`.
---@return mlviz.Report
function Setup:eval() end
---Serving the model: the same fields as `mlviz infer --format json`.
---Settings (inference.* field names without the prefix) apply to a copy first.
---@param settings? table
---@return table
function Setup:infer(settings) end
---Cross-field check against the catalog: true, or nil and the message.
---@return boolean|nil ok
---@return string|nil message
function Setup:check() end
---The whole setup as YAML text.
---@return string
function Setup:yaml() end
---Number of accelerators (nodes x per node).
---@return integer
function Setup:devices() end

---@class mlviz.Report
---@field name string
---@field runnable boolean
---@field why_not string
---@field step_time_s number
---@field device_step_s number
---@field tokens_per_s number
---@field samples_per_s number
---@field tflops_per_device number
---@field mfu number
---@field hfu number
---@field hfu_model_convention number
---@field flops_convention string
---@field peak_tflops number
---@field achieved_fraction number
---@field starvation number
---@field params number
---@field params_active number
---@field flops_per_step number
---@field model_flops_per_step number
---@field bottleneck "data"|"cpus"|"accelerators"|"interconnect"|"infrastructure"
---@field bottleneck_reason string
---@field next_bottleneck string
---@field next_reason string
---@field layout table  accelerator, devices, nodes, racks, data_parallel, tensor_parallel, pipeline_parallel, context_parallel, expert_parallel, virtual_stages, micro_batches, zero_stage, recompute, precision, software
---@field breakdown_s table data_read, preprocess, host_to_device, compute, recompute, tp_comm, cp_comm, ep_comm, pp_bubble, pp_p2p, dp_comm_exposed, optimizer, straggler, overhead
---@field utilization table data, cpus, accelerators, interconnect, infrastructure (0..1)
---@field stages table read_s, preprocess_s, host_to_device_s, device_s, forward_s, backward_s, dp_comm_s, tp_comm_s, storage_bw_gbs, need_bw_gbs, cpu_cores_busy, cpu_cores_total
---@field memory table per_device_gb, params_gb, grads_gb, optimizer_gb, activations_gb, logits_gb, reserved_gb, experts_gb, capacity_gb, fits
---@field suggestions table[] {text, changes, saves_gb, per_device_gb, fits}
---@field power table device_w, node_w, it_kw, facility_kw, pue, per_rack_kw, rack_cooling_limit_kw, cooling_headroom, throttled, throttle_factor, rack_temp_c, energy_per_step_j, energy_per_token_j
---@field cost table usd_per_hour, days_to_train, energy_mwh, usd_total, usd_energy, usd_devices
---@field reliability table interruptions_per_day, mtbf_h, checkpoint_gb, checkpoint_write_s, checkpoint_interval_min, lost_fraction, goodput
---@field checks table host_ram_ok, pcie_lanes_ok, pcie_lanes_needed, pcie_lanes_have, rack_power_ok

---@class mlviz.Sim
local Sim = {}
---Schedule a function (called with the sim) or an event table at t (seconds or "2h").
---Events: {event="fail_device"|"fail_node"|"cooling_loss"|"cooling_restore"|"storage_slow"|"storage_restore"|"stop"|"set", path=, value=}
---@param t number|string
---@param fn_or_event fun(sim: mlviz.Sim)|table
---@return mlviz.Sim
function Sim:at(t, fn_or_event) end
---Advance by a duration (seconds or "15m"). Played in the TUI, this animates.
---@param duration number|string
---@return mlviz.Sim
function Sim:run(duration) end
---Change a setup field now.
---@param path string
---@param value number|string|boolean
---@return mlviz.Sim
function Sim:set(path, value) end
---Counters: time_s, ticks, steps, useful_steps, tokens, failures, device_failures, node_failures, restarts, checkpoints, lost_s, starved_s, throttled_s, checkpoint_s, energy_j, energy_kwh, avg_facility_kw, tokens_per_s, max_rack_temp_c, stopped, items_in/items_out/items_inside (by stage).
---@return table
function Sim:counters() end
---A recorded series (mlviz.series_names) as an array, oldest first.
---@param name string
---@return number[]
function Sim:series(name) end
---The analytic report the sim runs on (after events).
---@return mlviz.Report
function Sim:report() end
---A copy of the sim's current setup.
---@return mlviz.Setup
function Sim:setup() end
---Simulated time in seconds.
---@return number
function Sim:time() end
---The step loop's tick in seconds, and whether it was chosen automatically.
---@return number tick_s
---@return boolean automatic
function Sim:tick() end
---Free the simulation now (the GC does it otherwise).
function Sim:close() end

---@class mlviz
---@field catalog table read-only: mlviz.catalog.accelerators["h100-sxm"].bf16_tflops
---@field stages string[]
---@field series_names string[]
---@field event_names string[]
---@field played boolean
---@field seed integer
---@field trusted boolean
---@field version string
mlviz = {}
---Load a setup file or a preset by name ("default", "gpt3-175b-a100").
---@param path_or_preset string
---@return mlviz.Setup
function mlviz.load(path_or_preset) end
---Build a setup from a nested table in YAML shape (preset = "name" to start from one).
---@param t table
---@return mlviz.Setup
function mlviz.setup(t) end
---A step-loop simulation of a setup.
---@param setup mlviz.Setup
---@param opts? {seed?: integer, jitter?: boolean, failures?: boolean, thermal?: boolean, tick_s?: number, sample_interval_s?: number, series_capacity?: integer, compute_jitter_cv?: number, storage_jitter_cv?: number}
---@return mlviz.Sim
function mlviz.sim(setup, opts) end
---Evaluate every combination of the axes (run in C). Rows have the axis paths and the result fields; rows.columns lists them.
---@param setup mlviz.Setup
---@param axes table {{path, {values}}, ...} or {[path] = {values}}
---@param opts? {fields?: string[]}
---@return table[] rows
function mlviz.sweep(setup, axes, opts) end
---The search of `mlviz plan`: layouts of the setup's devices and the hardware in `vary`, ranked by `objective`.
---Result: candidates, evaluated, runnable, objective, top (ranked rows: rank, figures, simulated_step_s, closed_form_step_s, changes, setup), front (Pareto front by days), base.
---@param setup mlviz.Setup
---@param opts? {vary?: string[]|table<string, any[]>, max?: {days?: number, devices?: integer}, objective?: "tokens_per_s"|"days"|"usd_total"|"energy_mwh"|"mfu", top?: integer, threads?: integer, rescore?: boolean}
---@return table result
function mlviz.plan(setup, opts) end
---Print rows as an aligned table.
---@param rows table[]
---@param opts? {columns?: string[], title?: string}
function mlviz.print_table(rows, opts) end
---Write rows as CSV under the output directory; returns the path.
---@param name string
---@param rows table[]
---@param opts? {columns?: string[]}
---@return string
function mlviz.write_csv(name, rows, opts) end
---Write a Lua value as JSON under the output directory; returns the path.
---@param name string
---@param value any
---@return string
function mlviz.write_json(name, value) end
---Declare parameters ({name, default, help}); returns their values (command line wins).
---@param list table[]
---@return table
function mlviz.params(list) end
---Every setup field: path, type, unit, default, help, min, max, knob, stage.
---@return table[]
function mlviz.fields() end
---Time of one collective; returns seconds and the algorithm used.
---@param op "all-reduce"|"all-gather"|"reduce-scatter"|"broadcast"
---@param algo "auto"|"ring"|"tree"|"hierarchical"
---@param bytes number
---@param net {devices?: integer, per_node?: integer, intra_bw_gbs?: number, intra_lat_s?: number, inter_bw_gbs?: number, inter_lat_s?: number}
---@return number seconds
---@return string algorithm
function mlviz.collective(op, algo, bytes, net) end
---@param d number|string
---@return number seconds
function mlviz.parse_duration(d) end
---@param seconds number
---@return string
function mlviz.format_duration(seconds) end
---@param v number
---@param unit? string
---@return string
function mlviz.format_si(v, unit) end

---The arguments' tostring, tab-separated, on one line: stdout headless, the transcript pane in the TUI.
---@param ... any
function print(...) end
---Narration: a caption in the TUI, "  > text" headless.
---@param text string
function say(text) end
---Wait for the presenter's key (TUI); returns at once headless.
function pause() end
---Open a stage view by name ("data".."infrastructure") or number 1-5.
---@param stage string|integer
function focus(stage) end
---Played: put a setup (or a simulation) on screen; headless: checks its argument.
---@param what userdata a setup or a sim
---@param options table|nil { focus = stage } also opens that stage view
function show(what, options) end
---How the view reads the five stages: "infer" (serving the setup on screen, as key i does) or "train" (the default); headless: checks the name.
---@param name string "infer" | "train"
function mode(name) end
---A labelled moment on the timeline.
---@param label string
function mark(label) end

-- Why answers stream: a prompt is read all at once, an answer one token at a time
local story = require("story")
local P = mlviz.params{ { "prompt", 1024, "tokens in the question" } }
say("A chat model reads your whole question in one pass (prefill), then writes the answer one token at a time (decode).")
focus("accelerators")
local s = mlviz.load("default")
s:set("inference.prompt_tokens", P.prompt)
s:set("inference.output_tokens", 256)
s:set("inference.batch", 1)
local r = s:infer()
local per_prompt_token = r.ttft_s / P.prompt
say(string.format("Prefill: %d tokens in %.1f ms, %.0f microseconds a token. %s.", P.prompt,
  r.ttft_s * 1e3, per_prompt_token * 1e6, r.prefill_reason))
story.serve(string.format("one user, a %d-token prompt", P.prompt), s, r)
pause()
say(string.format("Decode: every new token reads all %.1f GB of weights again, for one token: %.1f ms a token. %s.",
  r.decode.weight_gb, r.tpot_s * 1e3, r.decode_reason))
focus("accelerators")
story.serve("the same user, decoding", s, r)
pause()
local ratio = r.tpot_s / per_prompt_token
story.conclude("a %d-token prompt takes %.0f ms (%.0f us a token); each answer token takes %.1f ms, %.0fx longer, because decode reads every weight for one token",
  P.prompt, r.ttft_s * 1e3, per_prompt_token * 1e6, r.tpot_s * 1e3, ratio)
return { decode_over_prefill_per_token = ratio, decode_memory_bound = r.decode_reason:find("memory%-bound") ~= nil }

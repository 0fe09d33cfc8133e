-- The KV cache caps how many users fit: Llama 3 70B on eight H100s at 2k to 128k tokens
local story = require("story")
say("Every token a conversation holds keeps its keys and values in device memory: the KV cache.")
focus("accelerators")
-- Llama 3 70B's shape (Meta's released config): 80 layers, 8 KV heads of 128.
local s = mlviz.load("default"):set{ model = { layers = 80, hidden = 8192, heads = 64, kv_heads = 8,
  ffn_hidden = 28672, vocab = 128256, mlp = "swiglu", tied_embeddings = false } }
s:set("name", "Llama 3 70B on 8 H100")
s:set("inference.tensor_parallel", 8)
s:set("inference.weight_precision", "fp8")
s:set("inference.kv_precision", "fp8")
s:set("inference.output_tokens", 512)
local fits = {}
for _, ctx in ipairs{ 2048, 8192, 32768, 131072 } do
  local c = s:copy():set("inference.prompt_tokens", ctx)
  local r = c:infer()
  fits[ctx] = r.max_batch
  say(string.format("%d-token conversations: %.0f kB of cache per token, %d conversations fit in the %.0f GB left after the weights.",
    ctx, r.kv_bytes_per_token / 1e3, r.max_batch, r.memory.kv_capacity_tokens * r.kv_bytes_per_token / r.layout.devices / 1e9))
  story.serve(string.format("%d-token conversations", ctx), c, r)
  pause()
end
story.conclude("at 131072 tokens a conversation only %d users fit on the eight GPUs, against %d at 2048 tokens",
  fits[131072], fits[2048])
return { users_2k = fits[2048], users_128k = fits[131072] }

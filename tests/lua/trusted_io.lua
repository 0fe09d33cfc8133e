-- Trusted mode: io and os are back.
local f = assert(io.open("/etc/hostname") or io.open("/dev/null"))
f:close()
assert(type(os.getenv) == "function")

local f, e = load("\27Lua binary")
assert(f, e)

package.loadlib("libc.so.6", "system")

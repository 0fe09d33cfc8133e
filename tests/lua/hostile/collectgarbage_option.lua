collectgarbage("generational")

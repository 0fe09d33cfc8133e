-- Runs until a signal interrupts it (tests/lua/run.sh sends SIGINT/SIGTERM).
print("started")
local sim = mlviz.sim(mlviz.load("default"))
sim:run(1e9)

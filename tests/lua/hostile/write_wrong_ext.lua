-- A script-shaped file from the CSV writer.
mlviz.write_csv("evil.lua", {{a = "os.execute()"}})

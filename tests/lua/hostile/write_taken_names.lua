-- Writes under names something else holds (output directory of tests/lua/hostile.sh):
-- a link to a file outside, a dangling link, a link to a directory outside, a
-- directory and an earlier run's file; twice, so the second round replaces
-- the first round's files and nothing else.
for round = 1, 2 do
    for _, name in ipairs { "link.csv", "dangling.csv", "ldir.csv", "dir.csv", "earlier.csv" } do
        print(mlviz.write_csv(name, { { round = round } }))
    end
end

-- Removing, renaming and temp files through os.
os.remove("Makefile")

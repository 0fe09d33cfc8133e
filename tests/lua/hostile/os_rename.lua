os.rename("Makefile", "x")

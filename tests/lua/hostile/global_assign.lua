count = 1

local f = string.dump(print)

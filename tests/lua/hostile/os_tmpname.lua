local n = os.tmpname()

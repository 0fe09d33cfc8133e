os.execute("echo pwned")

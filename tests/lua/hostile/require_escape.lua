require("../../etc/passwd")

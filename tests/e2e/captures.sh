#!/bin/sh
# The screen captures in README.md and docs/*.md are what the binary shows
# (tests/captures.sh: how they are made deterministic, and --write).
exec sh "$(dirname "$0")/../captures.sh"

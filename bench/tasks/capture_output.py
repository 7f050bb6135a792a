#!/usr/bin/python3
"""Runs a command with its stdout in a file and, once it ends, its exit code
in another: how a task keeps an app's stdout and exit code for its checker
(the app is its child, so app_launch still finds its window).

  capture_output.py OUT_FILE RC_FILE COMMAND [ARG…]
"""
import subprocess
import sys

out_path, rc_path, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(out_path, "wb") as out:
    code = subprocess.call(argv, stdout=out)
with open(rc_path + ".tmp", "w") as f:
    f.write("%d\n" % code)
import os  # noqa: E402
os.replace(rc_path + ".tmp", rc_path)

#!/usr/bin/python3
"""Reference for bench/act: clicking an element with pyatspi.

Finds the check box named NAME in the application with pid PID (once, not
timed), then times N calls of its first action (doAction(0)), and N
"by name" clicks that look the element up again (a walk of the window by
role and name, as pyatspi scripts do) before each doAction. Prints
"ACTION_MEDIAN_MS LOOKUP_AND_ACTION_MEDIAN_MS" in milliseconds. No
verification: pyatspi has none.
"""
import statistics
import sys
import time

import pyatspi


def find(obj, role, name):
    if obj is None:
        return None
    if obj.getRole() == role and obj.name == name:
        return obj
    for child in obj:
        found = find(child, role, name)
        if found is not None:
            return found
    return None


def main():
    pid, name, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    desktop = pyatspi.Registry.getDesktop(0)
    app = next(a for a in desktop if a is not None and a.get_process_id() == pid)
    box = find(app, pyatspi.ROLE_CHECK_BOX, name)
    action = box.queryAction()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        action.doAction(0)
        times.append((time.perf_counter() - start) * 1000)
    lookups = []
    for _ in range(n):
        start = time.perf_counter()
        find(app, pyatspi.ROLE_CHECK_BOX, name).queryAction().doAction(0)
        lookups.append((time.perf_counter() - start) * 1000)
    print("%.3f %.3f" % (statistics.median(times), statistics.median(lookups)))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Reference walk for bench/observe: pyatspi, one attribute at a time.

Reads role, name, states, screen extents, actions and children of every node
of the application with the given pid, the way agent tools built on pyatspi
do, and prints "NODES SECONDS" for the best of N runs.
"""
import sys
import time

import pyatspi


def walk(obj):
    count = 1
    obj.getRole()
    obj.name
    obj.getState()
    try:
        obj.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    except NotImplementedError:
        pass
    try:
        action = obj.queryAction()
        for i in range(action.nActions):
            action.getName(i)
    except NotImplementedError:
        pass
    for child in obj:
        if child is not None:
            count += walk(child)
    return count


def main():
    pid, runs = int(sys.argv[1]), int(sys.argv[2])
    desktop = pyatspi.Registry.getDesktop(0)
    app = next(a for a in desktop if a is not None and a.get_process_id() == pid)
    best = None
    nodes = 0
    for _ in range(runs):
        start = time.perf_counter()
        nodes = walk(app)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    print(nodes, best)


if __name__ == "__main__":
    main()

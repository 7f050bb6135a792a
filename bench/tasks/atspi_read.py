#!/usr/bin/python3
"""A separate accessibility client: prints, as one JSON list, the name and text
of every element of an app (of a role, if given) on the desktop its
environment names. The task checkers read an app's state through this, not
through uiscope.

  atspi_read.py APP [--role ROLE]    APP: the app's accessible name (case-insensitive)
"""
import json
import sys

import pyatspi


def texts_of(node):
    out = []
    name = node.name or ""
    if name:
        out.append(name)
    try:
        text = node.queryText()
        content = text.getText(0, text.characterCount)
        if content and content != name:
            out.append(content)
    except NotImplementedError:
        pass
    try:
        value = node.queryValue().currentValue
        out.append(str(value))
    except NotImplementedError:
        pass
    return out


def walk(node, role, out, depth=0):
    if node is None or depth > 60:
        return
    try:
        if role is None or node.getRoleName() == role:
            out.extend(texts_of(node))
        for i in range(node.childCount):
            walk(node.getChildAtIndex(i), role, out, depth + 1)
    except Exception:  # an element that went away while being read
        return


def main():
    app = sys.argv[1].casefold()
    role = sys.argv[sys.argv.index("--role") + 1] if "--role" in sys.argv else None
    desktop = pyatspi.Registry.getDesktop(0)
    apps = [desktop.getChildAtIndex(i) for i in range(desktop.childCount)]
    apps = [a for a in apps if a is not None and (a.name or "").casefold() == app]
    if not apps:
        names = [desktop.getChildAtIndex(i).name for i in range(desktop.childCount)]
        sys.exit("no accessible app named %r (apps: %s)" % (app, names))
    out = []
    for a in apps:
        walk(a, role, out)
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()

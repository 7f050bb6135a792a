"""Inkscape: an SVG the task wrote, edited and saved; the checker parses the
SVG's XML."""
from checkers import svg_elements
from suite import Task

SHAPES = '''<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120" viewBox="0 0 200 120">
  <rect id="left" x="10" y="10" width="80" height="80" style="fill:#ff0000"/>
  <rect id="right" x="110" y="10" width="80" height="80" style="fill:#0000ff"/>
</svg>
'''

TASKS = [
    Task(
        name="inkscape-delete-all",
        goal="Delete every shape in shapes.svg with Inkscape and save the drawing.",
        setup=lambda ctx: ctx.write("shapes.svg", SHAPES),
        command=["inkscape", "{dir}/shapes.svg"],
        needs=["inkscape"],
        launch_timeout_ms=120000,
        steps=[
            "menu Edit > Select All",
            "keys Delete",
            "keys ctrl+s",
            "wait 3000 ms",
        ],
        check=svg_elements("shapes.svg", "rect", count=0),
    ),
]

"""GIMP: an image the task wrote, changed through menus and overwritten; the
checker decodes the PNG's pixels."""
from checkers import encode_png, pixels
from suite import Task


def white_square(ctx):
    ctx.write("square.png", encode_png(32, 32, lambda x, y: (255, 255, 255)))


TASKS = [
    Task(
        name="gimp-invert",
        goal="Invert the colours of square.png in GIMP and overwrite the file.",
        setup=white_square,
        command=["gimp", "--new-instance", "--no-splash", "--no-fonts", "--no-data",
                 "{dir}/square.png"],
        needs=["gimp"],
        launch_timeout_ms=120000,
        steps=[
            "menu Colors > Invert",
            "menu File > Overwrite square.png",
            "wait 3000 ms",
        ],
        check=pixels("square.png", [((0, 0), (0, 0, 0)), ((16, 16), (0, 0, 0)),
                                    ((31, 31), (0, 0, 0))], size=(32, 32)),
    ),
]

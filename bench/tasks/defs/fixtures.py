"""The project's GTK 3 fixture (build/bin): a login form and a volume slider.
Its state is read back by a separate pyatspi client."""
from checkers import atspi_text
from suite import Task

FIXTURE = "{bin}/uiscope-fixture-gtk3"

TASKS = [
    Task(
        name="fixture-login",
        goal="Log in to the fixture app as ada@example.org.",
        command=[FIXTURE],
        needs=[FIXTURE],
        quick=True,
        steps=[
            "type ada@example.org into the Email field",
            "click the button labelled Login",
        ],
        check=atspi_text("uiscope-fixture", "Logged in as ada@example.org", role="label",
                         exact=True),
    ),
    Task(
        name="fixture-volume",
        goal="Turn the fixture app's volume up to 80.",
        command=[FIXTURE],
        needs=[FIXTURE],
        quick=True,
        steps=["set Volume to 80"],
        check=atspi_text("uiscope-fixture", "80.0", role="slider", exact=True),
    ),
    Task(
        name="fixture-colour",
        goal="In the fixture app's Advanced tab, choose Green as the colour.",
        command=[FIXTURE],
        needs=[FIXTURE],
        quick=True,
        steps=[
            "click the tab labelled Advanced",
            "choose Green in Red",
        ],
        check=atspi_text("uiscope-fixture", "Green", role="combo box", exact=True),
    ),
]

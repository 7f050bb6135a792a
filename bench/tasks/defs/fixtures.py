"""The project's fixtures (build/bin): GTK 3, GTK 4 and Qt 5 windows with a
login form, a volume slider, tabs and a list. Their state is read back by a
separate pyatspi client."""
from checkers import atspi_text
from suite import Task

FIXTURE = "{bin}/uiscope-fixture-gtk3"
GTK4 = "{bin}/uiscope-fixture-gtk4"
QT5 = "{bin}/uiscope-fixture-qt5"

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
    Task(
        name="fixture-add-row",
        goal="Add a row to the fixture app's list.",
        command=[FIXTURE],
        needs=[FIXTURE],
        quick=True,
        steps=["click the button labelled Add row"],
        check=atspi_text("uiscope-fixture", "New row 1", exact=True),
    ),
    Task(
        name="gtk4-login",
        goal="Log in to the GTK 4 fixture app as grace@example.org.",
        command=[GTK4],
        needs=[GTK4],
        quick=True,
        steps=[
            "type grace@example.org into the Email field",
            "click the button labelled Login",
        ],
        check=atspi_text("uiscope-fixture-gtk4", "Logged in as grace@example.org", exact=True),
    ),
    Task(
        name="qt5-login",
        goal="Log in to the Qt 5 fixture app as linus@example.org.",
        command=[QT5],
        needs=[QT5],
        quick=True,
        steps=[
            "type linus@example.org into the Email field",
            "click the button labelled Login",
        ],
        check=atspi_text("uiscope-fixture-qt5", "Logged in as linus@example.org", exact=True),
    ),
    Task(
        name="qt5-volume",
        goal="Turn the Qt 5 fixture app's volume up to 80.",
        command=[QT5],
        needs=[QT5],
        steps=["set Volume to 80"],
        check=atspi_text("uiscope-fixture-qt5", "80.0", role="slider", exact=True),
    ),
    Task(
        name="gtk4-add-row",
        goal="Add a row to the GTK 4 fixture app's list.",
        command=[GTK4],
        needs=[GTK4],
        steps=["click the button labelled Add row"],
        check=atspi_text("uiscope-fixture-gtk4", "New row 1", exact=True),
    ),
    Task(
        name="qt5-add-row",
        goal="Add a row to the Qt 5 fixture app's list.",
        command=[QT5],
        needs=[QT5],
        steps=["click the button labelled Add row"],
        check=atspi_text("uiscope-fixture-qt5", "New row 1", exact=True),
    ),
]

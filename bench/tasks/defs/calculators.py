"""GNOME Calculator (GTK 3) and KCalc (Qt 5): sums clicked on their keypads;
the display is read back by a separate pyatspi client."""
from checkers import atspi_text
from suite import Task

TASKS = [
    Task(
        name="gnome-calculator-multiply",
        goal="Work out 7 × 6 with the calculator's buttons.",
        command=["gnome-calculator"],
        needs=["gnome-calculator"],
        quick=True,
        steps=[
            "click the button labelled 7",
            "click the button labelled ×",
            "click the button labelled 6",
            "click the button labelled =",
        ],
        check=atspi_text("gnome-calculator", "42", exact=True),
    ),
    Task(
        name="kcalc-add",
        goal="Work out 12 + 30 with KCalc's buttons.",
        command=["kcalc"],
        needs=["kcalc"],
        steps=[
            "click the button labelled 1",
            "click the button labelled 2",
            "click the button labelled +",
            "click the button labelled 3",
            "click the button labelled 0",
            "click the button labelled =",
        ],
        check=atspi_text("kcalc", "42", exact=True),
    ),
    Task(
        name="gnome-calculator-divide",
        goal="Work out 96 ÷ 8 with the calculator's buttons.",
        command=["gnome-calculator"],
        needs=["gnome-calculator"],
        steps=[
            "click the button labelled 9",
            "click the button labelled 6",
            "click the button labelled ÷",
            "click the button labelled 8",
            "click the button labelled =",
        ],
        check=atspi_text("gnome-calculator", "12", exact=True),
    ),
    Task(
        name="kcalc-multiply",
        goal="Work out 9 × 8 with KCalc's buttons.",
        command=["kcalc"],
        needs=["kcalc"],
        steps=[
            "click the button labelled 9",
            "click the button labelled ×",
            "click the button labelled 8",
            "click the button labelled =",
        ],
        check=atspi_text("kcalc", "72", exact=True),
    ),
    Task(
        name="gnome-calculator-typed",
        goal="Work out 12 × 12 by typing it into the calculator.",
        command=["gnome-calculator"],
        needs=["gnome-calculator"],
        steps=["type 12*12\\n"],
        check=atspi_text("gnome-calculator", "144", exact=True),
    ),
]

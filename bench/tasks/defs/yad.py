"""yad (GTK 3): a form with a text field, a number and a check box; yad
prints the values on stdout, separated by |, with exit code 0 for OK."""
from checkers import stdout_and_exit
from suite import Task, captured

TASKS = [
    Task(
        name="yad-form",
        goal="Register Ada, aged 36, as a member in the form, and confirm.",
        command=captured("yad", "--form", "--title=Club", "--text=Register a person",
                         "--field=Name", "--field=Age:NUM", "--field=Member:CHK", "", "30",
                         "FALSE"),
        app="yad",
        needs=["yad"],
        steps=[
            "type Ada into the Name field",
            "set Age to 36",
            "tick Member",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Ada|36|TRUE|\n", 0),
    ),
]

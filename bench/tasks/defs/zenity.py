"""zenity dialogs (GTK 3): what the person chose is what zenity prints on
stdout, with exit code 0 for OK."""
from checkers import stdout_and_exit
from suite import Task, captured


def zenity(*args):
    return captured("zenity", *args)


TASKS = [
    Task(
        name="zenity-entry",
        goal="Name the new project 'Quarterly report' in the dialog and confirm.",
        command=zenity("--entry", "--title=New project", "--text=Project name:"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "type Quarterly report into the Project name field",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Quarterly report\n", 0),
    ),
    Task(
        name="zenity-list",
        goal="Pick Plum from the fruit list and confirm.",
        command=zenity("--list", "--title=Fruit", "--text=Pick a fruit", "--column=Fruit",
                       "Apple", "Pear", "Plum", "Quince"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "click Plum",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Plum\n", 0),
    ),
    Task(
        name="zenity-scale",
        goal="Set the brightness to 65 in the dialog and confirm.",
        command=zenity("--scale", "--title=Brightness", "--text=Brightness", "--value=20",
                       "--min-value=0", "--max-value=100"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "set Brightness to 65",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "65\n", 0),
    ),
    Task(
        name="zenity-question-no",
        goal="Answer No to the dialog's question about deleting the backups.",
        command=zenity("--question", "--title=Backups", "--text=Delete all backups?"),
        app="zenity",
        needs=["zenity"],
        steps=["click the button labelled No"],
        check=stdout_and_exit("out.txt", "rc.txt", "", 1),
    ),
]

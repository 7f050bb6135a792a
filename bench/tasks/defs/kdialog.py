"""kdialog (Qt 5, KDE Frameworks): an input box, a combo box, a checklist and a
save dialog. What the person chose is what kdialog prints on stdout, with
exit code 0 for OK."""
from checkers import stdout_and_exit, stdout_is_path
from suite import Task, captured


def kdialog(*args):
    return captured("kdialog", *args)



TASKS = [
    Task(
        name="kdialog-inputbox",
        goal="Name the new project 'Quarterly report' in the dialog and confirm.",
        command=kdialog("--title", "New project", "--inputbox", "Project name:", ""),
        app="kdialog",
        needs=["kdialog"],
        steps=[
            "type Quarterly report into the Project name field",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Quarterly report\n", 0),
    ),
    Task(
        name="kdialog-combobox",
        goal="Pick Lisbon as the city in the dialog and confirm.",
        command=kdialog("--title", "Office", "--combobox", "Pick a city:",
                        "Berlin", "Lisbon", "Oslo", "--default", "Berlin"),
        app="kdialog",
        needs=["kdialog"],
        steps=[
            "choose Lisbon in Berlin",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Lisbon\n", 0),
    ),
    Task(
        name="kdialog-checklist",
        goal="Choose olives and basil as the pizza toppings and confirm.",
        command=kdialog("--title", "Toppings", "--separate-output", "--checklist",
                        "Pick toppings:", "cheese", "Cheese", "off", "olives", "Olives", "off",
                        "ham", "Ham", "off", "basil", "Basil", "off"),
        app="kdialog",
        needs=["kdialog"],
        steps=[
            "tick Olives",
            "tick Basil",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "olives\nbasil\n", 0),
    ),
    Task(
        name="kdialog-save-file",
        goal="In the save dialog, name the export budget.csv in the task's folder and save.",
        command=kdialog("--title", "Export budget", "--getsavefilename", "{dir}/"),
        app="kdialog",
        needs=["kdialog"],
        launch_timeout_ms=60000,
        steps=[
            "type budget.csv into the Name field",
            "click the button labelled Save",
        ],
        check=stdout_is_path("budget.csv"),
    ),
]

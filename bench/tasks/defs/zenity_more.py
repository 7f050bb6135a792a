"""More zenity dialogs (GTK 3): a form of several fields, a calendar, a save
dialog and a checklist. What the person chose is what zenity prints on
stdout, with exit code 0 for OK."""
from checkers import stdout_and_exit, stdout_is_path
from suite import Task, captured


def zenity(*args):
    return captured("zenity", *args)



TASKS = [
    Task(
        name="zenity-forms",
        goal="Sign up Ada Lovelace, ada@example.org, in the dialog's form and confirm.",
        command=zenity("--forms", "--title=Sign up", "--text=New member",
                       "--add-entry=First name", "--add-entry=Last name",
                       "--add-entry=Email"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "type Ada into the First name field",
            "type Lovelace into the Last name field",
            "type ada@example.org into the Email field",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Ada|Lovelace|ada@example.org\n", 0),
    ),
    Task(
        name="zenity-calendar",
        goal="Pick 15 March 2027 in the calendar dialog and confirm.",
        command=zenity("--calendar", "--title=Delivery date", "--text=Pick the delivery day",
                       "--day=1", "--month=3", "--year=2027", "--date-format=%Y-%m-%d"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "click 15",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "2027-03-15\n", 0),
    ),
    Task(
        name="zenity-file-save",
        goal="In the save dialog, name the export report.csv in the task's folder and confirm.",
        command=zenity("--file-selection", "--save", "--title=Export report",
                       "--filename={dir}/"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "type report.csv into the Name field",
            "click the button labelled OK",
        ],
        check=stdout_is_path("report.csv"),
    ),
    Task(
        name="zenity-checklist",
        goal="Choose olives and basil as the pizza toppings and confirm.",
        command=zenity("--list", "--checklist", "--title=Toppings", "--text=Pick toppings",
                       "--column=Pick", "--column=Topping", "--separator=,",
                       "FALSE", "Cheese", "FALSE", "Olives", "FALSE", "Ham", "FALSE", "Basil"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "tick Olives",
            "tick Basil",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Olives,Basil\n", 0),
    ),
    Task(
        name="zenity-text-info",
        goal="Write 'Call the plumber' in the notes dialog and confirm.",
        command=zenity("--text-info", "--editable", "--title=Notes"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "type Call the plumber",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Call the plumber", 0),
    ),
    Task(
        name="zenity-password",
        goal="Log in as ada with the password s3cret in the dialog.",
        command=zenity("--password", "--username", "--title=Log in"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "type ada into the Username field",
            "type s3cret into the Password field",
            "click the button labelled OK",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "ada|s3cret\n", 0),
    ),
    Task(
        name="zenity-colour",
        goal="Pick the colour #00ff00 (pure green) in the colour dialog and confirm.",
        command=zenity("--color-selection", "--title=Label colour", "--color=#ff0000"),
        app="zenity",
        needs=["zenity"],
        steps=[
            "replace the text of the Color Name field with #00ff00",
            "keys Return",
            "click the button labelled Select",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "rgb(0,255,0)\n", 0),
    ),
]

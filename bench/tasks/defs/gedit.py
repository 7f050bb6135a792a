"""gedit (GTK 3): text typed and saved; the checker reads the file's bytes."""
from checkers import file_bytes
from suite import Task

TASKS = [
    Task(
        name="gedit-save-new",
        goal="Write 'Hello from the task suite' in a new gedit document and save it "
             "as note.txt in the task's folder.",
        command=["gedit", "--new-window", "--standalone"],
        needs=["gedit"],
        quick=True,
        steps=[
            "type Hello from the task suite",
            "keys ctrl+s",
            "wait for the dialog labelled Save As",
            "replace the text of the Name field with {dir}/note.txt",
            "click the button labelled Save",
            "wait 1000 ms",
        ],
        check=file_bytes("note.txt", "Hello from the task suite", strip_final_newline=True),
    ),
    Task(
        name="gedit-append-line",
        goal="Add the line 'buy bread' at the end of todo.txt and save it.",
        setup=lambda ctx: ctx.write("todo.txt", "buy milk\n"),
        command=["gedit", "--standalone", "{dir}/todo.txt"],
        needs=["gedit"],
        steps=[
            "keys ctrl+End",
            "type \\nbuy bread",
            "keys ctrl+s",
            "wait 1000 ms",
        ],
        check=file_bytes("todo.txt", "buy milk\nbuy bread\n"),
    ),
    Task(
        name="gedit-replace",
        goal="In prices.txt, replace every 'EUR' with '€' using gedit's Find and Replace, "
             "and save.",
        setup=lambda ctx: ctx.write("prices.txt", "tea 3 EUR\ncake 5 EUR\n"),
        command=["gedit", "--standalone", "{dir}/prices.txt"],
        needs=["gedit"],
        steps=[
            "keys ctrl+h",
            "wait for the dialog labelled Find and Replace",
            "type EUR into the Find field",
            "type € into the Replace with field",
            "click the button labelled Replace All",
            "click the button labelled Close",
            "keys ctrl+s",
            "wait 1000 ms",
        ],
        check=file_bytes("prices.txt", "tea 3 €\ncake 5 €\n"),
    ),
]

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
]

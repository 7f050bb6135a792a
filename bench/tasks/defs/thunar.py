"""Thunar (GTK 3), a file manager, open on the task's folder: a file renamed
and a folder created; the checker looks at the file system."""
from checkers import all_of, directory, file_absent, file_bytes
from suite import Task

TASKS = [
    Task(
        name="thunar-rename",
        goal="Rename draft.txt to final.txt in the file manager.",
        setup=lambda ctx: ctx.write("draft.txt", "version 1\n"),
        command=["thunar", "{dir}"],
        needs=["thunar"],
        steps=[
            "click draft.txt",
            "keys F2",
            "keys ctrl+a",
            "type final.txt\\n",
            "wait 1000 ms",
        ],
        check=all_of(file_bytes("final.txt", "version 1\n"), file_absent("draft.txt")),
    ),
    Task(
        name="thunar-new-folder",
        goal="Create a folder named Invoices in the task's folder with the file manager.",
        command=["thunar", "{dir}"],
        needs=["thunar"],
        steps=[
            "menu File > Create Folder…",
            "keys ctrl+a",
            "type Invoices\\n",
            "wait 1000 ms",
        ],
        check=directory("Invoices"),
    ),
]

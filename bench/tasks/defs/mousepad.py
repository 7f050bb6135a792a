"""Mousepad (GTK 3): Save As through its menu; the checker reads the file."""
from checkers import file_bytes
from suite import Task

TASKS = [
    Task(
        name="mousepad-save-as",
        goal="Write 'Meeting at noon' in Mousepad and save it as meeting.txt in the "
             "task's folder, using the File menu.",
        command=["mousepad", "--disable-server"],
        needs=["mousepad"],
        steps=[
            "type Meeting at noon",
            "menu File > Save As…",
            "wait for the dialog labelled Save As",
            "replace the text of the Name field with {dir}/meeting.txt",
            "click the button labelled Save",
            "wait 1000 ms",
        ],
        check=file_bytes("meeting.txt", "Meeting at noon", strip_final_newline=True),
    ),
]

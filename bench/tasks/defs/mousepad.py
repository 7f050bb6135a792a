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
    Task(
        name="mousepad-replace",
        goal="In notes.txt, replace every 'colour' with 'color' using Mousepad's Find and "
             "Replace, and save.",
        setup=lambda ctx: ctx.write("notes.txt", "colour red\nno colour here\ncolour blue\n"),
        # Mousepad keeps its search options in GSettings, shared by every run:
        # a fresh in-memory store gives each run the same starting dialog.
        command=["env", "GSETTINGS_BACKEND=memory", "mousepad", "--disable-server",
                 "{dir}/notes.txt"],
        needs=["mousepad"],
        steps=[
            "menu Search > Find and Replace…",
            "wait for the dialog labelled Find and Replace",
            "type colour into the Search for field",
            "type color into the Replace with field",
            "tick Replace all",
            "click the button labelled Replace",
            "click the button labelled Close",
            "keys ctrl+s",
            "wait 1000 ms",
        ],
        check=file_bytes("notes.txt", "color red\nno color here\ncolor blue\n"),
    ),
]

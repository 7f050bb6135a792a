"""xterm (no accessibility: its window and OCR). The shell's work is read
back from the files it wrote."""
from checkers import all_of, file_absent, file_bytes
from suite import Task

TASKS = [
    Task(
        name="xterm-echo",
        goal="In the terminal, write 'hello tasks' into hello.txt in the task's folder.",
        command=["xterm", "-geometry", "100x30+60+60"],
        needs=["xterm"],
        quick=True,
        steps=[
            "type cd {dir}\\n",
            "type echo hello tasks > hello.txt\\n",
            "type exit\\n",
        ],
        check=file_bytes("hello.txt", "hello tasks\n"),
    ),
    Task(
        name="xterm-sort",
        goal="In the terminal, in the task's folder, sort names.txt into sorted.txt and remove names.txt.",
        setup=lambda ctx: ctx.write("names.txt", "pear\napple\nfig\n"),
        command=["xterm", "-geometry", "100x30+60+60"],
        needs=["xterm"],
        steps=[
            "type cd {dir}\\n",
            "type sort names.txt > sorted.txt && rm names.txt\\n",
            "type exit\\n",
        ],
        check=all_of(file_bytes("sorted.txt", "apple\nfig\npear\n"),
                     file_absent("names.txt")),
    ),
    Task(
        name="xterm-archive",
        goal="In the terminal, in the task's folder, move report.txt into a new folder "
             "archive/2026.",
        setup=lambda ctx: ctx.write("report.txt", "Q4 figures\n"),
        command=["xterm", "-geometry", "100x30+60+60"],
        needs=["xterm"],
        steps=[
            "type cd {dir}\\n",
            "type mkdir -p archive/2026 && mv report.txt archive/2026/\\n",
            "type exit\\n",
        ],
        check=all_of(file_bytes("archive/2026/report.txt", "Q4 figures\n"),
                     file_absent("report.txt")),
    ),
]

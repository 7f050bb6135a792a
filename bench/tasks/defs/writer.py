"""LibreOffice Writer: a letter the task wrote, extended and saved, and a new
document saved under a name; the checker reads the paragraphs of the .odt
file's content.xml."""
import subprocess

from checkers import document_text
from suite import Task


def make_letter(ctx):
    """The task's letter: a text file turned into .odt by soffice itself."""
    ctx.write("letter.txt", "Dear Grace,\nThe figures are ready.\n")
    subprocess.run(["soffice", "-env:UserInstallation=file://%s/convert-profile" % ctx.dir,
                    "--headless", "--convert-to", "odt", "--outdir", ctx.dir,
                    ctx.path("letter.txt")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180, check=True)


def writer(*files):
    def argv(ctx):
        return (["soffice", "-env:UserInstallation=file://%s/profile" % ctx.dir, "--norestore",
                 "--nologo", "--writer"] + [ctx.path(f) for f in files])
    return argv


TASKS = [
    Task(
        name="writer-append",
        goal="Sign letter.odt 'Kind regards, Ada' on a line of its own at the end, and save.",
        setup=make_letter,
        command=writer("letter.odt"),
        needs=["soffice"],
        launch_timeout_ms=90000,
        steps=[
            "keys ctrl+End",
            "type \\nKind regards, Ada",
            "keys ctrl+s",
            "wait 2000 ms",
        ],
        check=document_text("letter.odt", ["Dear Grace,", "The figures are ready.",
                                           "Kind regards, Ada"]),
    ),
    Task(
        name="writer-save-as",
        goal="Write 'Minutes of the meeting' in a new Writer document and save it as "
             "minutes.odt in the task's folder.",
        command=writer(),
        needs=["soffice"],
        launch_timeout_ms=90000,
        steps=[
            "type Minutes of the meeting",
            "keys ctrl+shift+s",
            "wait for the dialog labelled Save",
            "replace the text of the Name field with {dir}/minutes.odt",
            "click the button labelled Save",
            "wait 2000 ms",
        ],
        check=document_text("minutes.odt", ["Minutes of the meeting"]),
    ),
]

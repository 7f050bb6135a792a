"""LibreOffice Calc: cells typed through the Name Box and saved; the checker
reads the .ods file's content.xml, or the CSV soffice converts it to."""
import subprocess

from checkers import cells
from suite import Task


def make_ods(ctx):
    """The task's workbook: a CSV turned into .ods by soffice itself."""
    ctx.write("stock.csv", "Item,Qty\nApples,3\nPears,8\n")
    subprocess.run(["soffice", "-env:UserInstallation=file://%s/convert-profile" % ctx.dir,
                    "--headless", "--convert-to", "ods", "--outdir", ctx.dir,
                    ctx.path("stock.csv")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180, check=True)


def calc(ctx):
    return ["soffice", "-env:UserInstallation=file://%s/profile" % ctx.dir, "--norestore",
            "--nologo", "--calc", ctx.path("stock.ods")]


TASKS = [
    Task(
        name="calc-add-row",
        goal="In stock.ods, add a row for Plums with quantity 12 under Pears, and save.",
        setup=make_ods,
        command=calc,
        needs=["soffice"],
        launch_timeout_ms=90000,
        steps=[
            "replace the text of the Name Box field with A4\\n",
            "type Plums\\t12\\n",
            "keys ctrl+s",
            "wait 2000 ms",
        ],
        check=cells("stock.ods", {"A4": "Plums", "B4": "12", "A3": "Pears", "B3": "8"}),
    ),
    Task(
        name="calc-sum-formula",
        goal="In stock.ods, put the total quantity in B4 with a formula, and save.",
        setup=make_ods,
        command=calc,
        needs=["soffice"],
        launch_timeout_ms=90000,
        steps=[
            "click the cell labelled B4",
            "type =SUM(B2:B3)\\n",
            "keys ctrl+s",
            "wait 2000 ms",
        ],
        check=cells("stock.ods", {"B4": "11", "B2": "3"}, reader="soffice"),
    ),
]

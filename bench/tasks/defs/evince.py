"""Evince (GTK 3), a PDF viewer: a three-page PDF the task writes, paged
through; the page Evince shows is read back by a separate pyatspi client
(the page number in its tool bar)."""
from checkers import atspi_text
from suite import Task


def pdf(pages):
    """A minimal PDF, one line of Helvetica text per page."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", None,
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for text in pages:
        stream = "BT /F1 36 Tf 72 700 Td (%s) Tj ET" % text
        objects.append("<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                       "/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>"
                       % len(objects))
        kids.append("%d 0 R" % len(objects))
    objects[1] = "<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join(kids), len(kids))
    out, offsets = b"%PDF-1.4\n", []
    for i, body in enumerate(objects):
        offsets.append(len(out))
        out += ("%d 0 obj\n%s\nendobj\n" % (i + 1, body)).encode()
    xref = len(out)
    out += ("xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)).encode()
    out += "".join("%010d 00000 n \n" % o for o in offsets).encode()
    out += ("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, xref)).encode()
    return out


def write_pdf(ctx):
    ctx.write("pages.pdf", pdf(["Page one", "Page two", "Page three"]))


TASKS = [
    Task(
        name="evince-last-page",
        goal="Show the last page of pages.pdf in Evince.",
        setup=write_pdf,
        command=["evince", "{dir}/pages.pdf"],
        needs=["evince"],
        launch_timeout_ms=60000,
        steps=["keys ctrl+End", "wait 1000 ms"],
        check=atspi_text("evince", "3", role="text", exact=True),
    ),
]

#!/usr/bin/python3
"""Each checker kind of the task suite passes the right outcome and fails a
wrong one: wrong bytes, a missing file, a wrong cell, a wrong pixel, a wrong
element count, wrong stdout or exit code, a wrong posted field, a wrong text
read by the accessibility client. And the harness reads labels as a model
would. No display needed."""
import os
import shutil
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "tasks"))

import checkers  # noqa: E402
import harness  # noqa: E402
import suite  # noqa: E402


class Ctx:
    def __init__(self, directory):
        self.dir = directory
        self.env = dict(os.environ)


def write(ctx, name, data):
    with open(os.path.join(ctx.dir, name), "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


CONTENT_XML = '''<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">
<office:body><office:spreadsheet><table:table table:name="Sheet1">
<table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell>
 <table:table-cell><text:p>Qty</text:p></table:table-cell></table:table-row>
<table:table-row table:number-rows-repeated="2"><table:table-cell><text:p>Same</text:p></table:table-cell>
 <table:table-cell table:number-columns-repeated="2"/><table:table-cell><text:p>%s</text:p></table:table-cell></table:table-row>
</table:table></office:spreadsheet></office:body></office:document-content>
'''


def write_ods(ctx, name, d3):
    with zipfile.ZipFile(os.path.join(ctx.dir, name), "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", CONTENT_XML % d3)


ODT_XML = '''<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">
<office:body><office:text><text:h>Title</text:h>
<text:p>Dear <text:s/>Grace,<text:tab/>now</text:p><text:p><text:span>Kind</text:span> regards</text:p>
</office:text></office:body></office:document-content>
'''


def write_odt(ctx, name):
    with zipfile.ZipFile(os.path.join(ctx.dir, name), "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", ODT_XML)


class CheckerTest(unittest.TestCase):
    def setUp(self):
        self.ctx = Ctx(tempfile.mkdtemp(prefix="checkers-test-"))

    def tearDown(self):
        shutil.rmtree(self.ctx.dir)

    def assertPasses(self, check):
        ok, message = check(self.ctx)
        self.assertTrue(ok, message)

    def assertFails(self, check, words):
        ok, message = check(self.ctx)
        self.assertFalse(ok, message)
        self.assertIn(words, message)

    # -- file bytes -----------------------------------------------------------

    def test_file_bytes(self):
        write(self.ctx, "a.txt", "hello\n")
        self.assertPasses(checkers.file_bytes("a.txt", "hello\n"))
        self.assertFails(checkers.file_bytes("a.txt", "hellO\n"), "holds")
        self.assertFails(checkers.file_bytes("a.txt", "hello"), "holds")
        self.assertPasses(checkers.file_bytes("a.txt", "hello", strip_final_newline=True))

    def test_file_bytes_missing_file(self):
        self.assertFails(checkers.file_bytes("nope.txt", "x", timeout_s=0), "does not exist")

    def test_file_absent(self):
        self.assertPasses(checkers.file_absent("gone.txt"))
        write(self.ctx, "here.txt", "")
        self.assertFails(checkers.file_absent("here.txt"), "still exists")

    def test_directory(self):
        os.mkdir(os.path.join(self.ctx.dir, "Invoices"))
        self.assertPasses(checkers.directory("Invoices"))
        self.assertFails(checkers.directory("Receipts"), "does not exist")
        write(self.ctx, "plain", "")
        self.assertFails(checkers.directory("plain"), "is not a folder")

    # -- text documents -------------------------------------------------------

    def test_document_text(self):
        write_odt(self.ctx, "d.odt")
        self.assertPasses(checkers.document_text("d.odt", ["Title", "Dear  Grace,\tnow",
                                                           "Kind regards"]))
        self.assertFails(checkers.document_text("d.odt", ["Title", "Dear Grace,",
                                                          "Kind regards"]), "has the paragraphs")
        self.assertFails(checkers.document_text("d.odt", ["Title"]), "has the paragraphs")
        self.assertFails(checkers.document_text("none.odt", []), "does not exist")
        write(self.ctx, "bad.odt", "not a zip")
        self.assertFails(checkers.document_text("bad.odt", []), "cannot be read")

    # -- spreadsheets ---------------------------------------------------------

    def test_ods_cells(self):
        write_ods(self.ctx, "s.ods", "42")
        self.assertPasses(checkers.cells("s.ods", {"A1": "Item", "D2": "42", "D3": "42",
                                                    "A3": "Same", "B2": ""}))
        self.assertFails(checkers.cells("s.ods", {"D3": "41"}), "D3 is '42', want '41'")
        self.assertFails(checkers.cells("s.ods", {"A4": "Same"}), "A4")

    def test_ods_not_a_spreadsheet(self):
        write(self.ctx, "bad.ods", "not a zip")
        self.assertFails(checkers.cells("bad.ods", {"A1": "x"}), "cannot be read")

    def test_csv_cells(self):
        write(self.ctx, "s.csv", "a,b\n1,\"x,y\"\n")
        self.assertPasses(checkers.cells("s.csv", {"B2": "x,y", "A2": "1"}, reader="csv"))
        self.assertFails(checkers.cells("s.csv", {"B2": "x"}, reader="csv"), "B2")

    @unittest.skipUnless(shutil.which("soffice"), "soffice is not installed")
    def test_soffice_cells(self):
        write(self.ctx, "s.csv", "a,b\n2,=A2*21\n")
        self.assertPasses(checkers.cells("s.csv", {"B2": "42"}, reader="soffice"))
        self.assertFails(checkers.cells("s.csv", {"B2": "43"}, reader="soffice"), "B2 is '42'")

    # -- images ---------------------------------------------------------------

    def test_pixels(self):
        png = checkers.encode_png(8, 6, lambda x, y: (255, 0, 0) if x < 4 else (0, 0, 255))
        write(self.ctx, "p.png", png)
        self.assertPasses(checkers.pixels("p.png", [((0, 0), (255, 0, 0)), ((7, 5), (0, 0, 255))],
                                          size=(8, 6)))
        self.assertFails(checkers.pixels("p.png", [((5, 1), (255, 0, 0))]), "(5,1) is (0, 0, 255)")
        self.assertFails(checkers.pixels("p.png", [((9, 1), (255, 0, 0))]), "outside")
        self.assertFails(checkers.pixels("p.png", [], size=(8, 8)), "is 8x6")
        self.assertFails(checkers.pixels("none.png", []), "does not exist")

    def test_pixels_every_filter(self):
        # Filters 1-4 (sub, up, average, Paeth), hand-encoded, decode to the
        # same picture as filter 0.
        import struct
        import zlib
        width, rows = 3, [[(10, 20, 30), (40, 50, 60), (70, 80, 90)],
                          [(15, 25, 35), (45, 55, 65), (75, 85, 95)],
                          [(1, 2, 3), (200, 100, 50), (9, 8, 7)],
                          [(90, 90, 90), (10, 10, 10), (255, 255, 255)],
                          [(0, 0, 0), (128, 128, 128), (60, 70, 80)]]
        flat = [bytes(b for p in r for b in p) for r in rows]
        raw, prev = b"", bytes(9)
        for f, line in enumerate(flat):
            out = bytearray()
            for i, v in enumerate(line):
                a = line[i - 3] if i >= 3 else 0
                b = prev[i]
                c = prev[i - 3] if i >= 3 else 0
                if f == 0:
                    pred = 0
                elif f == 1:
                    pred = a
                elif f == 2:
                    pred = b
                elif f == 3:
                    pred = (a + b) // 2
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                out.append((v - pred) & 255)
            raw += bytes([f]) + bytes(out)
            prev = line

        def chunk(kind, body):
            return (struct.pack(">I", len(body)) + kind + body +
                    struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
        png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, 5, 8, 2,
                                                                   0, 0, 0)) +
               chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
        w, h, decoded = checkers.decode_png(png)
        self.assertEqual((w, h), (3, 5))
        self.assertEqual([[p[:3] for p in r] for r in decoded], rows)

    def test_pixels_not_png(self):
        write(self.ctx, "p.png", b"GIF89a")
        self.assertFails(checkers.pixels("p.png", [((0, 0), (0, 0, 0))]), "not a readable PNG")

    # -- SVG ------------------------------------------------------------------

    def test_svg_elements(self):
        write(self.ctx, "d.svg", '<svg xmlns="http://www.w3.org/2000/svg"><g>'
                                 '<rect style="fill:#ff0000;stroke:none" width="5"/></g></svg>')
        self.assertPasses(checkers.svg_elements("d.svg", "rect", count=1,
                                                attrs={"fill": "#FF0000", "width": "5"}))
        self.assertFails(checkers.svg_elements("d.svg", "rect", count=0), "has 1 <rect>")
        self.assertFails(checkers.svg_elements("d.svg", "rect", attrs={"fill": "#00ff00"}),
                         "no <rect>")
        write(self.ctx, "bad.svg", "<svg")
        self.assertFails(checkers.svg_elements("bad.svg", "rect", count=0), "not XML")

    # -- processes ------------------------------------------------------------

    def test_stdout_and_exit(self):
        write(self.ctx, "out.txt", "Plum\n")
        write(self.ctx, "rc.txt", "0\n")
        self.assertPasses(checkers.stdout_and_exit("out.txt", "rc.txt", "Plum\n", 0))
        self.assertFails(checkers.stdout_and_exit("out.txt", "rc.txt", "Pear\n", 0), "stdout")
        self.assertFails(checkers.stdout_and_exit("out.txt", "rc.txt", "Plum\n", 1),
                         "exit code 0, want 1")

    def test_stdout_and_exit_app_still_running(self):
        write(self.ctx, "out.txt", "")
        self.assertFails(checkers.stdout_and_exit("out.txt", "rc.txt", "", 0, timeout_s=0),
                         "has not exited")

    def test_form_post(self):
        write(self.ctx, "posted.txt", "recipient=Ada+Lovelace&colour=Red")
        self.assertPasses(checkers.form_post("posted.txt", {"recipient": "Ada Lovelace"}))
        self.assertFails(checkers.form_post("posted.txt", {"colour": "Green"}), "colour='Red'")
        self.assertFails(checkers.form_post("posted.txt", {"fragile": "yes"}), "fragile=None")
        self.assertFails(checkers.form_post("none.txt", {}, timeout_s=0), "nothing was posted")

    # -- accessibility, read by a separate client -----------------------------

    def fake_reader(self, texts):
        script = os.path.join(self.ctx.dir, "reader.py")
        write(self.ctx, script, "import json, sys\nprint(json.dumps(%r))\n" % (texts,))
        return [sys.executable, script]

    def test_atspi_text(self):
        reader = self.fake_reader(["7×6", "42"])
        self.assertPasses(checkers.atspi_text("calc", "42", exact=True, reader=reader))
        self.assertFails(checkers.atspi_text("calc", "41", exact=True, reader=reader),
                         "shows none of '41'")
        self.assertFails(checkers.atspi_text("calc", "4", exact=True, reader=reader), "none of")
        self.assertPasses(checkers.atspi_text("calc", "4", reader=reader))

    def test_atspi_reader_that_fails(self):
        reader = [sys.executable, "-c", "import sys; sys.exit('no accessible app named x')"]
        self.assertFails(checkers.atspi_text("x", "42", reader=reader), "no accessible app")

    def test_all_of_stops_at_the_first_failure(self):
        write(self.ctx, "a.txt", "a")
        self.assertFails(checkers.all_of(checkers.file_bytes("a.txt", "a"),
                                         checkers.file_absent("a.txt")), "still exists")


class HarnessReadingTest(unittest.TestCase):
    FIND = (
        '[label "Save As" id=lbl_0001]\n'
        '[button "Save" id=btn_00a1 bounds=1,2,3,4] click=2,3\n'
        '[menu_item "Save As…" id=mi_00b2 bounds=1,2,3,4] click=2,3 score=0.80\n'
        '[button desc="Clear Display [Escape]" id=btn_00c3]\n'
    )

    def pick(self, text, label, role_word=None):
        hit = harness.Agent(None)._pick(text, label, harness.ROLE_WORDS.get(role_word, []))
        return hit and hit[2]

    def test_exact_name_of_the_said_role_wins(self):
        self.assertEqual(self.pick(self.FIND, "Save", "button"), "btn_00a1")
        self.assertEqual(self.pick(self.FIND, "Save As...", "menu item"), "mi_00b2")

    def test_a_description_is_a_label(self):
        self.assertEqual(self.pick(self.FIND, "Clear Display [Escape]", "button"), "btn_00c3")

    def test_nothing_like_the_label(self):
        self.assertIsNone(self.pick(self.FIND, "Open", "button"))
        self.assertIsNone(self.pick("No elements matching 'Open' found.", "Open"))

    def test_field_beside_its_label(self):
        tree = ('[window "Order form" id=win_1]\n'
                '  [label "Customer name" id=lbl_2 source=ocr]\n'
                '  [text_field id=txt_3 source=vision]\n'
                '  [label "Quantity" id=lbl_4 source=ocr]\n'
                '  [text_field id=txt_5 source=vision]\n')
        roles = harness.ROLE_WORDS["field"]
        self.assertEqual(harness.Agent(None)._beside(tree, "Quantity", roles)[2], "txt_5")
        self.assertIsNone(harness.Agent(None)._beside(tree, "Recipient", roles))

    def test_quoted_names_with_escapes(self):
        rows = harness.parse_lines('[button "Say \\"hi\\"" id=btn_9]')
        self.assertEqual(rows[0][:3], ("button", 'Say "hi"', "btn_9"))

    def test_every_task_step_is_understood(self):
        agent = harness.Agent(None)
        for task in suite.load_tasks():
            for step in task.steps:
                self.assertTrue(any(p.match(step) for p, _ in agent.STEPS),
                                "%s: %r" % (task.name, step))


if __name__ == "__main__":
    unittest.main()

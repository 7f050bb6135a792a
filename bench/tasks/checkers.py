"""Checkers: each reads a task's real outcome without uiscope.

A checker is a callable `check(ctx) -> (ok, message)`, where ctx is the
task's context (ctx.dir: its temporary directory; ctx.env: the desktop's
environment, for a separate accessibility client). They read the file's
bytes, the spreadsheet's cells (the .ods XML, or a CSV soffice converted),
the image's pixels (a PNG decoded here), the SVG's elements, the app's stdout
and exit code, or the app's state through pyatspi in another process — never
anything uiscope said. Stdlib only.
"""

import csv
import io
import json
import os
import struct
import subprocess
import time
import urllib.parse
import xml.etree.ElementTree as ET
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def _path(ctx, name):
    return name if os.path.isabs(name) else os.path.join(ctx.dir, name)


def _wait_for_file(path, timeout_s):
    deadline = time.monotonic() + timeout_s
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    return os.path.exists(path)


def _show(data, n=80):
    text = repr(data)
    return text if len(text) <= n else text[:n] + "…"


# -- files --------------------------------------------------------------------

def file_bytes(name, expected, strip_final_newline=False, timeout_s=3):
    """The file holds exactly `expected` (bytes or str as UTF-8). With
    strip_final_newline, one trailing newline an editor adds is forgiven."""
    want = expected.encode() if isinstance(expected, str) else expected

    def check(ctx):
        path = _path(ctx, name)
        if not _wait_for_file(path, timeout_s):
            return False, "%s does not exist" % name
        with open(path, "rb") as f:
            got = f.read()
        if strip_final_newline and got.endswith(b"\n") and not want.endswith(b"\n"):
            got = got[:-1]
        if got != want:
            return False, "%s holds %s, want %s" % (name, _show(got), _show(want))
        return True, "%s holds the %d bytes wanted" % (name, len(want))
    return check


def file_absent(name):
    """The file does not exist (deleted, or never written)."""
    def check(ctx):
        if os.path.exists(_path(ctx, name)):
            return False, "%s still exists" % name
        return True, "%s is gone" % name
    return check


def directory(name):
    """A folder of this name exists (not a file)."""
    def check(ctx):
        path = _path(ctx, name)
        if not os.path.exists(path):
            return False, "%s does not exist" % name
        if not os.path.isdir(path):
            return False, "%s is not a folder" % name
        return True, "%s is a folder" % name
    return check


# -- text documents -----------------------------------------------------------

def odt_paragraphs(path):
    """The paragraphs and headings of an .odt file's body, in order, as text
    (a tab or a line break inside a paragraph as \\t or \\n)."""
    with zipfile.ZipFile(path) as z:
        root = ET.fromstring(z.read("content.xml"))
    t = "{%s}" % _NS["text"]

    def text_of(e):
        out = e.text or ""
        for child in e:
            tag = child.tag
            if tag == t + "s":
                out += " " * int(child.get(t + "c", "1"))
            elif tag == t + "tab":
                out += "\t"
            elif tag == t + "line-break":
                out += "\n"
            else:
                out += text_of(child)
            out += child.tail or ""
        return out
    body = root.find("office:body", _NS)
    return [text_of(e) for e in body.iter() if e.tag in (t + "p", t + "h")]


def document_text(name, expected):
    """The text document (.odt) holds exactly these paragraphs, in order."""
    def check(ctx):
        path = _path(ctx, name)
        if not _wait_for_file(path, 3):
            return False, "%s does not exist" % name
        try:
            got = odt_paragraphs(path)
        except (zipfile.BadZipFile, ET.ParseError, KeyError, OSError, AttributeError) as e:
            return False, "%s cannot be read as a text document: %s" % (name, e)
        if got != list(expected):
            return False, "%s has the paragraphs %s, want %s" % (
                name, _show(got, 160), _show(list(expected), 160))
        return True, "%s has the %d paragraphs wanted" % (name, len(got))
    return check


# -- spreadsheets -------------------------------------------------------------

_NS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}


def _column_index(letters):
    n = 0
    for c in letters:
        n = n * 26 + (ord(c.upper()) - ord("A") + 1)
    return n - 1


def _split_ref(ref):
    letters = "".join(c for c in ref if c.isalpha())
    return int(ref[len(letters):]) - 1, _column_index(letters)


def ods_grid(path, sheet=0, max_repeat=1000):
    """The first sheet's cells as rows of display strings, read from the
    .ods file's content.xml."""
    with zipfile.ZipFile(path) as z:
        root = ET.fromstring(z.read("content.xml"))
    tables = root.findall(".//table:table", _NS)
    if not tables:
        raise ValueError("no table in %s" % path)
    grid = []
    t = "{%s}" % _NS["table"]
    for row in tables[sheet].iter(t + "table-row"):
        cells = []
        for cell in row:
            if cell.tag not in (t + "table-cell", t + "covered-table-cell"):
                continue
            text = "\n".join("".join(p.itertext()) for p in cell.findall("text:p", _NS))
            repeat = min(int(cell.get(t + "number-columns-repeated", "1")), max_repeat)
            cells.extend([text] * repeat)
        repeat = min(int(row.get(t + "number-rows-repeated", "1")), max_repeat)
        grid.extend([cells] * repeat)
    return grid


def csv_grid(path):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return list(csv.reader(f))


def soffice_csv_grid(path, workdir):
    """The first sheet as soffice itself converts it to CSV (headless)."""
    out = os.path.join(workdir, "converted")
    os.makedirs(out, exist_ok=True)
    profile = "file://" + os.path.join(workdir, "soffice-profile")
    subprocess.run(["soffice", "-env:UserInstallation=" + profile, "--headless",
                    "--convert-to", "csv", "--outdir", out, path],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    base = os.path.splitext(os.path.basename(path))[0] + ".csv"
    return csv_grid(os.path.join(out, base))


def _cell(grid, ref):
    r, c = _split_ref(ref)
    if r < len(grid) and c < len(grid[r]):
        return grid[r][c]
    return ""


def cells(name, expected, reader="ods"):
    """The spreadsheet's cells hold these display values ({"B2": "42"}).
    reader: "ods" (content.xml), "csv" (the file is CSV), "soffice" (the file
    converted to CSV by soffice --headless)."""
    def check(ctx):
        path = _path(ctx, name)
        if not _wait_for_file(path, 3):
            return False, "%s does not exist" % name
        try:
            if reader == "ods":
                grid = ods_grid(path)
            elif reader == "csv":
                grid = csv_grid(path)
            else:
                grid = soffice_csv_grid(path, ctx.dir)
        except (zipfile.BadZipFile, ET.ParseError, ValueError, KeyError, OSError,
                subprocess.SubprocessError) as e:
            return False, "%s cannot be read as a spreadsheet: %s" % (name, e)
        wrong = ["%s is %r, want %r" % (ref, _cell(grid, ref), want)
                 for ref, want in sorted(expected.items()) if _cell(grid, ref) != want]
        if wrong:
            return False, "; ".join(wrong)
        return True, "cells %s as wanted" % ", ".join(sorted(expected))
    return check


# -- images -------------------------------------------------------------------

def decode_png(data):
    """(width, height, rows of (r, g, b, a)) of an 8- or 16-bit, non-interlaced
    PNG of any colour type."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, palette, trns = 8, b"", None, None
    width = height = depth = ctype = interlace = None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if width is None:
        raise ValueError("PNG without IHDR")
    if interlace:
        raise ValueError("interlaced PNG not supported")
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    if depth < 8 and ctype != 3 and ctype != 0:
        raise ValueError("bit depth %d not supported" % depth)
    bits = channels * depth
    stride = (width * bits + 7) // 8
    bpp = max(1, bits // 8)
    raw = zlib.decompress(idat)
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        prev = line
        rows.append(_pixels(bytes(line), width, depth, ctype, palette, trns))
    return width, height, rows


def _pixels(line, width, depth, ctype, palette, trns):
    if depth < 8:
        per = 8 // depth
        samples = [(line[i // per] >> (8 - depth * (i % per + 1))) & ((1 << depth) - 1)
                   for i in range(width)]
        if ctype == 3:
            return [palette[s] + (trns[s] if trns and s < len(trns) else 255,)
                    for s in samples]
        scale = 255 // ((1 << depth) - 1)
        return [(s * scale,) * 3 + (255,) for s in samples]
    step = depth // 8
    values = [line[i] for i in range(0, len(line), step)]  # the high byte of 16-bit samples
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    out = []
    for x in range(width):
        v = values[x * channels:(x + 1) * channels]
        if ctype == 0:
            out.append((v[0], v[0], v[0], 255))
        elif ctype == 2:
            out.append((v[0], v[1], v[2], 255))
        elif ctype == 3:
            out.append(palette[v[0]] + ((trns[v[0]] if trns and v[0] < len(trns) else 255),))
        elif ctype == 4:
            out.append((v[0], v[0], v[0], v[1]))
        else:
            out.append(tuple(v))
    return out


def pixels(name, expected, tolerance=8, size=None):
    """The PNG's pixels at these points are these colours: [((x, y), (r, g, b)), …]
    each channel within `tolerance`; `size` (w, h) if given."""
    def check(ctx):
        path = _path(ctx, name)
        if not _wait_for_file(path, 3):
            return False, "%s does not exist" % name
        try:
            with open(path, "rb") as f:
                w, h, rows = decode_png(f.read())
        except (ValueError, KeyError, zlib.error, struct.error) as e:
            return False, "%s is not a readable PNG: %s" % (name, e)
        if size and (w, h) != tuple(size):
            return False, "%s is %dx%d, want %dx%d" % (name, w, h, size[0], size[1])
        wrong = []
        for (x, y), colour in expected:
            if x >= w or y >= h:
                wrong.append("(%d,%d) is outside %dx%d" % (x, y, w, h))
                continue
            got = rows[y][x]
            if any(abs(got[i] - colour[i]) > tolerance for i in range(3)):
                wrong.append("(%d,%d) is %s, want %s" % (x, y, got[:3], tuple(colour)))
        if wrong:
            return False, "; ".join(wrong)
        return True, "%d pixels as wanted" % len(expected)
    return check


# -- SVG ----------------------------------------------------------------------

def svg_elements(name, tag, count=None, attrs=None):
    """The SVG holds `count` elements named `tag` (any namespace), and if attrs
    is given, one of them has those attribute values (style properties too)."""
    def check(ctx):
        path = _path(ctx, name)
        if not _wait_for_file(path, 3):
            return False, "%s does not exist" % name
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            return False, "%s is not XML: %s" % (name, e)
        found = [e for e in root.iter() if e.tag.split("}")[-1] == tag]
        if count is not None and len(found) != count:
            return False, "%s has %d <%s>, want %d" % (name, len(found), tag, count)
        if attrs:
            for e in found:
                style = dict(p.split(":", 1) for p in e.get("style", "").split(";") if ":" in p)
                values = {k.split("}")[-1]: v for k, v in e.attrib.items()}
                values.update({k.strip(): v.strip() for k, v in style.items()})
                if all(values.get(k, "").lower() == str(v).lower() for k, v in attrs.items()):
                    return True, "%s has a <%s> with %s" % (name, tag, attrs)
            return False, "no <%s> in %s has %s" % (tag, name, attrs)
        return True, "%s has %d <%s>" % (name, len(found), tag)
    return check


# -- processes ----------------------------------------------------------------

def stdout_and_exit(out_name, rc_name, stdout, exit_code=0, timeout_s=10):
    """The app's stdout (captured by the task's command into out_name) is
    `stdout` and its exit code (written to rc_name when it ended) is exit_code."""
    def check(ctx):
        rc_path = _path(ctx, rc_name)
        if not _wait_for_file(rc_path, timeout_s):
            return False, "the app has not exited (no %s after %d s)" % (rc_name, timeout_s)
        time.sleep(0.1)
        with open(rc_path) as f:
            rc_text = f.read().strip()
        with open(_path(ctx, out_name), "rb") as f:
            got = f.read().decode("utf-8", "replace")
        problems = []
        if rc_text != str(exit_code):
            problems.append("exit code %s, want %d" % (rc_text or "(none)", exit_code))
        if got != stdout:
            problems.append("stdout %s, want %s" % (_show(got), _show(stdout)))
        if problems:
            return False, "; ".join(problems)
        return True, "stdout %s and exit code %d" % (_show(got), exit_code)
    return check



def stdout_is_path(name):
    """A save dialog printed the full path it chose, the task's folder + `name`,
    and exited with 0 (captured as stdout_and_exit reads it)."""
    def check(ctx):
        return stdout_and_exit("out.txt", "rc.txt", ctx.path(name) + "\n", 0)(ctx)
    return check

def form_post(name, expected, timeout_s=5):
    """The form the page posted to the task's own HTTP server (which wrote the
    body to `name`) has these fields."""
    def check(ctx):
        path = _path(ctx, name)
        if not _wait_for_file(path, timeout_s):
            return False, "nothing was posted (%s is missing)" % name
        with open(path) as f:
            fields = dict(urllib.parse.parse_qsl(f.read(), keep_blank_values=True))
        wrong = ["%s=%r, want %r" % (k, fields.get(k), v)
                 for k, v in sorted(expected.items()) if fields.get(k) != v]
        if wrong:
            return False, "posted " + "; ".join(wrong)
        return True, "posted %s" % ", ".join("%s=%s" % kv for kv in sorted(expected.items()))
    return check


def atspi_text(app, expected, role=None, exact=False, reader=None):
    """An element of `app` (a role, if given) shows `expected` as its name or
    text, read by a separate pyatspi client on the task's desktop (reader:
    that client's argv before its arguments; atspi_read.py by default)."""
    def check(ctx):
        argv = list(reader or ["/usr/bin/python3", os.path.join(HERE, "atspi_read.py")]) + [app]
        if role:
            argv += ["--role", role]
        try:
            r = subprocess.run(argv, env=ctx.env, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return False, "the accessibility reader did not finish"
        if r.returncode != 0:
            return False, "accessibility reader: %s" % r.stderr.decode(errors="replace")[-300:]
        texts = json.loads(r.stdout)
        for t in texts:
            if (t == expected) if exact else (expected in t):
                return True, "%s shows %r" % (app, t)
        return False, "%s shows none of %r (read %d texts: %s)" % (
            app, expected, len(texts), _show(texts, 160))
    return check


def all_of(*checks):
    def check(ctx):
        messages = []
        for c in checks:
            ok, message = c(ctx)
            if not ok:
                return False, message
            messages.append(message)
        return True, "; ".join(messages)
    return check


def encode_png(width, height, colour_at):
    """An 8-bit RGB PNG whose pixel (x, y) is colour_at(x, y) — for setups
    that need an image and for the checkers' own tests."""
    raw = b"".join(b"\0" + b"".join(bytes(colour_at(x, y)) for x in range(width))
                   for y in range(height))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

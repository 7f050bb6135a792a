#!/usr/bin/python3
"""Training pages from HTML: random forms, tables, tab strips, menus, lists
and dialogs, rendered by Chromium (headless, /usr/bin/chromium), with the
box and role of every interactive element taken from the page itself
(exact; no accessibility tree involved).

  gen_html.py OUT_DIR COUNT SEED      (no DISPLAY or D-Bus needed)

Writes OUT_DIR/html_<seed>_<n>.ppm and .json ({"toolkit": "html", "theme":
..., "scale": ..., "boxes": [[x, y, w, h, role]]}), as gen_gtk3.py does.

Each page is built from random words (words.py) in one of the styles:
browser default controls (light or `color-scheme: dark`, no CSS on the
controls), or a hand-written theme, a shape (classic, rounded and flat
"bootstrap", underlined "material") in a palette (light, dark, high
contrast, high contrast inverse); random accent-color, font family and size
(11-18 px), density, 1-3 columns, labels left of or above the fields.
Viewports are 480x360 to 1280x900 CSS pixels, drawn at a device scale of
1, 1.25, 1.5 or 2 (`--force-device-scale-factor`: one browser a scale,
started in turn, the pages grouped by scale).

Chromium is driven over the DevTools protocol on a pipe
(`--remote-debugging-pipe`: fds 3 and 4, NUL-separated JSON): the viewport
is set with Emulation.setDeviceMetricsOverride, the page loaded from a
file, and once its fonts are ready and two frames drawn, one
Runtime.evaluate returns the boxes and Page.captureScreenshot the pixels
(a PNG, decoded here with zlib; the PPM is those pixels exactly). A box is
the element's getBoundingClientRect() times devicePixelRatio, clipped to
the viewport; it is kept only if at least half of it is in view, it is
visible (checkVisibility), and a 3x3 grid of points on it hit-tests to the
element or its descendants (so nothing covers it: dialogs, open menus).
Check boxes and radio buttons are the input's own box, without the label.
Chromium runs at nice 10 (and, as root, without CAP_SYS_NICE, so that it
cannot raise its threads back to -8), with its profile, config and crash
database in a private temporary directory; it is stopped (its process group,
then any of its processes still naming that directory) and the directory
removed at the end, on errors, on SIGTERM and on Ctrl-C."""
import base64
import ctypes
import fcntl
import html
import json
import os
import pathlib
import random
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from words import phrase

CHROMIUM = "/usr/bin/chromium"
PR_CAPBSET_DROP, CAP_SYS_NICE = 24, 23  # <linux/prctl.h>, <linux/capability.h>
SCALES = [1, 1.25, 1.5, 2]
ROLES = ("button", "text_field", "check_box", "radio_button", "slider", "combo_box",
         "spin_button", "tab", "list_item", "menu_item")
FONTS = ["'DejaVu Sans', sans-serif", "'DejaVu Serif', serif",
         "'Liberation Sans', 'Nimbus Sans', sans-serif", "'Noto Sans', 'DejaVu Sans', sans-serif",
         "'DejaVu Sans Mono', monospace", "'URW Gothic', sans-serif",
         "'Nimbus Roman', 'Liberation Serif', serif", "'DejaVu Sans Condensed', sans-serif"]
ACCENTS = ["#1a73e8", "#0d6efd", "#6f42c1", "#d63384", "#198754", "#fd7e14", "#dc3545",
           "#20c997", "#3584e4", "#e66100", "#2ec27e", "#9141ac", "#c01c28", "#555555"]
ICONS = ["\u2630", "\u2699", "\u270e", "\u2702", "\u2605", "\u25b6", "\u25c0", "\u27f3",
         "\u2715", "+", "\u2212", "\u2261", "\u2714", "\u2709", "\u2302", "\u21b6", "\u21b7",
         "\u2190", "\u2192"]  # all in DejaVu Sans

# Colours of a palette: page, text, muted text, borders, control face,
# control text, button face, selection, menu / card face.
PALETTES = {
    "light": dict(bg="#f6f6f6", fg="#1e1e1e", muted="#666", border="#b8b8b8", ctl="#ffffff",
                  ctlfg="#1e1e1e", btn="#e9e9e9", btnfg="#1e1e1e", sel="#cfe2ff", selfg="#0b2a5b",
                  card="#ffffff", bw="1px"),
    "dark": dict(bg="#1f1f23", fg="#e8e8e8", muted="#9a9aa0", border="#55555c", ctl="#2b2b30",
                 ctlfg="#f0f0f0", btn="#3a3a40", btnfg="#f0f0f0", sel="#2d4f7c", selfg="#ffffff",
                 card="#26262b", bw="1px"),
    "high_contrast": dict(bg="#000000", fg="#ffffff", muted="#ffff00", border="#ffffff",
                          ctl="#000000", ctlfg="#ffffff", btn="#000000", btnfg="#ffff00",
                          sel="#1aebff", selfg="#000000", card="#000000", bw="2px"),
    "high_contrast_inverse": dict(bg="#ffffff", fg="#000000", muted="#000000", border="#000000",
                                  ctl="#ffffff", ctlfg="#000000", btn="#ffffff", btnfg="#000000",
                                  sel="#000000", selfg="#ffffff", card="#ffffff", bw="2px"),
}
SHAPES = ["classic", "bootstrap", "material"]

LAYOUT_CSS = """
*{box-sizing:border-box}
html,body{margin:0;padding:0;overflow:hidden}
body{font-family:var(--font);font-size:var(--fs);background:var(--bg);color:var(--fg);
 line-height:1.35;accent-color:var(--acc)}
h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.2em;margin:.4em 0}h3{font-size:1.05em;margin:.3em 0}
p{margin:.4em 0}.muted{color:var(--muted);font-size:.9em}
.page{padding:var(--gap)}
.main{display:flex;gap:var(--gap);align-items:flex-start}
.content{flex:1;min-width:0}
.cols{display:flex;flex-wrap:wrap;gap:var(--gap);align-items:flex-start}
.cols>*{flex:1 1 calc(100% / var(--ncol) - var(--gap));margin:0}
.compact .content{max-width:var(--maxw)}
.section{margin:0 0 var(--gap) 0}
.card{background:var(--card);border:1px solid var(--border);padding:var(--gap);border-radius:var(--cr)}
fieldset{border:1px solid var(--border);padding:calc(var(--gap)/2) var(--gap);margin:0 0 var(--gap) 0}
legend{padding:0 .3em}
.row{display:flex;align-items:center;gap:var(--hgap);margin:var(--vgap) 0;flex-wrap:wrap}
.row.top{flex-direction:column;align-items:stretch;gap:calc(var(--hgap)/3)}
.row.top.nogrow{align-items:flex-start}
.row.top .grow{flex:none}
.row>label.lab{min-width:var(--labw)}
.grow{flex:1 1 8em;min-width:0}
.col{display:flex;flex-direction:column;gap:var(--vgap)}
.end{justify-content:flex-end}
.choice{display:inline-flex;align-items:center;gap:.35em;margin-right:.6em}
.tabs{display:flex;gap:var(--tabgap);border-bottom:1px solid var(--border);margin-bottom:var(--vgap)}
.tabs [role=tab]{font:inherit;color:var(--fg);background:transparent;border:1px solid transparent;
 padding:var(--tabpy) var(--tabpx);margin:0 0 -1px 0;cursor:pointer;white-space:nowrap}
.tabs.boxed [role=tab]{border-color:var(--border);background:var(--btn);
 border-radius:var(--cr) var(--cr) 0 0}
.tabs.boxed [role=tab][aria-selected=true]{background:var(--card);border-bottom-color:var(--card)}
.tabs.line [role=tab][aria-selected=true]{border-bottom:3px solid var(--accent);font-weight:bold}
.tabs.pills{border-bottom:none}
.tabs.pills [role=tab]{border-radius:999px}
.tabs.pills [role=tab][aria-selected=true]{background:var(--accent);color:#fff}
.menubar{display:flex;list-style:none;margin:0;padding:0 var(--gap);background:var(--menu);
 border-bottom:1px solid var(--border)}
.menubar>li{position:relative;padding:var(--mpy) var(--mpx);cursor:default}
.menubar>li.open{background:var(--sel);color:var(--selfg)}
.menu{position:absolute;left:0;top:100%;z-index:50;list-style:none;margin:0;padding:.25em 0;
 min-width:11em;background:var(--menu);color:var(--fg);border:1px solid var(--border);
 box-shadow:0 4px 14px rgba(0,0,0,.3)}
.menu li{padding:var(--mpy) 1.4em;white-space:nowrap}
.menu li.hl{background:var(--sel);color:var(--selfg)}
.menu hr{border:none;border-top:1px solid var(--border);margin:.25em 0}
.toolbar{display:flex;gap:var(--tbgap);padding:calc(var(--gap)/3) var(--gap);
 border-bottom:1px solid var(--border);align-items:center;flex-wrap:wrap}
.listbox{list-style:none;margin:0;padding:0;border:1px solid var(--border);background:var(--ctl);
 color:var(--ctlfg);max-width:100%}
.listbox li{padding:var(--lpy) .6em;cursor:default}
.listbox.lined li+li{border-top:1px solid var(--border)}
.listbox li.sel{background:var(--sel);color:var(--selfg)}
.sidebar{list-style:none;margin:0;padding:.3em;min-width:9em;border-right:1px solid var(--border)}
.sidebar li{padding:var(--lpy) .8em;border-radius:var(--cr)}
.sidebar li.sel{background:var(--sel);color:var(--selfg)}
table.grid{border-collapse:collapse;width:var(--tablew)}
table.grid th,table.grid td{border:1px solid var(--border);padding:var(--cellp);text-align:left}
table.grid th{background:var(--btn)}
table.grid td input:not([type=checkbox]),table.grid td select{width:100%}
.dialog{position:absolute;z-index:100;background:var(--card);color:var(--fg);
 border:1px solid var(--border);border-radius:var(--cr);box-shadow:0 10px 40px rgba(0,0,0,.45);
 padding:0;margin:0}
.dialog .dtitle{display:flex;align-items:center;justify-content:space-between;gap:1em;
 padding:.5em var(--gap);border-bottom:1px solid var(--border);font-weight:bold}
.dialog .dbody{padding:calc(var(--gap)/2) var(--gap)}
.dialog .dfoot{display:flex;justify-content:flex-end;gap:.5em;padding:.6em var(--gap);
 border-top:1px solid var(--border)}
.backdrop{position:fixed;inset:0;z-index:90;background:rgba(0,0,0,.35);pointer-events:none}
.stepper{display:inline-flex;align-items:stretch;align-self:flex-start}
.stepper input{width:4.5em;text-align:center}
.stepper button{min-width:2em}
.combo{display:inline-flex;align-items:center;justify-content:space-between;gap:1.2em;
 cursor:default;min-width:8em}
.combo .arrow{font-size:.8em}
.footer{display:flex;gap:.6em;justify-content:var(--footj);padding:var(--gap);
 border-top:1px solid var(--border)}
.hiddenpanel{display:none}
input[type=number]::-webkit-inner-spin-button{opacity:1}
"""

# Controls in a hand-written theme (the browser default ones get no CSS but
# the spin buttons' visibility above): body classes name the shape and options.
STYLED_CSS = """
body.styled input:not([type=checkbox]):not([type=radio]):not([type=range]),body.styled select,
body.styled textarea,body.styled .combo{font:inherit;color:var(--ctlfg);background-color:var(--ctl);
 border:var(--bw) solid var(--border);border-radius:var(--radius);padding:var(--py) var(--px);
 outline:none}
body.styled button,body.styled input[type=submit],body.styled .btn{font:inherit;
 color:var(--btnfg);background:var(--btn);border:var(--bw) solid var(--border);
 border-radius:var(--radius);padding:var(--py) calc(var(--px)*1.6);cursor:pointer;
 text-decoration:none;display:inline-block;line-height:1.35}
body.styled .primary{background:var(--accent);border-color:var(--accent);color:#fff}
body.styled .danger{background:#c0392b;border-color:#c0392b;color:#fff}
body.styled .outline{background:transparent;color:var(--accent);border-color:var(--accent)}
body.styled .flatbtn{background:transparent;border-color:transparent;color:var(--fg)}
body.styled .stepper button{border-radius:0;padding:var(--py) .5em}
body.styled .stepper button:first-child{border-radius:var(--radius) 0 0 var(--radius)}
body.styled .stepper button:last-child{border-radius:0 var(--radius) var(--radius) 0}
body.styled .stepper input{border-radius:0!important;border-left:none!important;
 border-right:none!important}
body.styled.customchecks input[type=checkbox],body.styled.customchecks input[type=radio]{
 appearance:none;width:1.15em;height:1.15em;margin:0;border:var(--bw2) solid var(--border);
 background:var(--ctl);border-radius:.25em;display:inline-block;vertical-align:middle}
body.styled.customchecks input[type=radio]{border-radius:50%}
body.styled.customchecks input[type=checkbox]:checked{background:var(--accent);
 border-color:var(--accent);box-shadow:inset 0 0 0 .22em var(--ctl)}
body.styled.customchecks input[type=radio]:checked{border-color:var(--accent);
 background:var(--accent);box-shadow:inset 0 0 0 .25em var(--ctl)}
body.styled.customrange input[type=range]{appearance:none;background:transparent;height:1.4em}
body.styled.customrange input[type=range]::-webkit-slider-runnable-track{height:.35em;
 background:var(--border);border-radius:1em}
body.styled.customrange input[type=range]::-webkit-slider-thumb{appearance:none;width:1.1em;
 height:1.1em;margin-top:-.375em;border-radius:50%;background:var(--accent);
 border:2px solid var(--ctl)}
body.styled.material input:not([type=checkbox]):not([type=radio]):not([type=range]),
body.styled.material select,body.styled.material textarea,body.styled.material .combo{
 border:none;border-bottom:var(--bw2) solid var(--border);border-radius:var(--radius) var(--radius) 0 0;
 background-color:var(--mfill)}
body.styled.material button,body.styled.material input[type=submit],body.styled.material .btn{
 text-transform:uppercase;letter-spacing:.04em;border:none;box-shadow:0 1px 3px rgba(0,0,0,.35)}
body.styled.material .flatbtn,body.styled.material .outline{box-shadow:none}
body.styled.material.hc button,body.styled.material.hc input[type=submit],body.styled.material.hc .btn{
 border:var(--bw) solid var(--border)}
body.styled.material .outline{border:1px solid var(--accent)}
"""

SHAPE_VARS = {
    "classic": dict(radius=["0", "2px", "3px"], bw2="1px", mfill="transparent"),
    "bootstrap": dict(radius=[".375rem", ".5em", "6px", "999px"], bw2="1px", mfill="transparent"),
    "material": dict(radius=["0", "4px"], bw2="2px", mfill="rgba(128,128,128,.12)"),
}


def esc(text):
    return html.escape(text, quote=True)


class Page:
    """One random page: its HTML, theme name, viewport (CSS px) and scale."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.scale = rng.choice(SCALES)
        # Multiples of 4 CSS px, so that every scale gives whole device pixels.
        self.width = rng.randrange(480, 1281, 4)
        self.height = rng.randrange(360, 901, 4)
        kind = rng.choices(["default", "styled"], [1, 2])[0]
        if kind == "default":
            self.dark = rng.random() < 0.35
            self.palette = "dark" if self.dark else "light"
            self.shape = None
            self.theme = "default:dark" if self.dark else "default"
        else:
            self.palette = rng.choices(list(PALETTES), [4, 3, 1, 1])[0]
            self.dark = self.palette in ("dark", "high_contrast")
            self.shape = rng.choice(SHAPES)
            self.theme = f"{self.shape}:{self.palette}"
        self.styled = self.shape is not None
        self.full = rng.random() < 0.5
        self.labels = rng.choice(["left", "top", "mixed"])
        self.ids = 0
        self.html = self.document()

    # -- small pieces -------------------------------------------------
    def words(self, lo=1, hi=3):
        return esc(phrase(self.rng, lo, hi))

    def new_id(self):
        self.ids += 1
        return f"e{self.ids}"

    def width_style(self, full=None):
        """A field's width: the row's (grow) or its own, in em."""
        if self.full if full is None else full:
            return ' class="grow"'
        return f' style="width:{self.rng.choice([6, 8, 10, 12, 15, 18, 22])}em"'

    def text_field(self, full=None, in_table=False):
        rng = self.rng
        if not in_table and rng.random() < 0.15:
            cls = self.width_style(full)
            rows = rng.randint(2, 4)
            return (f'<textarea data-r="text_field" rows="{rows}"{cls}>'
                    f'{self.words(0, 8) if rng.random() < 0.6 else ""}</textarea>')
        kind = rng.choices(["text", "email", "password", "search"], [6, 1, 1, 1])[0]
        attrs = f' type="{kind}"'
        r = rng.random()
        if r < 0.5:
            attrs += f' value="{self.words(1, 3)}"'
        elif r < 0.8:
            attrs += f' placeholder="{self.words()}"'
        if rng.random() < 0.05:
            attrs += " disabled"
        if in_table:
            return f'<input data-r="text_field"{attrs}>'
        cls = self.width_style(full)
        if not self.full and rng.random() < 0.3:
            cls = f' size="{rng.randint(6, 30)}"'
        return f'<input data-r="text_field"{attrs}{cls}>'

    def spin_button(self):
        rng = self.rng
        value = rng.randint(0, 999)
        if self.styled and rng.random() < 0.35:
            return ('<span class="stepper" data-r="spin_button"><button tabindex="-1">\u2212</button>'
                    f'<input value="{value}"><button tabindex="-1">+</button></span>')
        width = "" if rng.random() < 0.5 else f' style="width:{rng.choice([5, 6, 8, 10])}em"'
        return f'<input type="number" data-r="spin_button" min="0" max="1000" value="{value}"{width}>'

    def combo_box(self, full=None, in_table=False):
        rng = self.rng
        if self.styled and not in_table and rng.random() < 0.25:
            return (f'<span class="combo" data-r="combo_box"><span>{self.words()}</span>'
                    '<span class="arrow">\u25bc</span></span>')
        options = "".join(f"<option>{self.words()}</option>" for _ in range(rng.randint(2, 6)))
        cls = ""
        if not in_table and self.full and (full is None or full):
            cls = ' class="grow"'
        return f'<select data-r="combo_box"{cls}>{options}</select>'

    def button(self, kind=None, text=None):
        rng = self.rng
        text = text if text is not None else self.words(1, 2)
        variant = ""
        if self.styled:
            variant = rng.choices(["", "primary", "danger", "outline", "flatbtn"], [5, 3, 1, 1, 1])[0]
        cls = f' class="{variant}"' if variant else ""
        dis = " disabled" if rng.random() < 0.06 else ""
        kind = kind or rng.choices(["button", "submit", "a"], [6, 2, 2 if self.styled else 0])[0]
        if kind == "submit":
            return f'<input type="submit" data-r="button" value="{text}"{cls}{dis}>'
        if kind == "a":
            return f'<a href="#" class="btn {variant}" data-r="button">{text}</a>'
        return f'<button type="button" data-r="button"{cls}{dis}>{text}</button>'

    def icon_button(self):
        icon = self.rng.choice(ICONS)
        cls = ' class="flatbtn"' if self.styled and self.rng.random() < 0.5 else ""
        return f'<button type="button" data-r="button"{cls} title="{self.words()}">{icon}</button>'

    def field(self, full=None):
        k = self.rng.random()
        if k < 0.55:
            return self.text_field(full)
        if k < 0.75:
            return self.spin_button()
        return self.combo_box(full)

    # -- rows ----------------------------------------------------------
    def labelled(self):
        rng = self.rng
        mode = self.labels if self.labels != "mixed" else rng.choice(["left", "top"])
        control = self.field()
        label = f'<label class="lab">{self.words()}{rng.choice(["", ":"])}</label>'
        if mode == "top":
            grow = "" if self.full else " nogrow"
            return f'<div class="row top{grow}">{label}{control}</div>'
        return f'<div class="row">{label}{control}</div>'

    def choices(self, role):
        rng = self.rng
        n = rng.randint(1, 3) if role == "check_box" else rng.randint(2, 4)
        kind = "checkbox" if role == "check_box" else "radio"
        name = self.new_id()
        checked = rng.randrange(n)
        items = []
        for i in range(n):
            on = (rng.random() < 0.4) if kind == "checkbox" else (i == checked)
            dis = " disabled" if rng.random() < 0.05 else ""
            box = (f'<input type="{kind}" name="{name}" data-r="{role}"'
                   f'{" checked" if on else ""}{dis}>')
            text = self.words()
            if rng.random() < 0.8:
                items.append(f'<label class="choice">{box}{text}</label>')
            else:
                items.append(f'<span class="choice">{box}<span>{text}</span></span>')
        layout = "col" if rng.random() < 0.5 else "row"
        head = f'<div class="muted">{self.words()}</div>' if rng.random() < 0.4 else ""
        return f'{head}<div class="{layout}">{"".join(items)}</div>'

    def slider(self):
        rng = self.rng
        if self.full and rng.random() < 0.6:
            style = ' class="grow"'
        else:
            style = f' style="width:{rng.randint(6, 22)}em"'
        value = rng.randint(0, 100)
        label = f'<label class="lab">{self.words()}</label>' if rng.random() < 0.6 else ""
        out = f'<span>{value}</span>' if rng.random() < 0.4 else ""
        return (f'<div class="row">{label}<input type="range" data-r="slider" min="0" max="100" '
                f'value="{value}"{style}>{out}</div>')

    def buttons(self, n=None):
        rng = self.rng
        n = n or rng.randint(1, 4)
        end = " end" if rng.random() < 0.4 else ""
        return f'<div class="row{end}">{"".join(self.button() for _ in range(n))}</div>'

    def listbox(self):
        rng = self.rng
        n = rng.randint(2, 7)
        sel = rng.randrange(n) if rng.random() < 0.8 else -1
        lined = " lined" if rng.random() < 0.4 else ""
        width = "" if self.full else f' style="width:{rng.randint(10, 22)}em"'
        items = "".join(f'<li role="option" data-r="list_item"{" class=sel" if i == sel else ""}>'
                        f'{self.words()}</li>' for i in range(n))
        return f'<ul class="listbox{lined}" role="listbox"{width}>{items}</ul>'

    def table(self):
        rng = self.rng
        ncols = rng.randint(2, 5)
        kinds = ["text"] + [rng.choice(["text", "field", "check", "combo", "button", "spin"])
                            for _ in range(ncols - 1)]
        head = "".join(f"<th>{self.words(1, 2)}</th>" for _ in kinds)
        rows = []
        for _ in range(rng.randint(2, 6)):
            cells = []
            for k in kinds:
                if k == "text":
                    cells.append(f"<td>{self.words(1, 2)}</td>")
                elif k == "field":
                    cells.append(f"<td>{self.text_field(in_table=True)}</td>")
                elif k == "check":
                    on = " checked" if rng.random() < 0.4 else ""
                    cells.append(f'<td><input type="checkbox" data-r="check_box"{on}></td>')
                elif k == "combo":
                    cells.append(f"<td>{self.combo_box(in_table=True)}</td>")
                elif k == "spin":
                    cells.append(f'<td><input type="number" data-r="spin_button" '
                                 f'value="{rng.randint(0, 99)}" style="width:5em"></td>')
                else:
                    cells.append(f"<td>{self.button('button', self.words(1, 1))}</td>")
            rows.append(f"<tr>{''.join(cells)}</tr>")
        return f'<table class="grid"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'

    def text_block(self):
        rng = self.rng
        if rng.random() < 0.5:
            return f"<h3>{self.words(1, 4)}</h3>"
        return f'<p class="{rng.choice(["", "muted"])}">{self.words(3, 12)}</p>'

    def row(self):
        rng = self.rng
        kind = rng.choices(["field", "labelled", "buttons", "check", "radio", "slider", "list",
                            "table", "text"], [2, 5, 3, 2, 1.5, 1.5, 1, 0.7, 1])[0]
        if kind == "field":
            return f'<div class="row">{self.field()}</div>'
        if kind == "labelled":
            return self.labelled()
        if kind == "buttons":
            return self.buttons()
        if kind == "check":
            return self.choices("check_box")
        if kind == "radio":
            return self.choices("radio_button")
        if kind == "slider":
            return self.slider()
        if kind == "list":
            return self.listbox()
        if kind == "table":
            return self.table()
        return self.text_block()

    # -- larger parts --------------------------------------------------
    def tabs(self):
        rng = self.rng
        n = rng.randint(2, 6)
        sel = rng.randrange(n)
        style = rng.choice(["boxed", "line", "pills"])
        items = "".join(f'<button type="button" role="tab" data-r="tab" aria-selected="'
                        f'{"true" if i == sel else "false"}">{self.words(1, 2)}</button>'
                        for i in range(n))
        return f'<div class="tabs {style}" role="tablist">{items}</div>'

    def section(self):
        rng = self.rng
        parts = []
        if rng.random() < 0.25:
            parts.append(self.tabs())
        elif rng.random() < 0.5:
            parts.append(f"<h2>{self.words(1, 3)}</h2>")
        parts += [self.row() for _ in range(rng.randint(2, 7))]
        if rng.random() < 0.15:
            # Not drawn, so not boxed: the other tabs' panels, hidden buttons.
            parts.append(f'<div class="hiddenpanel">{self.row()}{self.row()}</div>')
        if rng.random() < 0.08:
            parts.append(f'<div style="visibility:hidden">{self.buttons(2)}</div>')
        body = "".join(parts)
        wrap = rng.choice(["plain", "card", "fieldset"])
        if wrap == "card":
            return f'<div class="section card">{body}</div>'
        if wrap == "fieldset":
            return f'<fieldset class="section"><legend>{self.words(1, 2)}</legend>{body}</fieldset>'
        return f'<div class="section">{body}</div>'

    def menubar(self):
        rng = self.rng
        n = rng.randint(2, 7)
        open_at = rng.randrange(n) if rng.random() < 0.3 else -1
        items = []
        for i in range(n):
            sub = ""
            if i == open_at:
                entries = []
                hl = rng.randrange(6) if rng.random() < 0.5 else -1
                for j in range(rng.randint(2, 7)):
                    if j and rng.random() < 0.15:
                        entries.append("<hr>")
                    cls = ' class="hl"' if j == hl else ""
                    entries.append(f'<li role="menuitem" data-r="menu_item"{cls}>{self.words(1, 3)}</li>')
                sub = f'<ul class="menu" role="menu">{"".join(entries)}</ul>'
            cls = ' class="open"' if i == open_at else ""
            items.append(f'<li role="menuitem" data-r="menu_item"{cls}>{self.words(1, 1)}{sub}</li>')
        return f'<ul class="menubar" role="menubar">{"".join(items)}</ul>'

    def toolbar(self):
        rng = self.rng
        parts = []
        for _ in range(rng.randint(2, 8)):
            r = rng.random()
            if r < 0.6:
                parts.append(self.icon_button())
            elif r < 0.85:
                parts.append(self.button("button", self.words(1, 1)))
            else:
                parts.append(f'<input type="search" data-r="text_field" placeholder="{self.words(1, 1)}"'
                             f' style="width:{rng.randint(8, 16)}em">')
        return f'<div class="toolbar">{"".join(parts)}</div>'

    def sidebar(self):
        rng = self.rng
        n = rng.randint(3, 9)
        sel = rng.randrange(n)
        items = "".join(f'<li data-r="list_item"{" class=sel" if i == sel else ""}>{self.words(1, 2)}</li>'
                        for i in range(n))
        return f'<ul class="sidebar">{items}</ul>'

    def dialog(self, least=0):
        rng = self.rng
        width = min(rng.randint(260, 480), self.width - 16)
        left = rng.randint(4, max(4, self.width - width - 4))
        top = rng.randint(4, max(4, self.height // 2))
        rows = []
        if rng.random() < 0.6:
            rows.append(f"<p>{self.words(3, 10)}</p>")
        for _ in range(rng.randint(least, 4)):
            rows.append(rng.choice([self.labelled, self.labelled, self.slider,
                                    lambda: self.choices(rng.choice(["check_box", "radio_button"]))])())
        buttons = [self.button("button", self.words(1, 1)) for _ in range(rng.randint(1, 3))]
        close = ""
        if rng.random() < 0.7:
            cls = ' class="flatbtn"' if self.styled else ""
            close = f'<button type="button" data-r="button"{cls}>\u2715</button>'
        tag = "dialog open" if rng.random() < 0.5 else "div"
        end = tag.split()[0]
        backdrop = '<div class="backdrop"></div>' if rng.random() < 0.3 else ""
        return (f'{backdrop}<{tag} class="dialog" style="left:{left}px;top:{top}px;width:{width}px">'
                f'<div class="dtitle"><span>{self.words(1, 3)}</span>{close}</div>'
                f'<div class="dbody">{"".join(rows)}</div>'
                f'<div class="dfoot">{"".join(buttons)}</div></{end}>')

    def variables(self):
        rng = self.rng
        pal = dict(PALETTES[self.palette])
        if not self.styled:
            # Browser defaults: only the page's own colours.
            pal.update(PALETTES["dark"] if self.dark else dict(PALETTES["light"], bg="#ffffff"))
        fs = rng.randint(11, 18)
        density = rng.choice([0.6, 0.8, 1.0, 1.3, 1.7])
        shape = SHAPE_VARS[self.shape or "classic"]
        accent = rng.choice(ACCENTS) if self.palette not in ("high_contrast",) else "#1aebff"
        ncol = rng.choices([1, 2, 3], [3, 2, 1])[0]
        if self.width < 640:
            ncol = 1
        values = {
            "--font": rng.choice(FONTS), "--fs": f"{fs}px", "--accent": accent,
            # Browser default controls keep their own accent half the time.
            "--acc": "auto" if not self.styled and rng.random() < 0.5 else accent,
            "--bg": pal["bg"], "--fg": pal["fg"], "--muted": pal["muted"],
            "--border": pal["border"], "--ctl": pal["ctl"], "--ctlfg": pal["ctlfg"],
            "--btn": pal["btn"], "--btnfg": pal["btnfg"], "--sel": pal["sel"],
            "--selfg": pal["selfg"], "--card": pal["card"], "--menu": pal["card"],
            "--bw": pal["bw"], "--bw2": shape["bw2"] if pal["bw"] == "1px" else pal["bw"],
            "--mfill": shape["mfill"], "--radius": rng.choice(shape["radius"]),
            "--cr": rng.choice(["0", "4px", "8px"]),
            "--gap": f"{round(12 * density)}px", "--hgap": f"{round(8 * density)}px",
            "--vgap": f"{round(6 * density)}px", "--py": f"{0.2 + 0.25 * density:.2f}em",
            "--px": f"{0.3 + 0.3 * density:.2f}em", "--labw": f"{rng.choice([4, 6, 8, 10])}em",
            "--tabgap": rng.choice(["0", "2px", "6px"]), "--tabpy": f"{0.2 + 0.3 * density:.2f}em",
            "--tabpx": f"{0.6 + 0.5 * density:.2f}em", "--mpy": f"{0.15 + 0.2 * density:.2f}em",
            "--mpx": f"{0.5 + 0.4 * density:.2f}em", "--tbgap": rng.choice(["0", "2px", "6px"]),
            "--lpy": f"{0.1 + 0.3 * density:.2f}em", "--cellp": f"{0.1 + 0.3 * density:.2f}em",
            "--ncol": str(ncol), "--maxw": f"{rng.randint(420, 900)}px",
            "--tablew": rng.choice(["auto", "100%"]),
            "--footj": rng.choice(["flex-end", "flex-start", "center"]),
        }
        return ":root{" + ";".join(f"{k}:{v}" for k, v in values.items()) + "}"

    def document(self):
        rng = self.rng
        body_classes = []
        if self.styled:
            body_classes.append("styled")
            body_classes.append(self.shape)
            if self.palette.startswith("high_contrast"):
                body_classes.append("hc")
            if rng.random() < 0.5:
                body_classes.append("customchecks")
            if rng.random() < 0.5:
                body_classes.append("customrange")
        scheme = "dark" if self.dark else "light"
        css = f":root{{color-scheme:{scheme}}}" + self.variables() + LAYOUT_CSS
        if self.styled:
            css += STYLED_CSS
        parts = []
        only_dialog = rng.random() < 0.08
        if not only_dialog:
            if rng.random() < 0.35:
                parts.append(self.menubar())
            if rng.random() < 0.3:
                parts.append(self.toolbar())
            main = []
            if rng.random() < 0.5:
                main.append(f"<h1>{self.words(1, 4)}</h1>")
            if rng.random() < 0.2:
                main.append(self.tabs())
            ncol = rng.randint(1, 4)
            main.append('<div class="cols">' + "".join(self.section() for _ in range(ncol)) + "</div>")
            if rng.random() < 0.3:
                main.append(self.section())
            content = f'<div class="content">{"".join(main)}</div>'
            side = self.sidebar() if rng.random() < 0.2 else ""
            parts.append(f'<div class="page {"" if self.full else "compact"}"><div class="main">'
                         f"{side}{content}</div></div>")
            if rng.random() < 0.3:
                buttons = "".join(self.button() for _ in range(rng.randint(1, 3)))
                parts.append(f'<div class="footer">{buttons}</div>')
        if only_dialog or rng.random() < 0.2:
            parts.append(self.dialog(least=2 if only_dialog else 0))
        return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><style>{css}</style>'
                f'</head><body class="{" ".join(body_classes)}">{"".join(parts)}</body></html>')


# The boxes, in device pixels: each tagged element's bounding box clipped to
# the viewport, if mostly in view, visible, and hit-tested to itself.
BOXES_JS = r"""
(() => {
  const dpr = window.devicePixelRatio, W = window.innerWidth, H = window.innerHeight;
  const out = [];
  for (const el of document.querySelectorAll('[data-r]')) {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    if (el.checkVisibility && !el.checkVisibility({opacityProperty: true, visibilityProperty: true,
                                                   contentVisibilityAuto: true})) continue;
    const x0 = Math.max(r.left, 0), y0 = Math.max(r.top, 0);
    const x1 = Math.min(r.right, W), y1 = Math.min(r.bottom, H);
    if (x1 <= x0 || y1 <= y0 || (x1 - x0) * (y1 - y0) < 0.5 * r.width * r.height) continue;
    let covered = false;
    for (const fy of [0.2, 0.5, 0.8]) {
      for (const fx of [0.2, 0.5, 0.8]) {
        const hit = document.elementFromPoint(x0 + fx * (x1 - x0), y0 + fy * (y1 - y0));
        if (!hit || !(hit === el || el.contains(hit))) covered = true;
      }
    }
    if (covered) continue;
    out.push([x0 * dpr, y0 * dpr, (x1 - x0) * dpr, (y1 - y0) * dpr, el.dataset.r]);
  }
  return JSON.stringify({dpr: dpr, w: W, h: H, boxes: out});
})()
"""

# Resolves once the page's fonts are loaded and two frames have been drawn.
SETTLED_JS = """new Promise(done => document.fonts.ready.then(
  () => requestAnimationFrame(() => requestAnimationFrame(() => done(1)))))"""


class ChromiumError(RuntimeError):
    pass


class Chromium:
    """One headless Chromium at a device scale, driven over the DevTools pipe."""

    def __init__(self, scale, tmp_dir, timeout=60.0):
        self.timeout = timeout
        self.next_id = 0
        self.buf = bytearray()
        self.events = []
        self.proc = None
        # Everything Chromium writes (profile, config, crash database) is in
        # here; the path also marks its processes that leave the group.
        self.home = tempfile.mkdtemp(prefix="chromium-", dir=tmp_dir)
        self.log_path = os.path.join(tmp_dir, "chromium.log")
        ours_in, chrome_in = self._pipe()   # we read what Chromium writes on its fd 4
        chrome_out, ours_out = self._pipe()  # Chromium reads what we write on its fd 3
        self.rfd, self.wfd = ours_in, ours_out
        libc = ctypes.CDLL(None, use_errno=True)

        def child():
            os.dup2(chrome_out, 3)
            os.dup2(chrome_in, 4)
            os.nice(10)
            # As root Chromium would raise its browser and display threads
            # to nice -8; without CAP_SYS_NICE it stays at 10 and above.
            libc.prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0)

        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self.home, "config"),
                   XDG_CACHE_HOME=os.path.join(self.home, "cache"))
        args = [CHROMIUM, "--headless=new", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                f"--force-device-scale-factor={scale}", "--window-size=1280,900",
                "--remote-debugging-pipe", f"--user-data-dir={os.path.join(self.home, 'profile')}",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-breakpad", "--mute-audio",
                "--password-store=basic", "--use-mock-keychain",
                "--disable-features=Translate,MediaRouter", "about:blank"]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                                         preexec_fn=child, close_fds=False, start_new_session=True)
        os.close(chrome_out)
        os.close(chrome_in)
        try:
            self._attach()
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _pipe():
        """A pipe whose ends are above fd 10 (not 3 or 4) and close on exec."""
        ends = []
        for fd in os.pipe():
            ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
            os.close(fd)
        return ends

    def _attach(self):
        targets = self.call("Target.getTargets", session=None)["targetInfos"]
        pages = [t["targetId"] for t in targets if t["type"] == "page"]
        if pages:
            target = pages[0]
        else:
            target = self.call("Target.createTarget", {"url": "about:blank"}, session=None)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=None)["sessionId"]
        self.call("Page.enable")

    def _read_message(self, deadline):
        while True:
            end = self.buf.find(b"\0")
            if end >= 0:
                message = bytes(self.buf[:end])
                del self.buf[:end + 1]
                return json.loads(message)
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChromiumError("no answer from Chromium in time")
            ready, _, _ = select.select([self.rfd], [], [], left)
            if ready:
                data = os.read(self.rfd, 1 << 20)
                if not data:
                    raise ChromiumError("Chromium closed the DevTools pipe (exited?)")
                self.buf += data

    def call(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.wfd, data):]
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise ChromiumError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply["method"])

    def wait_event(self, name):
        deadline = time.monotonic() + self.timeout
        while name not in self.events:
            reply = self._read_message(deadline)
            if "method" in reply:
                self.events.append(reply["method"])
        self.events.clear()

    def evaluate(self, expression, await_promise=False):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": await_promise})
        if "exceptionDetails" in result:
            raise ChromiumError("page script failed: " + json.dumps(result["exceptionDetails"])[:300])
        return result["result"].get("value")

    def render(self, path, width, height):
        """Loads the page at `path` in a viewport of width x height CSS px;
        returns its boxes' JSON (from BOXES_JS) and the PNG of the viewport."""
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 0, "mobile": False})
        self.events.clear()
        self.call("Page.navigate", {"url": pathlib.Path(path).as_uri()})
        self.wait_event("Page.loadEventFired")
        self.evaluate(SETTLED_JS, await_promise=True)
        info = json.loads(self.evaluate(BOXES_JS))
        shot = self.call("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
        return info, base64.b64decode(shot["data"])

    def _group_alive(self):
        try:
            os.killpg(self.proc.pid, 0)
            return True
        except (ProcessLookupError, PermissionError):
            return False

    def _strays(self):
        """Our Chromium's processes outside its group (crashpad handlers
        start their own session): those whose command line names self.home."""
        marker = self.home.encode()
        pids = []
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != os.getpid():
                try:
                    with open(f"/proc/{name}/cmdline", "rb") as f:
                        if marker in f.read():
                            pids.append(int(name))
                except OSError:
                    pass
        return pids

    def close(self):
        """Asks Chromium to quit, then ends what is left of its process group
        (renderers, zygotes) and its strays; Ctrl-C and SIGTERM wait for it."""
        if self.proc is None:
            return
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        try:
            if self.proc.poll() is None:
                try:
                    self.next_id += 1
                    os.write(self.wfd, json.dumps({"id": self.next_id, "method": "Browser.close"}).encode()
                             + b"\0")
                    self.proc.wait(5)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait()
            for sig in (signal.SIGTERM, signal.SIGKILL):
                deadline = time.monotonic() + 2
                while (self._group_alive() or self._strays()) and time.monotonic() < deadline:
                    time.sleep(0.05)
                if not self._group_alive() and not self._strays():
                    break
                try:
                    os.killpg(self.proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
                for pid in self._strays():
                    try:
                        os.kill(pid, sig)
                    except (ProcessLookupError, PermissionError):
                        pass
        finally:
            self.proc = None
            for fd in (self.rfd, self.wfd):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.home, ignore_errors=True)
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


# -- PNG to RGB ------------------------------------------------------------

def _lane_add(a, b, low, high):
    """Bytewise a + b mod 256 of two little-endian byte strings held as ints."""
    return ((a & low) + (b & low)) ^ ((a ^ b) & high)


def png_to_rgb(data):
    """(width, height, RGB bytes) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    if len(raw) < height * (stride + 1):
        raise ValueError("PNG data too short")
    low = int.from_bytes(b"\x7f" * stride, "little")
    high = int.from_bytes(b"\x80" * stride, "little")
    full = (1 << (8 * stride)) - 1
    pixels = bytearray(height * stride)
    prev = bytes(stride)
    prev_int = 0
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = raw[start + 1:start + 1 + stride]
        if kind == 0:
            cur = line
            cur_int = None
        elif kind == 2:  # Up
            cur_int = _lane_add(int.from_bytes(line, "little"), prev_int, low, high)
            cur = cur_int.to_bytes(stride, "little")
        elif kind == 1:  # Sub: a prefix sum in each byte lane, by doubling
            cur_int = int.from_bytes(line, "little")
            shift = 8 * bpp
            while shift < 8 * stride:
                cur_int = _lane_add(cur_int, (cur_int << shift) & full, low, high)
                shift *= 2
            cur = cur_int.to_bytes(stride, "little")
        elif kind in (3, 4):  # Average, Paeth: byte by byte
            cur = _unfilter_slow(kind, line, prev, bpp)
            cur_int = None
        else:
            raise ValueError(f"bad PNG filter {kind}")
        pixels[y * stride:(y + 1) * stride] = cur
        prev = cur
        prev_int = cur_int if cur_int is not None else int.from_bytes(cur, "little")
    if bpp == 3:
        return width, height, bytes(pixels)
    rgb = bytearray(width * height * 3)
    for c in range(3):
        rgb[c::3] = pixels[c::4]
    return width, height, bytes(rgb)


def _unfilter_slow(kind, line, prev, bpp):
    cur = bytearray(line)
    for i in range(len(cur)):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        if kind == 3:
            cur[i] = (cur[i] + ((a + b) >> 1)) & 255
            continue
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        cur[i] = (cur[i] + pred) & 255
    return bytes(cur)


def write_ppm(path, width, height, rgb):
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        f.write(rgb)


# -- main ------------------------------------------------------------------

def keep_boxes(boxes, width, height):
    out = []
    for x, y, w, h, role in boxes:
        if role not in ROLES or w <= 2 or h <= 2 or x >= width or y >= height:
            continue
        out.append([round(x, 2), round(y, 2), round(w, 2), round(h, 2), role])
    return out


def render_group(pages, scale, tmp_dir, out_dir, seed):
    browser = Chromium(scale, tmp_dir)
    try:
        page_path = os.path.join(tmp_dir, "page.html")
        for n, page in pages:
            with open(page_path, "w", encoding="utf-8") as f:
                f.write(page.html)
            info, png = browser.render(page_path, page.width, page.height)
            width, height, rgb = png_to_rgb(png)
            want = (round(page.width * scale), round(page.height * scale))
            if (width, height) != want or abs(info["dpr"] - scale) > 1e-6:
                raise ChromiumError(f"page {n}: got {width}x{height} at scale {info['dpr']}, "
                                    f"wanted {want[0]}x{want[1]} at {scale}")
            base = os.path.join(out_dir, f"html_{seed}_{n:05d}")
            write_ppm(base + ".ppm", width, height, rgb)
            with open(base + ".json", "w") as f:
                json.dump({"toolkit": "html", "theme": page.theme, "scale": scale,
                           "boxes": keep_boxes(info["boxes"], width, height)}, f)
    finally:
        browser.close()


def main():
    try:
        out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    except (IndexError, ValueError):
        print("usage: gen_html.py OUT_DIR COUNT SEED", file=sys.stderr)
        return 2
    if not os.access(CHROMIUM, os.X_OK):
        print(f"gen_html.py: {CHROMIUM} not found", file=sys.stderr)
        return 1
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(seed)
    pages = [(n, Page(rng)) for n in range(count)]
    # SIGTERM and SIGHUP end the run as Ctrl-C does, through the clean-up below.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(1))
    tmp_dir = tempfile.mkdtemp(prefix="gen_html-")
    try:
        for scale in SCALES:
            group = [(n, p) for n, p in pages if p.scale == scale]
            if group:
                render_group(group, scale, tmp_dir, out_dir, seed)
    except (ChromiumError, OSError, ValueError) as e:
        log = os.path.join(tmp_dir, "chromium.log")
        tail = ""
        if os.path.exists(log):
            with open(log, errors="replace") as f:
                tail = "".join([line for line in f if "dbus" not in line][-15:])
        print(f"gen_html.py: {e}\n{tail}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("gen_html.py: interrupted", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

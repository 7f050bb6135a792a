#!/usr/bin/python3
"""Training windows from GTK 3: random forms, toolbars, tabs and lists,
each captured from the X server with the box and role of every interactive
widget taken from the widget's own allocation (exact; no AT-SPI needed).

  gen_gtk3.py OUT_DIR COUNT SEED [--apps | --text]   (needs DISPLAY: run under Xvfb)

--apps builds windows laid out like applications rather than forms: keypads
of close-set keys, list rows with buttons in them, two panes, sidebars and
toolbars of text buttons (files gtk3a_<seed>_<n>).

--text builds windows where text outweighs widgets: headings, paragraphs,
key-value tables, rows of short labels, captions above fields, status lines,
around a few real widgets; text is never a widget (files gtk3t_<seed>_<n>).

Writes OUT_DIR/gtk3_<seed>_<n>.ppm and .json ({"boxes": [[x, y, w, h, role]]})."""
import json
import os
import random
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

from ppm import write_ppm  # noqa: E402
from words import KEYS, phrase  # noqa: E402

THEMES = [("Adwaita", False), ("Adwaita", True), ("HighContrast", False),
          ("HighContrastInverse", False), ("Clearlooks-3.4", False)]
FONTS = ["DejaVu Sans", "Liberation Sans", "Nimbus Sans", "DejaVu Serif", "URW Gothic",
         "Liberation Serif", "DejaVu Sans Condensed"]


def settle(seconds=0.05):
    end = time.time() + seconds
    while time.time() < end or Gtk.events_pending():
        Gtk.main_iteration_do(False)
        if not Gtk.events_pending():
            time.sleep(0.005)


class Window:
    def __init__(self, rng: random.Random):
        outer = self.start(rng, menubar_odds=0.35)
        if rng.random() < 0.4:
            outer.pack_start(self.toolbar(), False, False, 0)
        body = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=rng.choice([2, 4, 6, 8, 12, 18]))
        body.set_border_width(rng.choice([4, 8, 12, 18, 24]))
        if rng.random() < 0.3:
            nb = Gtk.Notebook()
            for i in range(rng.randint(2, 5)):
                page = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
                tab = Gtk.Label(label=phrase(rng, 1, 2))
                nb.append_page(page if i else body, tab)
                self.labelled.append((("tab", nb, i), "tab"))
            outer.pack_start(nb, True, True, 0)
        else:
            outer.pack_start(body, True, True, 0)
        for _ in range(rng.randint(2, 7)):
            body.pack_start(self.row(), False, False, 0)
        self.win.set_default_size(rng.randint(260, 900), rng.randint(120, 500))

    def start(self, rng, menubar_odds, full=None):
        """The window every layout starts from: a random title, fields full
        width or not (drawn unless `full` says), an outer column and, at
        `menubar_odds`, a menu bar in it. Returns the column."""
        self.rng = rng
        self.labelled = []  # (widget, role)
        self.win = Gtk.Window(title=phrase(rng))
        self.full = rng.random() < 0.5 if full is None else full
        outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=0)
        self.win.add(outer)
        if rng.random() < menubar_odds:
            outer.pack_start(self.menubar(), False, False, 0)
        return outer

    def keep(self, widget, role):
        self.labelled.append((widget, role))
        return widget

    def menubar(self):
        bar = Gtk.MenuBar()
        for _ in range(self.rng.randint(2, 5)):
            item = Gtk.MenuItem(label=phrase(self.rng, 1, 1))
            item.set_submenu(Gtk.Menu())
            bar.append(self.keep(item, "menu_item"))
        return bar

    def toolbar(self):
        bar = Gtk.Toolbar()
        icons = ["document-new", "document-open", "document-save", "edit-cut", "edit-copy",
                 "edit-paste", "edit-undo", "edit-redo", "go-previous", "go-next", "list-add",
                 "list-remove", "view-refresh", "edit-find", "media-playback-start"]
        if self.rng.random() < 0.5:
            bar.set_style(Gtk.ToolbarStyle.ICONS)
        for _ in range(self.rng.randint(2, 7)):
            b = Gtk.ToolButton(icon_name=self.rng.choice(icons), label=phrase(self.rng, 1, 1))
            bar.insert(b, -1)
            self.keep(b, "button")
        return bar

    def field(self):
        rng = self.rng
        k = rng.random()
        if k < 0.55:
            e = Gtk.Entry()
            if rng.random() < 0.5:
                e.set_text(phrase(rng, 0, 3))
            elif rng.random() < 0.5:
                e.set_placeholder_text(phrase(rng))
            if not self.full:
                e.set_width_chars(rng.randint(6, 30))
            return self.keep(e, "text_field")
        if k < 0.75:
            s = Gtk.SpinButton.new_with_range(0, 1000, 1)
            s.set_value(rng.randint(0, 999))
            return self.keep(s, "spin_button")
        c = Gtk.ComboBoxText()
        for _ in range(3):
            c.append_text(phrase(rng))
        c.set_active(0)
        return self.keep(c, "combo_box")

    def row(self):
        rng = self.rng
        kind = rng.choices(["field", "labelled", "buttons", "check", "radio", "scale", "list"],
                           [3, 3, 3, 2, 1.5, 1.5, 1])[0]
        if kind == "field":
            return self.field()
        if kind == "labelled":
            box = Gtk.Box(spacing=rng.choice([4, 8, 12]))
            box.pack_start(Gtk.Label(label=phrase(rng) + rng.choice(["", ":"])), False, False, 0)
            box.pack_start(self.field(), self.full, self.full, 0)
            return box
        if kind == "buttons":
            box = Gtk.Box(spacing=rng.choice([0, 4, 6, 12]))
            n = rng.randint(1, 4)
            homogeneous = self.full and rng.random() < 0.6
            box.set_homogeneous(homogeneous)
            for _ in range(n):
                if rng.random() < 0.15:
                    b = Gtk.ToggleButton(label=phrase(rng))
                else:
                    b = Gtk.Button(label=phrase(rng))
                if rng.random() < 0.15:
                    b.get_style_context().add_class("suggested-action")
                box.pack_start(self.keep(b, "button"), homogeneous, homogeneous, 0)
            if not self.full and rng.random() < 0.5:
                box.set_halign(Gtk.Align.END)
            return box
        if kind == "check":
            box = Gtk.Box(orientation=rng.choice([Gtk.Orientation.VERTICAL, Gtk.Orientation.HORIZONTAL]),
                          spacing=rng.choice([0, 4, 12]))
            for _ in range(rng.randint(1, 3)):
                c = Gtk.CheckButton(label=phrase(rng))
                c.set_active(rng.random() < 0.4)
                box.pack_start(self.keep(c, "check_box"), False, False, 0)
            return box
        if kind == "radio":
            box = Gtk.Box(orientation=rng.choice([Gtk.Orientation.VERTICAL, Gtk.Orientation.HORIZONTAL]),
                          spacing=rng.choice([0, 4, 12]))
            first = None
            for _ in range(rng.randint(2, 4)):
                r = Gtk.RadioButton.new_with_label_from_widget(first, phrase(rng))
                first = first or r
                box.pack_start(self.keep(r, "radio_button"), False, False, 0)
            return box
        if kind == "scale":
            s = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
            s.set_value(rng.randint(0, 100))
            s.set_draw_value(rng.random() < 0.6)
            if not self.full:
                s.set_size_request(rng.randint(80, 300), -1)
                s.set_halign(Gtk.Align.START)
            return self.keep(s, "slider")
        return self.tree_list(2, 6)

    def tree_list(self, lo, hi):
        """A one-column tree view of lo..hi rows, each row a list item."""
        rng = self.rng
        store = Gtk.ListStore(str)
        for _ in range(rng.randint(lo, hi)):
            store.append([phrase(rng)])
        view = Gtk.TreeView(model=store)
        view.set_headers_visible(rng.random() < 0.5)
        view.append_column(Gtk.TreeViewColumn(phrase(rng, 1, 1), Gtk.CellRendererText(), text=0))
        self.labelled.append((("rows", view, len(store)), "list_item"))
        return view

    def boxes(self):
        out = []
        top = self.win
        for w, role in self.labelled:
            if isinstance(w, tuple) and w[0] == "tab":
                nb, i = w[1], w[2]
                lab = nb.get_tab_label(nb.get_nth_page(i))
                if not lab.get_mapped():
                    continue
                x, y = lab.translate_coordinates(top, 0, 0)
                a = lab.get_allocation()
                # the tab is the label with the notebook's tab padding around it
                out.append([x - 12, y - 6, a.width + 24, a.height + 12, role])
                continue
            if isinstance(w, tuple) and w[0] == "rows":
                view, n = w[1], w[2]
                col = view.get_column(0)
                for i in range(n):
                    r = view.get_background_area(Gtk.TreePath(i), col)
                    bx, by = view.convert_bin_window_to_widget_coords(r.x, r.y)
                    x, y = view.translate_coordinates(top, bx, by)
                    out.append([x, y, view.get_allocated_width(), r.height, role])
                continue
            if not w.get_mapped():
                continue
            a = w.get_allocation()
            x, y = w.translate_coordinates(top, 0, 0)
            out.append([x, y, a.width, a.height, role])
        return out


class AppWindow(Window):
    """A window laid out like an application: a keypad, a list of rows with
    buttons in them, two panes, or a sidebar, under an optional menu bar and
    toolbar (icons or text)."""

    def __init__(self, rng: random.Random):  # builds its own layout, not the base's form
        outer = self.start(rng, menubar_odds=0.4, full=True)
        if rng.random() < 0.4:
            outer.pack_start(self.text_toolbar() if rng.random() < 0.5 else self.toolbar(), False, False, 0)
        kind = rng.choices(["keypad", "rows", "panes", "sidebar"], [3, 2, 2, 1])[0]
        body = getattr(self, kind)()
        outer.pack_start(body, True, True, 0)
        if rng.random() < 0.25:
            outer.pack_start(self.button_row(), False, False, rng.choice([0, 4, 8]))
        self.win.set_default_size(rng.randint(240, 900), rng.randint(160, 600))

    def flat(self, b):
        if self.rng.random() < 0.5:
            b.set_relief(Gtk.ReliefStyle.NONE)
        return b

    def text_toolbar(self):
        bar = Gtk.Box(spacing=self.rng.choice([0, 2, 6]))
        bar.set_border_width(self.rng.choice([0, 2, 4]))
        flat = self.rng.random() < 0.6
        for _ in range(self.rng.randint(2, 7)):
            b = Gtk.Button(label=phrase(self.rng, 1, 2))
            if flat:
                b.set_relief(Gtk.ReliefStyle.NONE)
            bar.pack_start(self.keep(b, "button"), False, False, 0)
        return bar

    def button_row(self):
        box = Gtk.Box(spacing=self.rng.choice([4, 6, 12]))
        box.set_border_width(self.rng.choice([4, 8, 12]))
        for _ in range(self.rng.randint(1, 3)):
            box.pack_end(self.keep(Gtk.Button(label=phrase(self.rng, 1, 2)), "button"), False, False, 0)
        return box

    def keypad(self):
        rng = self.rng
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=rng.choice([0, 4, 8]))
        box.set_border_width(rng.choice([0, 4, 8, 12]))
        if rng.random() < 0.7:
            if rng.random() < 0.5:
                e = Gtk.Entry()
                e.set_text(str(rng.randint(0, 10 ** rng.randint(1, 9))))
                e.set_alignment(1.0)
                box.pack_start(self.keep(e, "text_field"), False, False, 0)
            else:
                lab = Gtk.Label(label=str(rng.randint(0, 99999)))
                lab.set_xalign(1.0)
                box.pack_start(lab, False, False, rng.choice([4, 12]))
        pads = Gtk.Box(spacing=rng.choice([4, 8, 16]))
        for _ in range(1 if rng.random() < 0.6 else 2):
            grid = Gtk.Grid()
            gap = rng.choice([0, 0, 1, 2, 4, 6])
            grid.set_row_spacing(gap)
            grid.set_column_spacing(gap)
            grid.set_row_homogeneous(True)
            grid.set_column_homogeneous(True)
            cols, rows = rng.randint(2, 6), rng.randint(2, 6)
            flat = rng.random() < 0.3
            taken = set()
            for r in range(rows):
                for c in range(cols):
                    if (r, c) in taken:
                        continue
                    span = 2 if c + 1 < cols and rng.random() < 0.08 else 1
                    label = rng.choice(KEYS) if rng.random() < 0.85 else phrase(rng, 1, 1)[:4]
                    b = Gtk.ToggleButton(label=label) if rng.random() < 0.05 else Gtk.Button(label=label)
                    if flat:
                        b.set_relief(Gtk.ReliefStyle.NONE)
                    if rng.random() < 0.1:
                        b.get_style_context().add_class(rng.choice(["suggested-action", "destructive-action"]))
                    grid.attach(self.keep(b, "button"), c, r, span, 1)
                    taken.update((r, c + i) for i in range(span))
            pads.pack_start(grid, True, True, 0)
        grow = rng.random() < 0.4  # keys as tall as the window allows, or their natural height
        box.pack_start(pads, grow, grow, 0)
        return box

    def list_row(self):
        rng = self.rng
        row = Gtk.ListBoxRow()
        box = Gtk.Box(spacing=rng.choice([6, 12]))
        box.set_border_width(rng.choice([2, 4, 8]))
        if rng.random() < 0.3:
            c = Gtk.CheckButton()
            box.pack_start(self.keep(c, "check_box"), False, False, 0)
        lab = Gtk.Label(label=phrase(rng, 1, 4))
        lab.set_xalign(0)
        box.pack_start(lab, True, True, 0)
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            k = rng.random()
            if k < 0.35:
                w, role = self.flat(Gtk.Button.new_from_icon_name(
                    rng.choice(["list-remove", "edit-delete", "document-properties", "go-next",
                                "emblem-system", "list-add", "view-more"]), Gtk.IconSize.BUTTON)), "button"
            elif k < 0.6:
                w, role = self.flat(Gtk.Button(label=phrase(rng, 1, 1))), "button"
            elif k < 0.8:
                w, role = Gtk.SpinButton.new_with_range(0, 100, 1), "spin_button"
            else:
                w = Gtk.ComboBoxText()
                w.append_text(phrase(rng, 1, 1))
                w.set_active(0)
                role = "combo_box"
            w.set_valign(Gtk.Align.CENTER)
            box.pack_end(self.keep(w, role), False, False, 0)
        row.add(box)
        return self.keep(row, "list_item")

    def rows(self):
        rng = self.rng
        lb = Gtk.ListBox()
        lb.set_selection_mode(rng.choice([Gtk.SelectionMode.NONE, Gtk.SelectionMode.SINGLE]))
        for _ in range(rng.randint(2, 8)):
            lb.add(self.list_row())
        frame = Gtk.Frame() if rng.random() < 0.5 else Gtk.Box()
        frame.add(lb)
        frame.set_border_width(rng.choice([0, 6, 12]))
        return frame

    def list_view(self):
        return self.tree_list(3, 12)

    def form(self):
        body = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=self.rng.choice([2, 4, 6, 8, 12]))
        body.set_border_width(self.rng.choice([4, 8, 12, 18]))
        self.full = self.rng.random() < 0.5
        for _ in range(self.rng.randint(2, 6)):
            body.pack_start(self.row(), False, False, 0)
        return body

    def panes(self):
        rng = self.rng
        paned = Gtk.Paned(orientation=Gtk.Orientation.HORIZONTAL)
        left = rng.choice([self.list_view, self.rows, self.sidebar_buttons])()
        right = rng.choice([self.form, self.rows, self.keypad])()
        paned.pack1(left, False, False)
        paned.pack2(right, True, False)
        paned.set_position(rng.randint(120, 320))
        return paned

    def sidebar_buttons(self):
        rng = self.rng
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=rng.choice([0, 2, 6]))
        box.set_border_width(rng.choice([0, 4, 8]))
        flat = rng.random() < 0.6
        for _ in range(rng.randint(2, 8)):
            b = Gtk.Button(label=phrase(rng, 1, 2))
            if flat:
                b.set_relief(Gtk.ReliefStyle.NONE)
            b.get_child().set_xalign(rng.choice([0.0, 0.5]))
            box.pack_start(self.keep(b, "button"), False, False, 0)
        return box

    def sidebar(self):
        box = Gtk.Box(spacing=0)
        box.pack_start(self.sidebar_buttons(), False, False, 0)
        box.pack_start(Gtk.Separator(orientation=Gtk.Orientation.VERTICAL), False, False, 0)
        box.pack_start(self.form(), True, True, 0)
        return box


class TextWindow(Window):
    """A window where text outweighs widgets (an about box, a properties
    page, a help pane, a report): the model must learn that text alone,
    however short and wherever it sits, is no widget."""

    def __init__(self, rng: random.Random):  # builds its own layout, not the base's form
        outer = self.start(rng, menubar_odds=0.25)
        body = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=rng.choice([2, 4, 8, 12, 18]))
        body.set_border_width(rng.choice([4, 8, 12, 18, 24]))
        outer.pack_start(body, True, True, 0)
        if rng.random() < 0.6:
            body.pack_start(self.text(phrase(rng, 1, 4), heading=True), False, False, 0)
        blocks = ["paragraph", "pairs", "label_row", "captioned", "check", "frame", "widgets"]
        for _ in range(rng.randint(2, 6)):
            kind = rng.choices(blocks, [3, 3, 3, 2, 1, 1.5, 1.5])[0]
            body.pack_start(getattr(self, kind)(), False, False, 0)
        if rng.random() < 0.4:
            body.pack_end(self.button_row(), False, False, 0)
        if rng.random() < 0.4:
            outer.pack_end(self.text(phrase(rng, 2, 6), small=True), False, False, rng.choice([2, 4]))
        self.win.set_default_size(rng.randint(240, 900), rng.randint(160, 600))

    def text(self, words, heading=False, small=False):
        rng = self.rng
        lab = Gtk.Label()
        size = rng.choice(["large", "x-large", "xx-large"]) if heading else "small" if small else \
            rng.choice(["medium", "medium", "small", "large"])
        weight = "bold" if heading or rng.random() < 0.15 else "normal"
        style = "italic" if rng.random() < 0.1 else "normal"
        lab.set_markup(f'<span size="{size}" weight="{weight}" style="{style}">'
                       f"{GLib.markup_escape_text(words)}</span>")
        lab.set_xalign(rng.choice([0.0, 0.0, 0.0, 0.5, 1.0]))
        if rng.random() < 0.3:
            lab.get_style_context().add_class("dim-label")
        return lab

    def sentence(self):
        return phrase(self.rng, 3, 12).capitalize() + self.rng.choice([".", ".", ":", ";", "!"])

    def paragraph(self):
        lab = self.text(" ".join(self.sentence() for _ in range(self.rng.randint(1, 6))))
        lab.set_line_wrap(True)
        lab.set_max_width_chars(self.rng.randint(30, 90))
        return lab

    def pairs(self):
        """Key-value lines: "Key:" and a value, both text."""
        rng = self.rng
        grid = Gtk.Grid()
        grid.set_column_spacing(rng.choice([6, 12, 24]))
        grid.set_row_spacing(rng.choice([0, 2, 4, 8]))
        for r in range(rng.randint(2, 6)):
            key = self.text(phrase(rng, 1, 2) + rng.choice([":", ":", ""]))
            grid.attach(key, 0, r, 1, 1)
            value = str(rng.randint(0, 10 ** rng.randint(1, 6))) if rng.random() < 0.3 else phrase(rng, 1, 4)
            grid.attach(self.text(value), 1, r, 1, 1)
        return grid

    def label_row(self):
        """Short words in a row, spaced like a toolbar or a table header."""
        rng = self.rng
        box = Gtk.Box(spacing=rng.choice([8, 12, 18, 24, 36]))
        box.set_homogeneous(rng.random() < 0.4)
        for _ in range(rng.randint(2, 6)):
            box.pack_start(self.text(phrase(rng, 1, 2)), box.get_homogeneous(), box.get_homogeneous(), 0)
        return box

    def captioned(self):
        """A caption above (or beside) a field: the field is a widget, the caption text."""
        rng = self.rng
        box = Gtk.Box(orientation=rng.choice([Gtk.Orientation.VERTICAL, Gtk.Orientation.HORIZONTAL]),
                      spacing=rng.choice([2, 4, 8]))
        box.pack_start(self.text(phrase(rng, 1, 3)), False, False, 0)
        box.pack_start(self.field(), self.full, self.full, 0)
        return box

    def check(self):
        c = Gtk.CheckButton(label=phrase(self.rng))
        c.set_active(self.rng.random() < 0.4)
        return self.keep(c, "check_box")

    def frame(self):
        f = Gtk.Frame(label=phrase(self.rng, 1, 3))
        inner = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
        inner.set_border_width(self.rng.choice([4, 8, 12]))
        for _ in range(self.rng.randint(1, 3)):
            inner.pack_start(self.rng.choice([self.paragraph, self.pairs])(), False, False, 0)
        f.add(inner)
        return f

    def widgets(self):
        return self.row()

    def button_row(self):
        return AppWindow.button_row(self)


def main():
    apps = "--apps" in sys.argv[4:]
    text = "--text" in sys.argv[4:]
    out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(seed)
    settings = Gtk.Settings.get_default()
    for n in range(count):
        theme, dark = rng.choice(THEMES)
        settings.set_property("gtk-theme-name", theme)
        settings.set_property("gtk-application-prefer-dark-theme", dark)
        settings.set_property("gtk-font-name", f"{rng.choice(FONTS)} {rng.choice([8, 9, 10, 10, 11, 12, 14])}")
        w = AppWindow(rng) if apps else TextWindow(rng) if text else Window(rng)
        w.win.move(0, 0)
        w.win.show_all()
        settle(0.15)
        gdk = w.win.get_window()
        width, height = gdk.get_width(), gdk.get_height()
        pix = Gdk.pixbuf_get_from_window(gdk, 0, 0, width, height)
        boxes = [b for b in w.boxes() if b[2] > 2 and b[3] > 2 and b[0] < width and b[1] < height]
        base = os.path.join(out_dir, f"gtk3{'a' if apps else 't' if text else ''}_{seed}_{n:05d}")
        write_ppm(base + ".ppm", pix)
        with open(base + ".json", "w") as f:
            json.dump({"toolkit": "gtk3", "theme": theme + (":dark" if dark else ""), "boxes": boxes}, f)
        w.win.destroy()
        settle(0.01)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Training windows from GTK 3: random forms, toolbars, tabs and lists,
each captured from the X server with the box and role of every interactive
widget taken from the widget's own allocation (exact; no AT-SPI needed).

  gen_gtk3.py OUT_DIR COUNT SEED      (needs DISPLAY: run under Xvfb)

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
from words import phrase  # noqa: E402

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
        self.rng = rng
        self.labelled = []  # (widget, role)
        self.win = Gtk.Window(title=phrase(rng))
        self.full = rng.random() < 0.5
        outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=0)
        self.win.add(outer)
        if rng.random() < 0.35:
            outer.pack_start(self.menubar(), False, False, 0)
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
        store = Gtk.ListStore(str)
        for _ in range(rng.randint(2, 6)):
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


def main():
    out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(seed)
    settings = Gtk.Settings.get_default()
    for n in range(count):
        theme, dark = rng.choice(THEMES)
        settings.set_property("gtk-theme-name", theme)
        settings.set_property("gtk-application-prefer-dark-theme", dark)
        settings.set_property("gtk-font-name", f"{rng.choice(FONTS)} {rng.choice([8, 9, 10, 10, 11, 12, 14])}")
        w = Window(rng)
        w.win.move(0, 0)
        w.win.show_all()
        settle(0.15)
        gdk = w.win.get_window()
        width, height = gdk.get_width(), gdk.get_height()
        pix = Gdk.pixbuf_get_from_window(gdk, 0, 0, width, height)
        boxes = [b for b in w.boxes() if b[2] > 2 and b[3] > 2 and b[0] < width and b[1] < height]
        base = os.path.join(out_dir, f"gtk3_{seed}_{n:05d}")
        write_ppm(base + ".ppm", pix)
        with open(base + ".json", "w") as f:
            json.dump({"toolkit": "gtk3", "theme": theme + (":dark" if dark else ""), "boxes": boxes}, f)
        w.win.destroy()
        settle(0.01)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Training windows from GTK 4: random forms, header bars, icon rows, tabs,
lists and menus, with the box and role of every interactive widget taken
from the widget's own bounds (exact; no AT-SPI needed).

  gen_gtk4.py OUT_DIR COUNT SEED      (needs DISPLAY: run under Xvfb)

Writes OUT_DIR/gtk4_<seed>_<n>.ppm and .json ({"boxes": [[x, y, w, h, role]]}),
as gen_gtk3.py does. GDK_SCALE=2 in the environment draws the windows at
scale 2, as on a HiDPI screen (GTK 4 on X11 scales by whole numbers only;
train.py resizes crops for the scales between). Each window is read back
from the X server with xwd (GTK 4 has no call for it; PyGObject cannot
take the render nodes a snapshot of the window gives)."""
import json
import os
import random
import struct
import subprocess
import sys
import time

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("GdkX11", "4.0")
from gi.repository import GdkX11, Gio, GLib, Gtk  # noqa: E402

from words import phrase  # noqa: E402

THEMES = [("Adwaita", False), ("Adwaita", True), ("HighContrast", False),
          ("HighContrastInverse", False)]
FONTS = ["DejaVu Sans", "Liberation Sans", "Nimbus Sans", "DejaVu Serif", "URW Gothic",
         "Liberation Serif", "DejaVu Sans Condensed"]
ICONS = ["document-new-symbolic", "document-open-symbolic", "document-save-symbolic",
         "edit-cut-symbolic", "edit-copy-symbolic", "edit-paste-symbolic", "edit-undo-symbolic",
         "go-previous-symbolic", "go-next-symbolic", "list-add-symbolic", "list-remove-symbolic",
         "view-refresh-symbolic", "edit-find-symbolic", "open-menu-symbolic"]


def settle(seconds=0.05):
    context = GLib.MainContext.default()
    end = time.time() + seconds
    while time.time() < end or context.pending():
        context.iteration(False)
        if not context.pending():
            time.sleep(0.005)


def children(widget):
    child = widget.get_first_child()
    while child is not None:
        yield child
        child = child.get_next_sibling()


class Window:
    def __init__(self, rng: random.Random, scale: int):
        self.rng = rng
        self.labelled = []  # (widget, role) or (("tab", notebook, i), "tab")
        self.win = Gtk.Window(title=phrase(rng))
        self.full = rng.random() < 0.5
        if rng.random() < 0.5:
            self.win.set_titlebar(self.headerbar())
        outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        self.win.set_child(outer)
        if rng.random() < 0.3:
            outer.append(self.menubar())
        if rng.random() < 0.35:
            outer.append(self.icon_row())
        body = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=rng.choice([2, 4, 6, 8, 12, 18]))
        margin = rng.choice([4, 8, 12, 18, 24])
        for side in ("top", "bottom", "start", "end"):
            getattr(body, f"set_margin_{side}")(margin)
        for _ in range(rng.randint(2, 7)):
            body.append(self.row())
        if rng.random() < 0.3:
            nb = Gtk.Notebook()
            for i in range(rng.randint(2, 5)):
                page = body if i == 0 else Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
                nb.append_page(page, Gtk.Label(label=phrase(rng, 1, 2)))
                self.labelled.append((("tab", nb, i), "tab"))
            nb.set_vexpand(True)
            outer.append(nb)
        else:
            outer.append(body)
        # Inside a 1280x1024 screen at the scale drawn.
        self.win.set_default_size(rng.randint(260, 900) // scale, rng.randint(120, 500) // scale)

    def keep(self, widget, role):
        self.labelled.append((widget, role))
        return widget

    def headerbar(self):
        bar = Gtk.HeaderBar()
        for _ in range(self.rng.randint(0, 2)):
            b = Gtk.Button.new_from_icon_name(self.rng.choice(ICONS))
            (bar.pack_start if self.rng.random() < 0.5 else bar.pack_end)(self.keep(b, "button"))
        if self.rng.random() < 0.4:
            b = Gtk.Button(label=phrase(self.rng, 1, 1))
            if self.rng.random() < 0.5:
                b.add_css_class("suggested-action")
            bar.pack_end(self.keep(b, "button"))
        return bar

    def menubar(self):
        model = Gio.Menu()
        for _ in range(self.rng.randint(2, 5)):
            model.append_submenu(phrase(self.rng, 1, 1), Gio.Menu())
        bar = Gtk.PopoverMenuBar.new_from_model(model)
        self.labelled.append((("items", bar), "menu_item"))
        return bar

    def icon_row(self):
        box = Gtk.Box(spacing=self.rng.choice([0, 2, 6]))
        box.add_css_class("toolbar")
        for _ in range(self.rng.randint(2, 7)):
            if self.rng.random() < 0.7:
                b = Gtk.Button.new_from_icon_name(self.rng.choice(ICONS))
            else:
                b = Gtk.Button(label=phrase(self.rng, 1, 1))
            if self.rng.random() < 0.5:
                b.add_css_class("flat")
            box.append(self.keep(b, "button"))
        return box

    def field(self):
        rng = self.rng
        k = rng.random()
        if k < 0.5:
            e = Gtk.Entry()
            if rng.random() < 0.5:
                e.set_text(phrase(rng, 0, 3))
            elif rng.random() < 0.5:
                e.set_placeholder_text(phrase(rng))
            if not self.full:
                e.set_width_chars(rng.randint(6, 30))
                e.set_halign(Gtk.Align.START)
            e.set_hexpand(self.full)
            return self.keep(e, "text_field")
        if k < 0.7:
            s = Gtk.SpinButton.new_with_range(0, 1000, 1)
            s.set_value(rng.randint(0, 999))
            if not self.full:
                s.set_halign(Gtk.Align.START)
            return self.keep(s, "spin_button")
        d = Gtk.DropDown.new_from_strings([phrase(rng) for _ in range(3)])
        if not self.full:
            d.set_halign(Gtk.Align.START)
        d.set_hexpand(self.full)
        return self.keep(d, "combo_box")

    def row(self):
        rng = self.rng
        kind = rng.choices(["field", "labelled", "buttons", "check", "radio", "scale", "list"],
                           [3, 3, 3, 2, 1.5, 1.5, 1])[0]
        if kind == "field":
            return self.field()
        if kind == "labelled":
            box = Gtk.Box(spacing=rng.choice([4, 8, 12]))
            box.append(Gtk.Label(label=phrase(rng) + rng.choice(["", ":"])))
            box.append(self.field())
            return box
        if kind == "buttons":
            box = Gtk.Box(spacing=rng.choice([0, 4, 6, 12]))
            homogeneous = self.full and rng.random() < 0.6
            box.set_homogeneous(homogeneous)
            for _ in range(rng.randint(1, 4)):
                b = Gtk.ToggleButton(label=phrase(rng)) if rng.random() < 0.15 else Gtk.Button(
                    label=phrase(rng))
                if rng.random() < 0.15:
                    b.add_css_class(rng.choice(["suggested-action", "destructive-action", "pill"]))
                b.set_hexpand(homogeneous)
                box.append(self.keep(b, "button"))
            if not self.full and rng.random() < 0.5:
                box.set_halign(Gtk.Align.END)
            return box
        if kind in ("check", "radio"):
            box = Gtk.Box(orientation=rng.choice([Gtk.Orientation.VERTICAL, Gtk.Orientation.HORIZONTAL]),
                          spacing=rng.choice([0, 4, 12]))
            first = None
            for _ in range(rng.randint(1, 3) if kind == "check" else rng.randint(2, 4)):
                c = Gtk.CheckButton(label=phrase(rng))
                if kind == "radio":
                    if first is not None:
                        c.set_group(first)
                    first = first or c
                c.set_active(rng.random() < 0.4)
                c.set_halign(Gtk.Align.START)
                box.append(self.keep(c, "check_box" if kind == "check" else "radio_button"))
            return box
        if kind == "scale":
            s = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
            s.set_value(rng.randint(0, 100))
            s.set_draw_value(rng.random() < 0.6)
            if self.full:
                s.set_hexpand(True)
            else:
                s.set_size_request(rng.randint(80, 300), -1)
                s.set_halign(Gtk.Align.START)
            return self.keep(s, "slider")
        listbox = Gtk.ListBox()
        listbox.add_css_class(rng.choice(["boxed-list", "rich-list", "navigation-sidebar"]))
        for _ in range(rng.randint(2, 6)):
            row = Gtk.ListBoxRow()
            label = Gtk.Label(label=phrase(rng))
            label.set_halign(Gtk.Align.START)
            row.set_child(label)
            listbox.append(self.keep(row, "list_item"))
        return listbox

    def boxes(self, scale):
        out = []
        top = self.win
        # Widget coordinates start inside the client-side decorations'
        # margin; the X window's pixels at its edge.
        dx, dy = top.get_surface_transform()

        def add(widget, role):
            if not widget.get_mapped():
                return
            ok, r = widget.compute_bounds(top)
            if ok:
                out.append([round((r.origin.x + dx) * scale), round((r.origin.y + dy) * scale),
                            round(r.size.width * scale), round(r.size.height * scale), role])

        for w, role in self.labelled:
            if isinstance(w, tuple) and w[0] == "tab":
                nb, i = w[1], w[2]
                label = nb.get_tab_label(nb.get_nth_page(i))
                # the tab is the label's parent (the notebook's tab node)
                if label is not None and label.get_parent() is not None:
                    add(label.get_parent(), role)
                continue
            if isinstance(w, tuple) and w[0] == "items":
                for item in children(w[1]):
                    add(item, role)
                continue
            add(w, role)
        # The title bar's own buttons (minimize, maximize, close), GTK 4
        # drawing its decorations itself.
        stack = [top]
        while stack:
            widget = stack.pop()
            if isinstance(widget, Gtk.WindowControls):
                for button in children(widget):
                    if isinstance(button, Gtk.Button):
                        add(button, "button")
                continue
            stack.extend(children(widget))
        return out


def capture(win, path):
    """The window's pixels, read from the X server, to a PPM; its size."""
    xid = GdkX11.X11Surface.get_xid(win.get_surface())
    xwd = subprocess.run(["xwd", "-silent", "-id", str(xid)], check=True,
                         capture_output=True).stdout
    # XWD: a header of 25 big-endian words, the window's name, a colour map
    # of 12-byte entries, then the pixels (ZPixmap, 24 or 32 bits a pixel).
    (header_size, _version, _format, depth, width, height, _xoffset, byte_order, _unit,
     _bit_order, _pad, bits_per_pixel, bytes_per_line, _visual, red_mask, green_mask,
     blue_mask, _bits_rgb, _map_entries, ncolors) = struct.unpack(">20I", xwd[:80])
    if bits_per_pixel not in (24, 32) or depth < 24:
        raise RuntimeError(f"xwd gave {bits_per_pixel} bits a pixel, depth {depth}")
    data = xwd[header_size + 12 * ncolors:]
    step = bits_per_pixel // 8
    endian = "little" if byte_order == 0 else "big"

    def shift(mask):
        return (mask & -mask).bit_length() - 1

    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)
    rgb = bytearray(width * height * 3)
    for y in range(height):
        row = data[y * bytes_per_line: y * bytes_per_line + width * step]
        for x in range(width):
            v = int.from_bytes(row[x * step: x * step + step], endian)
            o = (y * width + x) * 3
            rgb[o] = (v & red_mask) >> rs
            rgb[o + 1] = (v & green_mask) >> gs
            rgb[o + 2] = (v & blue_mask) >> bs
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        f.write(rgb)
    return width, height


def main():
    out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(seed)
    scale = int(os.environ.get("GDK_SCALE", "1") or 1)
    settings = Gtk.Settings.get_default()
    n = 0
    while n < count:
        theme, dark = rng.choice(THEMES)
        settings.set_property("gtk-theme-name", theme)
        settings.set_property("gtk-application-prefer-dark-theme", dark)
        settings.set_property("gtk-font-name", f"{rng.choice(FONTS)} {rng.choice([8, 9, 10, 10, 11, 12, 14])}")
        w = Window(rng, scale)
        w.win.present()
        settle(0.2)
        base = os.path.join(out_dir, f"gtk4_{seed}_{n:05d}")
        width, height = capture(w.win, base + ".ppm")
        boxes = [b for b in w.boxes(scale) if b[2] > 2 and b[3] > 2 and b[0] < width and b[1] < height]
        with open(base + ".json", "w") as f:
            json.dump({"toolkit": "gtk4", "theme": theme + (":dark" if dark else ""), "scale": scale,
                       "boxes": boxes}, f)
        w.win.destroy()
        settle(0.01)
        n += 1


if __name__ == "__main__":
    main()

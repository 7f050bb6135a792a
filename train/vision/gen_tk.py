#!/usr/bin/python3
"""Training windows from Tk (ttk themes clam, alt, default, classic, and
plain Tk widgets): random forms captured from the X server with ImageMagick's
import, boxes and roles from each widget's own geometry.

  gen_tk.py OUT_DIR COUNT SEED   (needs DISPLAY: run under Xvfb)"""
import json
import os
import random
import subprocess
import sys
import tkinter as tk
from tkinter import ttk

from words import phrase

THEMES = ["clam", "alt", "default", "classic"]
FONTS = ["DejaVu Sans", "Liberation Sans", "Nimbus Sans", "DejaVu Serif", "URW Gothic"]


def build(root, rng):
    keep = []
    full = rng.random() < 0.5
    plain = rng.random() < 0.3  # classic Tk widgets instead of ttk
    dark = plain and rng.random() < 0.4
    bg, fg = ("#2d2d2d", "#e0e0e0") if dark else (None, None)
    frame = tk.Frame(root, bg=bg) if plain else ttk.Frame(root)
    frame.pack(fill="both", expand=True)
    pad = rng.choice([2, 4, 8, 12, 18])
    opts = dict(fill="x" if full else None, padx=pad, pady=rng.choice([1, 2, 4, 8]))
    opts = {k: v for k, v in opts.items() if v is not None}

    def color(w):
        if dark:
            try:
                w.configure(bg=bg, fg=fg)
            except tk.TclError:
                pass
        return w

    def k(w, role):
        keep.append((w, role))
        return w

    def field(parent):
        if rng.random() < 0.7:
            e = color(tk.Entry(parent)) if plain else ttk.Entry(parent)
            if not full:
                e.configure(width=rng.randint(6, 30))
            e.insert(0, phrase(rng, 0, 3))
            return k(e, "text_field")
        s = color(tk.Spinbox(parent, from_=0, to=999)) if plain else ttk.Spinbox(parent, from_=0, to=999)
        return k(s, "spin_button")

    for _ in range(rng.randint(2, 7)):
        kind = rng.choices(["field", "labelled", "buttons", "check", "radio", "scale", "combo"],
                           [3, 3, 3, 2, 1.5, 1.5, 1])[0]
        if kind == "field":
            field(frame).pack(anchor="w", **opts)
        elif kind == "combo" and not plain:
            c = ttk.Combobox(frame, values=[phrase(rng) for _ in range(3)])
            c.set(phrase(rng))
            k(c, "combo_box").pack(anchor="w", **opts)
        elif kind in ("labelled", "buttons", "check", "radio", "combo"):
            row = tk.Frame(frame, bg=bg) if plain else ttk.Frame(frame)
            row.pack(anchor="w", **opts)
            side = "left" if (kind != "check" and kind != "radio") or rng.random() < 0.5 else "top"
            if kind == "labelled" or kind == "combo":
                (color(tk.Label(row, text=phrase(rng))) if plain else ttk.Label(row, text=phrase(rng))).pack(side="left")
                field(row).pack(side="left", padx=4, fill="x" if full else None, expand=full)
            elif kind == "buttons":
                for _ in range(rng.randint(1, 4)):
                    b = color(tk.Button(row, text=phrase(rng))) if plain else ttk.Button(row, text=phrase(rng))
                    k(b, "button").pack(side="left", padx=rng.choice([0, 2, 6]), fill="x", expand=full)
            else:
                var = tk.IntVar(value=0)
                for i in range(rng.randint(1, 3) if kind == "check" else rng.randint(2, 4)):
                    if kind == "check":
                        w = color(tk.Checkbutton(row, text=phrase(rng))) if plain else ttk.Checkbutton(row, text=phrase(rng))
                    else:
                        w = (color(tk.Radiobutton(row, text=phrase(rng), variable=var, value=i)) if plain
                             else ttk.Radiobutton(row, text=phrase(rng), variable=var, value=i))
                    k(w, "check_box" if kind == "check" else "radio_button").pack(side=side, anchor="w")
        else:
            s = (color(tk.Scale(frame, from_=0, to=100, orient="horizontal")) if plain
                 else ttk.Scale(frame, from_=0, to=100, orient="horizontal"))
            s.set(rng.randint(0, 100))
            if not full:
                s.configure(length=rng.randint(80, 300))
            k(s, "slider").pack(anchor="w", **opts)
    return keep


def main():
    out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(seed)
    root = tk.Tk()
    root.geometry("+0+0")
    for n in range(count):
        theme = rng.choice(THEMES)
        ttk.Style().theme_use(theme)
        family, size = rng.choice(FONTS), rng.choice([8, 9, 10, 11, 12, 14])
        for name in ("TkDefaultFont", "TkTextFont", "TkFixedFont"):
            tk.font.nametofont(name).configure(family=family, size=size)
        keep = build(root, rng)
        root.geometry(f"{rng.randint(260, 800)}x{rng.randint(150, 450)}+0+0")
        root.update()
        root.after(60)
        root.update()
        x0, y0 = root.winfo_rootx(), root.winfo_rooty()
        w, h = root.winfo_width(), root.winfo_height()
        base = os.path.join(out_dir, f"tk_{seed}_{n:05d}")
        subprocess.run(["import", "-window", "root", "-crop", f"{w}x{h}+{x0}+{y0}", "-depth", "8", base + ".ppm"],
                       check=True)
        boxes = []
        for wdg, role in keep:
            if not wdg.winfo_ismapped():
                continue
            bx, by = wdg.winfo_rootx() - x0, wdg.winfo_rooty() - y0
            bw, bh = wdg.winfo_width(), wdg.winfo_height()
            if bx < w and by < h and bw > 2 and bh > 2:
                boxes.append([bx, by, bw, bh, role])
        with open(base + ".json", "w") as f:
            json.dump({"toolkit": "tk", "theme": theme, "boxes": boxes}, f)
        for c in root.winfo_children():
            c.destroy()


if __name__ == "__main__":
    import tkinter.font  # noqa: F401
    main()

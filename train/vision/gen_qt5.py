#!/usr/bin/python3
"""Training windows from Qt 5 (Fusion and Windows styles): random forms,
toolbars, tabs and lists rendered with QWidget.grab(), boxes and roles from
each widget's own geometry.

  gen_qt5.py OUT_DIR COUNT SEED   (QT_QPA_PLATFORM=offscreen works: no X needed)"""
import json
import os
import random
import sys

from PyQt5 import QtCore, QtGui, QtWidgets

from words import phrase

STYLES = ["Fusion", "Windows"]
FONTS = ["DejaVu Sans", "Liberation Sans", "Nimbus Sans", "DejaVu Serif", "URW Gothic"]


def dark_palette():
    p = QtGui.QPalette()
    c = QtGui.QColor
    p.setColor(QtGui.QPalette.Window, c(53, 53, 53))
    p.setColor(QtGui.QPalette.WindowText, QtCore.Qt.white)
    p.setColor(QtGui.QPalette.Base, c(35, 35, 35))
    p.setColor(QtGui.QPalette.Text, QtCore.Qt.white)
    p.setColor(QtGui.QPalette.Button, c(53, 53, 53))
    p.setColor(QtGui.QPalette.ButtonText, QtCore.Qt.white)
    p.setColor(QtGui.QPalette.Highlight, c(42, 130, 218))
    return p


def build(rng):
    keep = []
    win = QtWidgets.QMainWindow()
    full = rng.random() < 0.5
    if rng.random() < 0.35:
        for _ in range(rng.randint(2, 5)):
            win.menuBar().addMenu(phrase(rng, 1, 1))
        keep.append(("menubar", win.menuBar()))
    if rng.random() < 0.4:
        tb = win.addToolBar("t")
        style = win.style()
        icons = [QtWidgets.QStyle.SP_DialogOpenButton, QtWidgets.QStyle.SP_DialogSaveButton,
                 QtWidgets.QStyle.SP_FileIcon, QtWidgets.QStyle.SP_DirIcon, QtWidgets.QStyle.SP_BrowserReload,
                 QtWidgets.QStyle.SP_ArrowBack, QtWidgets.QStyle.SP_ArrowForward, QtWidgets.QStyle.SP_TrashIcon]
        for _ in range(rng.randint(2, 7)):
            tb.addAction(style.standardIcon(rng.choice(icons)), phrase(rng, 1, 1))
        keep.append(("toolbar", tb))
    central = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(central)
    m = rng.choice([4, 8, 12, 18])
    lay.setContentsMargins(m, m, m, m)
    lay.setSpacing(rng.choice([2, 4, 6, 10, 16]))
    if rng.random() < 0.3:
        tabs = QtWidgets.QTabWidget()
        for i in range(rng.randint(2, 5)):
            tabs.addTab(central if i == 0 else QtWidgets.QWidget(), phrase(rng, 1, 2))
        keep.append(("tabs", tabs))
        win.setCentralWidget(tabs)
    else:
        win.setCentralWidget(central)

    def k(w, role):
        keep.append((role, w))
        return w

    def field():
        r = rng.random()
        if r < 0.55:
            e = QtWidgets.QLineEdit()
            if rng.random() < 0.5:
                e.setText(phrase(rng, 0, 3))
            else:
                e.setPlaceholderText(phrase(rng))
            if not full:
                e.setFixedWidth(rng.randint(60, 300))
            return k(e, "text_field")
        if r < 0.75:
            s = QtWidgets.QSpinBox()
            s.setRange(0, 1000)
            s.setValue(rng.randint(0, 999))
            return k(s, "spin_button")
        c = QtWidgets.QComboBox()
        c.addItems([phrase(rng) for _ in range(3)])
        return k(c, "combo_box")

    for _ in range(rng.randint(2, 7)):
        kind = rng.choices(["field", "labelled", "buttons", "check", "radio", "scale", "list"],
                           [3, 3, 3, 2, 1.5, 1.5, 1])[0]
        if kind == "field":
            lay.addWidget(field())
        elif kind == "labelled":
            h = QtWidgets.QHBoxLayout()
            h.addWidget(QtWidgets.QLabel(phrase(rng) + rng.choice(["", ":"])))
            h.addWidget(field(), 1 if full else 0)
            if not full:
                h.addStretch(1)
            lay.addLayout(h)
        elif kind == "buttons":
            h = QtWidgets.QHBoxLayout()
            if not full and rng.random() < 0.5:
                h.addStretch(1)
            for _ in range(rng.randint(1, 4)):
                b = k(QtWidgets.QPushButton(phrase(rng)), "button")
                if full:
                    b.setSizePolicy(QtWidgets.QSizePolicy.Expanding, QtWidgets.QSizePolicy.Fixed)
                h.addWidget(b)
            if not full:
                h.addStretch(1)
            lay.addLayout(h)
        elif kind in ("check", "radio"):
            box = QtWidgets.QHBoxLayout() if rng.random() < 0.5 else QtWidgets.QVBoxLayout()
            for _ in range(rng.randint(1, 3) if kind == "check" else rng.randint(2, 4)):
                w = QtWidgets.QCheckBox(phrase(rng)) if kind == "check" else QtWidgets.QRadioButton(phrase(rng))
                w.setChecked(rng.random() < 0.4)
                box.addWidget(k(w, "check_box" if kind == "check" else "radio_button"))
            box.addStretch(1)
            lay.addLayout(box)
        elif kind == "scale":
            s = QtWidgets.QSlider(QtCore.Qt.Horizontal)
            s.setValue(rng.randint(0, 99))
            if not full:
                s.setFixedWidth(rng.randint(80, 300))
            lay.addWidget(k(s, "slider"))
        else:
            lw = QtWidgets.QListWidget()
            lw.addItems([phrase(rng) for _ in range(rng.randint(2, 6))])
            keep.append(("list", lw))
            lay.addWidget(lw)
    lay.addStretch(1)
    win.resize(rng.randint(260, 900), rng.randint(150, 500))
    return win, keep


def boxes(win, keep):
    out = []

    def at(w, rect, role):
        p = w.mapTo(win, rect.topLeft())
        out.append([p.x(), p.y(), rect.width(), rect.height(), role])

    for role, w in keep:
        if not w.isVisible():
            continue
        if role == "menubar":
            for a in w.actions():
                at(w, w.actionGeometry(a), "menu_item")
        elif role == "toolbar":
            for a in w.actions():
                b = w.widgetForAction(a)
                if b is not None and b.isVisible():
                    at(b, b.rect(), "button")
        elif role == "tabs":
            bar = w.tabBar()
            for i in range(bar.count()):
                at(bar, bar.tabRect(i), "tab")
        elif role == "list":
            vp = w.viewport()
            for i in range(w.count()):
                r = w.visualItemRect(w.item(i))
                r.setWidth(vp.width())
                if r.bottom() < vp.height():
                    at(vp, r, "list_item")
        else:
            at(w, w.rect(), role)
    return out


def main():
    out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(seed)
    app = QtWidgets.QApplication(["gen"])
    default_palette = app.palette()
    for n in range(count):
        style = rng.choice(STYLES)
        app.setStyle(style)
        dark = style == "Fusion" and rng.random() < 0.3
        app.setPalette(dark_palette() if dark else app.style().standardPalette())
        app.setFont(QtGui.QFont(rng.choice(FONTS), rng.choice([8, 9, 10, 11, 12, 14])))
        win, keep = build(rng)
        win.show()
        for _ in range(3):
            app.processEvents()
        img = win.grab().toImage().convertToFormat(QtGui.QImage.Format_RGB888)
        base = os.path.join(out_dir, f"qt5_{seed}_{n:05d}")
        img.save(base + ".ppm")
        b = [x for x in boxes(win, keep) if x[2] > 2 and x[3] > 2]
        with open(base + ".json", "w") as f:
            json.dump({"toolkit": "qt5", "theme": style + (":dark" if dark else ""), "boxes": b}, f)
        win.close()
        win.deleteLater()
        app.processEvents()
    del default_palette


if __name__ == "__main__":
    main()

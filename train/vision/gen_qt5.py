#!/usr/bin/python3
"""Training windows from Qt 5 (Fusion and Windows styles): random forms,
toolbars, tabs and lists rendered with QWidget.grab(), boxes and roles from
each widget's own geometry.

  gen_qt5.py OUT_DIR COUNT SEED [--apps | --text]   (QT_QPA_PLATFORM=offscreen works: no X needed)

--apps builds windows laid out like applications rather than forms (keypads,
list rows with widgets in them, two panes, sidebars, text toolbars) and draws
them in every style Qt has here, Debian's qt5-style-plugins included
(Cleanlooks, Plastique, Motif, CDE); files qt5a_<seed>_<n>.

--text builds windows where text outweighs widgets (headings, paragraphs,
key-value tables, rows of short labels, captions above fields, status bars,
around a few real widgets), in every style too; text is never a widget;
files qt5t_<seed>_<n>."""
import json
import os
import random
import sys

from PyQt5 import QtCore, QtGui, QtWidgets

from words import KEYS, phrase

STYLES = ["Fusion", "Windows"]
APP_STYLES = STYLES + ["cleanlooks", "plastique", "motif", "cde"]  # qt5-style-plugins
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


def fill_form(rng, lay, full, keep, rows):
    """Adds ROWS random form rows (fields, labelled fields, buttons, check boxes,
    radio groups, sliders, lists) to the layout LAY."""
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

    for _ in range(rows):
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


ICONS = [QtWidgets.QStyle.SP_DialogOpenButton, QtWidgets.QStyle.SP_DialogSaveButton,
         QtWidgets.QStyle.SP_FileIcon, QtWidgets.QStyle.SP_DirIcon, QtWidgets.QStyle.SP_BrowserReload,
         QtWidgets.QStyle.SP_ArrowBack, QtWidgets.QStyle.SP_ArrowForward, QtWidgets.QStyle.SP_TrashIcon]


def add_menubar(rng, win, keep):
    for _ in range(rng.randint(2, 5)):
        win.menuBar().addMenu(phrase(rng, 1, 1))
    keep.append(("menubar", win.menuBar()))


def add_toolbar(rng, win, keep, text_only):
    tb = win.addToolBar("t")
    if text_only:
        tb.setToolButtonStyle(QtCore.Qt.ToolButtonTextOnly)
    style = win.style()
    for _ in range(rng.randint(2, 7)):
        tb.addAction(style.standardIcon(rng.choice(ICONS)), phrase(rng, 1, 1 + text_only))
    keep.append(("toolbar", tb))


def build(rng):
    keep = []
    win = QtWidgets.QMainWindow()
    full = rng.random() < 0.5
    if rng.random() < 0.35:
        add_menubar(rng, win, keep)
    if rng.random() < 0.4:
        add_toolbar(rng, win, keep, text_only=False)
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

    fill_form(rng, lay, full, keep, rng.randint(2, 7))
    lay.addStretch(1)
    win.resize(rng.randint(260, 900), rng.randint(150, 500))
    return win, keep


def keypad(rng, keep):
    """A calculator-like pad: an optional display over one or two grids of
    close-set keys."""
    w = QtWidgets.QWidget()
    v = QtWidgets.QVBoxLayout(w)
    m = rng.choice([0, 4, 8, 12])
    v.setContentsMargins(m, m, m, m)
    if rng.random() < 0.7:
        if rng.random() < 0.5:
            e = QtWidgets.QLineEdit(str(rng.randint(0, 10 ** rng.randint(1, 9))))
            e.setAlignment(QtCore.Qt.AlignRight)
            v.addWidget(e)
            keep.append(("text_field", e))
        else:
            lab = QtWidgets.QLabel(str(rng.randint(0, 99999)))
            lab.setAlignment(QtCore.Qt.AlignRight)
            v.addWidget(lab)
    pads = QtWidgets.QHBoxLayout()
    grow = rng.random() < 0.4  # keys as tall as the window allows, or their natural height
    tool = rng.random() < 0.3  # QToolButtons, as kcalc's keys are
    for _ in range(1 if rng.random() < 0.6 else 2):
        grid = QtWidgets.QGridLayout()
        gap = rng.choice([0, 0, 1, 2, 4, 6])
        grid.setSpacing(gap)
        cols, rows = rng.randint(2, 6), rng.randint(2, 6)
        taken = set()
        for r in range(rows):
            for c in range(cols):
                if (r, c) in taken:
                    continue
                span = 2 if c + 1 < cols and rng.random() < 0.08 else 1
                label = rng.choice(KEYS) if rng.random() < 0.85 else phrase(rng, 1, 1)[:4]
                if tool:
                    b = QtWidgets.QToolButton()
                    b.setText(label)
                    b.setAutoRaise(rng.random() < 0.3)
                else:
                    b = QtWidgets.QPushButton(label)
                    b.setCheckable(rng.random() < 0.05)
                    b.setMinimumWidth(rng.choice([0, 24, 40]))
                vertical = QtWidgets.QSizePolicy.Expanding if grow else QtWidgets.QSizePolicy.Preferred
                b.setSizePolicy(QtWidgets.QSizePolicy.Expanding, vertical)
                grid.addWidget(b, r, c, 1, span)
                keep.append(("button", b))
                taken.update((r, c + i) for i in range(span))
        pads.addLayout(grid)
    v.addLayout(pads, 1 if grow else 0)
    if not grow:
        v.addStretch(1)
    return w


def list_rows(rng, keep):
    """Rows of a list, each a label with buttons, a spin box or a combo box at
    its end (a QListWidget whose items hold widgets)."""
    lw = QtWidgets.QListWidget()
    for _ in range(rng.randint(2, 8)):
        item = QtWidgets.QListWidgetItem(lw)
        row = QtWidgets.QWidget()
        h = QtWidgets.QHBoxLayout(row)
        m = rng.choice([2, 4, 6])
        h.setContentsMargins(m, m, m, m)
        if rng.random() < 0.3:
            c = QtWidgets.QCheckBox()
            h.addWidget(c)
            keep.append(("check_box", c))
        h.addWidget(QtWidgets.QLabel(phrase(rng, 1, 4)), 1)
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            k = rng.random()
            if k < 0.35:
                b = QtWidgets.QToolButton()
                b.setIcon(lw.style().standardIcon(rng.choice(ICONS)))
                b.setAutoRaise(rng.random() < 0.5)
                role = "button"
            elif k < 0.6:
                b = QtWidgets.QPushButton(phrase(rng, 1, 1))
                b.setFlat(rng.random() < 0.3)
                role = "button"
            elif k < 0.8:
                b, role = QtWidgets.QSpinBox(), "spin_button"
                b.setMinimumWidth(rng.choice([56, 72, 96]))
            else:
                b = QtWidgets.QComboBox()
                b.addItem(phrase(rng, 1, 1))
                role = "combo_box"
            h.addWidget(b)
            keep.append((role, b))
        item.setSizeHint(row.sizeHint())
        lw.setItemWidget(item, row)
    keep.append(("list", lw))
    return lw


def sidebar(rng, keep):
    w = QtWidgets.QWidget()
    v = QtWidgets.QVBoxLayout(w)
    v.setSpacing(rng.choice([0, 2, 6]))
    flat = rng.random() < 0.6
    for _ in range(rng.randint(2, 8)):
        b = QtWidgets.QPushButton(phrase(rng, 1, 2))
        b.setFlat(flat)
        v.addWidget(b)
        keep.append(("button", b))
    v.addStretch(1)
    return w


def form(rng, keep):
    w = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(w)
    m = rng.choice([4, 8, 12, 18])
    lay.setContentsMargins(m, m, m, m)
    lay.setSpacing(rng.choice([2, 4, 6, 10, 16]))
    fill_form(rng, lay, rng.random() < 0.5, keep, rng.randint(2, 6))
    lay.addStretch(1)
    return w


def plain_list(rng, keep):
    lw = QtWidgets.QListWidget()
    lw.addItems([phrase(rng) for _ in range(rng.randint(3, 12))])
    keep.append(("list", lw))
    return lw


def build_app(rng):
    """A window laid out like an application: a keypad, a list of rows with
    widgets in them, two panes, or a sidebar, under an optional menu bar and
    toolbar (icons or text only)."""
    keep = []
    win = QtWidgets.QMainWindow()
    if rng.random() < 0.4:
        add_menubar(rng, win, keep)
    if rng.random() < 0.4:
        add_toolbar(rng, win, keep, text_only=rng.random() < 0.5)
    kind = rng.choices(["keypad", "rows", "panes", "sidebar"], [3, 2, 2, 1])[0]
    if kind == "keypad":
        central = keypad(rng, keep)
    elif kind == "rows":
        central = list_rows(rng, keep)
    else:
        central = QtWidgets.QSplitter()
        left = sidebar if kind == "sidebar" else rng.choice([plain_list, list_rows, sidebar])
        central.addWidget(left(rng, keep))
        central.addWidget(rng.choice([form, list_rows, keypad])(rng, keep))
        central.setStretchFactor(1, 1)
    win.setCentralWidget(central)
    win.resize(rng.randint(240, 900), rng.randint(160, 600))
    return win, keep


def text_label(rng, words, heading=False, small=False):
    lab = QtWidgets.QLabel(words)
    f = lab.font()
    size = f.pointSize()
    f.setPointSize(size + rng.choice([3, 5, 8]) if heading else max(size - 2, 6) if small
                   else size + rng.choice([0, 0, -1, 2]))
    f.setBold(heading or rng.random() < 0.15)
    f.setItalic(rng.random() < 0.1)
    lab.setFont(f)
    lab.setAlignment(rng.choice([QtCore.Qt.AlignLeft, QtCore.Qt.AlignLeft, QtCore.Qt.AlignHCenter,
                                 QtCore.Qt.AlignRight]) | QtCore.Qt.AlignVCenter)
    if rng.random() < 0.25:
        lab.setEnabled(False)  # greyed, as dim text is
    return lab


def text_block(rng, keep, full):
    """One block of a text window: mostly text, now and then a widget."""
    kind = rng.choices(["paragraph", "pairs", "label_row", "captioned", "group", "widgets"],
                       [3, 3, 3, 2, 1.5, 1.5])[0]
    if kind == "paragraph":
        lab = text_label(rng, " ".join(phrase(rng, 3, 12).capitalize() + rng.choice([".", ":", "!"])
                                       for _ in range(rng.randint(1, 6))))
        lab.setWordWrap(True)
        return lab
    if kind == "pairs":
        w = QtWidgets.QWidget()
        grid = QtWidgets.QGridLayout(w)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(rng.choice([6, 12, 24]))
        grid.setVerticalSpacing(rng.choice([0, 2, 4, 8]))
        for r in range(rng.randint(2, 6)):
            grid.addWidget(text_label(rng, phrase(rng, 1, 2) + rng.choice([":", ":", ""])), r, 0)
            value = str(rng.randint(0, 10 ** rng.randint(1, 6))) if rng.random() < 0.3 else phrase(rng, 1, 4)
            grid.addWidget(text_label(rng, value), r, 1)
        return w
    if kind == "label_row":
        w = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(w)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(rng.choice([8, 12, 18, 24, 36]))
        for _ in range(rng.randint(2, 6)):
            row.addWidget(text_label(rng, phrase(rng, 1, 2)))
        if rng.random() < 0.5:
            row.addStretch(1)
        return w
    if kind == "group":
        g = QtWidgets.QGroupBox(phrase(rng, 1, 3))
        inner = QtWidgets.QVBoxLayout(g)
        for _ in range(rng.randint(1, 3)):
            inner.addWidget(text_block(rng, keep, full) if rng.random() < 0.3 else
                            text_label(rng, phrase(rng, 4, 20)))
        return g
    w = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(w) if kind == "widgets" or rng.random() < 0.5 else QtWidgets.QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    if kind == "captioned":
        lay.addWidget(text_label(rng, phrase(rng, 1, 3)))
        e = QtWidgets.QLineEdit(phrase(rng, 0, 3))
        keep.append(("text_field", e))
        lay.addWidget(e)
    else:
        fill_form(rng, lay, full, keep, 1)
    return w


def build_text(rng):
    """A window where text outweighs widgets (an about box, a properties
    page, a report): text alone, however short, is no widget."""
    keep = []
    win = QtWidgets.QMainWindow()
    full = rng.random() < 0.5
    if rng.random() < 0.25:
        add_menubar(rng, win, keep)
    central = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(central)
    m = rng.choice([4, 8, 12, 18, 24])
    lay.setContentsMargins(m, m, m, m)
    lay.setSpacing(rng.choice([2, 4, 8, 12, 18]))
    if rng.random() < 0.6:
        lay.addWidget(text_label(rng, phrase(rng, 1, 4), heading=True))
    for _ in range(rng.randint(2, 6)):
        lay.addWidget(text_block(rng, keep, full))
    lay.addStretch(1)
    if rng.random() < 0.4:
        bb = QtWidgets.QHBoxLayout()
        bb.addStretch(1)
        for _ in range(rng.randint(1, 3)):
            b = QtWidgets.QPushButton(phrase(rng, 1, 2))
            keep.append(("button", b))
            bb.addWidget(b)
        lay.addLayout(bb)
    if rng.random() < 0.4:
        win.statusBar().addWidget(text_label(rng, phrase(rng, 2, 6), small=True))
    win.setCentralWidget(central)
    win.resize(rng.randint(240, 900), rng.randint(160, 600))
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
    apps = "--apps" in sys.argv[4:]
    text = "--text" in sys.argv[4:]
    out_dir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(seed)
    app = QtWidgets.QApplication(["gen"])
    default_palette = app.palette()
    for n in range(count):
        style = rng.choice(APP_STYLES if apps or text else STYLES)
        if app.setStyle(style) is None:
            sys.exit(f"gen_qt5.py: no Qt style {style!r} here (install qt5-style-plugins)")
        dark = style == "Fusion" and rng.random() < 0.3
        app.setPalette(dark_palette() if dark else app.style().standardPalette())
        app.setFont(QtGui.QFont(rng.choice(FONTS), rng.choice([8, 9, 10, 11, 12, 14])))
        win, keep = build_app(rng) if apps else build_text(rng) if text else build(rng)
        win.show()
        for _ in range(3):
            app.processEvents()
        img = win.grab().toImage().convertToFormat(QtGui.QImage.Format_RGB888)
        base = os.path.join(out_dir, f"qt5{'a' if apps else 't' if text else ''}_{seed}_{n:05d}")
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

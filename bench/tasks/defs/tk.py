"""A Tk form the task writes (Tk has no accessibility: pixels are all there
is). The form prints what was submitted on stdout and exits; the checker
reads that stdout and the exit code."""
from checkers import stdout_and_exit
from suite import Task, captured

FORM = r'''
import sys
import tkinter as tk

root = tk.Tk(className="order-form")
root.title("Order form")
root.geometry("+120+90")
tk.Label(root, text="Customer name").grid(row=0, column=0, sticky="w", padx=10, pady=8)
name = tk.Entry(root, width=30)
name.grid(row=0, column=1, padx=10, pady=8)
tk.Label(root, text="Quantity").grid(row=1, column=0, sticky="w", padx=10, pady=8)
qty = tk.Entry(root, width=30)
qty.grid(row=1, column=1, padx=10, pady=8)
gift = tk.IntVar()
tk.Checkbutton(root, text="Gift wrap", variable=gift).grid(row=2, column=1, sticky="w", padx=10)


def submit():
    print("%s|%s|%s" % (name.get(), qty.get(), "gift" if gift.get() else "plain"))
    sys.stdout.flush()
    root.destroy()


tk.Button(root, text="Place order", command=submit).grid(row=3, column=1, sticky="e",
                                                          padx=10, pady=10)
root.mainloop()
'''


SIZES = r'''
import sys
import tkinter as tk

root = tk.Tk(className="shirt-form")
root.title("Shirt order")
root.geometry("+120+90")
tk.Label(root, text="Size").grid(row=0, column=0, sticky="nw", padx=10, pady=8)
size = tk.StringVar(value="Medium")
for i, s in enumerate(["Small", "Medium", "Large"]):
    tk.Radiobutton(root, text=s, variable=size, value=s).grid(row=i, column=1, sticky="w")
tk.Label(root, text="Ship to").grid(row=3, column=0, sticky="nw", padx=10, pady=8)
cities = tk.Listbox(root, height=4, exportselection=False)
for c in ["Berlin", "Lisbon", "Oslo", "Vienna"]:
    cities.insert("end", c)
cities.grid(row=3, column=1, padx=10, pady=8)


def submit():
    chosen = [cities.get(i) for i in cities.curselection()]
    print("%s|%s" % (size.get(), ",".join(chosen)))
    sys.stdout.flush()
    root.destroy()


tk.Button(root, text="Order shirt", command=submit).grid(row=4, column=1, sticky="e",
                                                          padx=10, pady=10)
root.mainloop()
'''


def setup(ctx):
    ctx.write("form.py", FORM)


def setup_sizes(ctx):
    ctx.write("form.py", SIZES)


TASKS = [
    Task(
        name="tk-order",
        goal="Place an order for Grace Hopper, quantity 3, gift wrapped.",
        setup=setup,
        command=captured("/usr/bin/python3", "{dir}/form.py"),
        needs=["py:tkinter"],
        quick=True,
        steps=[
            "type Grace Hopper into the Customer name field",
            "type 3 into the Quantity field",
            "tick Gift wrap",
            "click the button labelled Place order",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Grace Hopper|3|gift\n", 0),
    ),
    Task(
        name="tk-shirt",
        goal="Order a large shirt shipped to Lisbon in the Tk form.",
        setup=setup_sizes,
        command=captured("/usr/bin/python3", "{dir}/form.py"),
        needs=["py:tkinter"],
        steps=[
            "click the radio button labelled Large",
            "click Lisbon",
            "click the button labelled Order shirt",
        ],
        check=stdout_and_exit("out.txt", "rc.txt", "Large|Lisbon\n", 0),
    ),
]

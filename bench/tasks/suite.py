"""What a task is, and the suite of them (one module per app under defs/).

A task: its setup (its own files, written into a fresh temporary directory),
the command that starts its app (through `app_launch`), a goal sentence as a
person would give it, the steps an agent would take (labels and intents
only; see harness.Agent.STEPS), a checker that reads the real outcome
without uiscope (checkers.py), and its teardown (the app closed through
`app_close`, then the desktop stopped and searched for anything left).
"""

import importlib
import os
import pkgutil
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


class Context:
    """What a task's setup, command and checker get: its directory, the
    desktop's environment, the repository, and things to undo."""

    def __init__(self, directory, env, bin_dir, repo=REPO):
        self.dir = directory
        self.env = env
        self.bin = bin_dir  # where uiscope and the project's fixtures are
        self.repo = repo
        self.cleanups = []

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(self.path(name), mode) as f:
            f.write(data)
        return self.path(name)


class Task:
    def __init__(self, name, goal, command, steps, check, app=None, needs=(), setup=None,
                 quick=False, launch_timeout_ms=30000, app_name=None):
        self.name = name
        self.goal = goal
        self.command = command      # argv, with {dir}, {bin}, {tasks} replaced; or a callable(ctx)
        self.steps = steps          # strings, with {dir} replaced
        self.check = check          # checker(ctx) -> (ok, message)
        self.app = app              # the app as the menu tool names it, when app_launch
                                    # does not say it
        self.needs = list(needs)    # executables, {bin}/PROGRAM, py:MODULE
        self.setup = setup          # setup(ctx), before the app starts
        self.quick = quick          # in the ctest subset (no large app)
        self.launch_timeout_ms = launch_timeout_ms

    def missing(self, bin_dir):
        out = []
        for need in self.needs:
            if need.startswith("py:"):
                r = subprocess.run(["/usr/bin/python3", "-c", "import " + need[3:]],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                if r.returncode != 0:
                    out.append("python module " + need[3:])
            elif "/" in need:
                path = need.replace("{bin}", bin_dir)
                if not os.access(path, os.X_OK):
                    out.append(path)
            elif shutil.which(need) is None:
                out.append(need)
        return out

    def argv(self, ctx):
        if callable(self.command):
            return self.command(ctx)
        return [a.replace("{dir}", ctx.dir).replace("{bin}", ctx.bin).replace("{tasks}", HERE)
                for a in self.command]

    def step_texts(self, ctx):
        return [s.replace("{dir}", ctx.dir) for s in self.steps]


def captured(*argv):
    """The command that runs `argv` with its stdout kept in out.txt and its
    exit code in rc.txt of the task's folder (capture_output.py; the launch
    policy refuses shells), for checkers.stdout_and_exit."""
    return ["{tasks}/capture_output.py", "{dir}/out.txt", "{dir}/rc.txt"] + list(argv)


def load_tasks():
    """Every task of every module in defs/, in module then definition order."""
    import defs  # noqa: the package next to this file
    tasks = []
    for info in sorted(pkgutil.iter_modules(defs.__path__), key=lambda i: i.name):
        module = importlib.import_module("defs." + info.name)
        tasks.extend(getattr(module, "TASKS", []))
    names = [t.name for t in tasks]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError("task names used twice: %s" % ", ".join(sorted(duplicates)))
    return tasks

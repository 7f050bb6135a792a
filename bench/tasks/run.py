#!/usr/bin/python3
"""Runs the task suite: per task a fresh headless session (`uiscope session
start`), one `uiscope mcp` server on stdio driven by the harness, the task's
checker, and its teardown. Prints per task pass/fail, the failing step with
the tool's own message, calls, characters of tool output and wall time, then

  tasks: P/N passed, false successes F, calls C, chars K, wall W s

A false success is a task whose every call reported success while its
checker failed. Exit status: 0 when every task that ran passed, 1 otherwise,
77 when none could run (their apps are missing).

  run.py [--only NAME[,NAME…]] [--quick] [--repeat N] [--list] [-v] [--keep]
         [--uiscope PATH] [--transcripts DIR]
"""

import argparse
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import suite  # noqa: E402


def start_session(uiscope, env):
    """Starts a headless desktop; returns (id, its environment)."""
    r = subprocess.run([uiscope, "session", "start"], env=env, capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise RuntimeError("uiscope session start: %s" % (r.stderr.strip() or r.stdout.strip()))
    session_env = dict(env)
    for line in r.stdout.splitlines():
        words = shlex.split(line)
        if len(words) >= 2 and words[0] == "export" and "=" in words[1]:
            key, value = words[1].split("=", 1)
            session_env[key] = value
        elif len(words) >= 2 and words[0] == "unset":
            for key in words[1:]:
                session_env.pop(key, None)
    if "UISCOPE_SESSION" not in session_env or "DISPLAY" not in session_env:
        raise RuntimeError("uiscope session start printed no session: %r" % r.stdout[:300])
    return session_env["UISCOPE_SESSION"], session_env


def processes_on(runtime_dir):
    """The processes still running on a desktop, found by its private runtime
    directory in their environment (unique to the session, unlike a display
    number, which another session may take as soon as this one ends)."""
    if not runtime_dir:
        return []
    marks = {("XDG_RUNTIME_DIR=" + runtime_dir).encode()}
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = set(f.read().split(b"\0"))
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if state != "Z" and env & marks:
            out.append("%s %s" % (pid, cmd[:80]))
    return out


def pid_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Outcome:
    def __init__(self, name):
        self.name = name
        self.status = "fail"    # pass, fail, skip
        self.passed = False
        self.false_success = False
        self.failed_step = None  # (index, text, message)
        self.check_message = ""
        self.teardown = ""       # what was left running, if anything
        self.calls = 0
        self.chars = 0
        self.errors = 0         # tool errors during the task's steps
        self.doubts = 0         # calls that succeeded with effect unverified or none
        self.wall = 0.0


def run_task(task, uiscope, base_env, args):
    out = Outcome(task.name)
    bin_dir = os.path.dirname(os.path.abspath(uiscope))
    missing = task.missing(bin_dir)
    if missing:
        out.status = "skip"
        out.check_message = "needs " + ", ".join(missing)
        return out
    started = time.monotonic()
    directory = tempfile.mkdtemp(prefix="uiscope-task-%s-" % task.name)
    env = dict(base_env)
    env["UISCOPE_STATE_DIR"] = os.path.join(directory, ".state")
    os.makedirs(env["UISCOPE_STATE_DIR"])
    session_id, session_env = None, env
    client = None
    log_lines = []
    log = log_lines.append
    try:
        session_id, session_env = start_session(uiscope, env)
        ctx = suite.Context(directory, session_env, bin_dir)
        if task.setup:
            task.setup(ctx)
        client = harness.McpClient([uiscope, "mcp"], session_env,
                                   os.path.join(directory, ".mcp-stderr"))
        agent = harness.Agent(client, app=task.app, log=log)
        log("goal: " + task.goal)
        steps = task.step_texts(ctx)
        index, text = 0, "app_launch"
        try:
            agent.launch(task.argv(ctx), task.launch_timeout_ms)
            for index, text in enumerate(steps, 1):
                log("step %d: %s" % (index, text))
                agent.step(text)
        except harness.StepFailed as e:
            out.failed_step = (index, text, str(e))
        except harness.McpError as e:
            out.failed_step = (index, text, "the server: %s" % e)
        try:
            ok, message = task.check(ctx)
        except Exception as e:  # a checker that breaks is a failed check
            ok, message = False, "checker raised %s" % traceback.format_exception_only(e)[-1]
        out.passed = ok
        out.check_message = message
        # What the calls of the task itself said (teardown's calls apart).
        out.errors = client.errors
        out.doubts = sum(1 for _, _, is_error, text in client.transcript
                         if not is_error and re.search(r"^effect: (unverified|none)", text, re.M))
        # Teardown: the app closed as an agent closes it, then nothing left.
        if client and agent.pid:
            try:
                agent.close()
            except harness.McpError as e:
                out.teardown = "app_close: %s" % e
            deadline = time.monotonic() + 5
            while pid_alive(agent.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if pid_alive(agent.pid):
                out.teardown = "pid %d still running after app_close" % agent.pid
        for cleanup in ctx.cleanups:
            cleanup()
    except Exception as e:
        out.check_message = "harness: %s" % traceback.format_exception_only(e)[-1].strip()
    finally:
        if client:
            out.calls, out.chars = client.calls, client.chars
            client.close()
        if session_id:
            subprocess.run([uiscope, "session", "stop", session_id], env=env,
                           capture_output=True, timeout=60)
            left = processes_on(session_env.get("XDG_RUNTIME_DIR"))
            if left:
                out.teardown = (out.teardown + "; " if out.teardown else "") + \
                    "left running after session stop: " + ", ".join(left[:5])
                for entry in left:  # ours: started on this task's desktop
                    try:
                        os.kill(int(entry.split()[0]), signal.SIGKILL)
                    except OSError:
                        pass
        out.wall = time.monotonic() - started
    out.status = "pass" if out.passed else "fail"
    out.false_success = (not out.passed and out.failed_step is None and out.errors == 0 and
                         out.calls > 0)
    if args.transcripts:
        os.makedirs(args.transcripts, exist_ok=True)
        with open(os.path.join(args.transcripts, task.name + ".log"), "w") as f:
            f.write("\n".join(log_lines) + "\n")
    if args.verbose:
        print("\n".join("    " + l for l in "\n".join(log_lines).splitlines()))
    if not args.keep:
        subprocess.run(["rm", "-rf", directory])
    else:
        out.check_message += " (kept %s)" % directory
    return out


def report(out):
    head = "%-4s %-28s calls %3d chars %7d wall %6.1f s" % (
        out.status.upper(), out.name, out.calls, out.chars, out.wall)
    lines = [head]
    if out.status == "skip":
        lines.append("     skipped: " + out.check_message)
        return "\n".join(lines)
    if out.failed_step:
        i, text, message = out.failed_step
        lines.append("     step %d %r failed: %s" % (i, text, message))
    lines.append("     checker: " + out.check_message)
    if out.doubts:
        lines.append("     %d call(s) reported effect unverified or none" % out.doubts)
    if out.false_success:
        lines.append("     FALSE SUCCESS: every call reported success, the checker failed")
    if out.teardown:
        lines.append("     teardown: " + out.teardown)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="task names, comma-separated")
    parser.add_argument("--quick", action="store_true", help="only the quick subset")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every call")
    parser.add_argument("--keep", action="store_true", help="keep the tasks' directories")
    parser.add_argument("--uiscope", default=os.path.join(suite.REPO, "build", "bin", "uiscope"))
    parser.add_argument("--transcripts", help="write each task's calls and answers here")
    args = parser.parse_args()

    tasks = suite.load_tasks()
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in {t.name for t in tasks}]
        if unknown:
            sys.exit("unknown task(s): %s" % ", ".join(unknown))
        tasks = [t for t in tasks if t.name in wanted]
    if args.quick:
        tasks = [t for t in tasks if t.quick]
    if args.list:
        for t in tasks:
            print("%-28s %s%s" % (t.name, "[quick] " if t.quick else "", t.goal))
        return 0
    if not os.access(args.uiscope, os.X_OK):
        sys.exit("no uiscope binary at %s (build it: scripts/build)" % args.uiscope)

    base_env = dict(os.environ)
    for key in ("DISPLAY", "UISCOPE_SESSION", "DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY"):
        base_env.pop(key, None)
    base_env.setdefault("OMP_THREAD_LIMIT", "1")

    outcomes = []
    for _ in range(args.repeat):
        for task in tasks:
            out = run_task(task, args.uiscope, base_env, args)
            print(report(out), flush=True)
            outcomes.append(out)
    ran = [o for o in outcomes if o.status != "skip"]
    passed = sum(o.passed for o in ran)
    false_successes = sum(o.false_success for o in ran)
    calls = sum(o.calls for o in ran)
    chars = sum(o.chars for o in ran)
    wall = sum(o.wall for o in outcomes)
    skipped = len(outcomes) - len(ran)
    if ran:
        print("median per task: calls %g, chars %g" % (
            statistics.median(o.calls for o in ran), statistics.median(o.chars for o in ran)))
    print("tasks: %d/%d passed, false successes %d, calls %d, chars %d, wall %.0f s%s" % (
        passed, len(ran), false_successes, calls, chars, wall,
        " (%d skipped: app missing)" % skipped if skipped else ""))
    if not ran:
        return 77
    return 0 if passed == len(ran) else 1


if __name__ == "__main__":
    sys.exit(main())

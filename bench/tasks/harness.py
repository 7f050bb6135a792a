"""The agent harness: one `uiscope mcp` server over stdio, driven the way a
language model drives it.

A task's steps are labels and intents ("click the button labelled Save",
"type report.txt into the Name field", "keys ctrl+s", "menu File > Save As…").
The harness turns each into tool calls, and it resolves a label only by
reading the text the tools return (the lines of `find` and of the compact
`observe` tree): it never reads coordinates, structuredContent, or anything
about the app a model could not see. When a label is not found it asks for
more — `observe` with OCR, then `find` with OCR, then with vision — before
the step fails with the tool's own message.

Every tools/call is counted, with the characters of text it returned.
Stdlib only; run with /usr/bin/python3.
"""

import json
import queue
import re
import subprocess
import threading
import time
import unicodedata


class McpError(Exception):
    """The server broke the protocol, died, or did not answer in time."""


class McpClient:
    """A newline-delimited JSON-RPC client for `uiscope mcp` on stdio."""

    def __init__(self, argv, env, stderr_path):
        self._stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, env=env)
        self._lines = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 1
        self.calls = 0
        self.chars = 0
        self.errors = 0  # tool results with isError: true
        self.transcript = []  # (tool, arguments, is_error, text)
        self.instructions = ""
        init = self.request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "uiscope-tasks", "version": "1"},
        }, timeout=60)
        self.instructions = init.get("instructions", "")
        self.notify("notifications/initialized", {})

    def _read(self):
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _send(self, message):
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise McpError("uiscope mcp is gone: %s" % e)

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=120):
        rid = self._next_id
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise McpError("no answer to %s in %d s" % (method, timeout))
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise McpError("uiscope mcp exited (code %s) during %s" %
                               (self.proc.poll(), method))
            try:
                message = json.loads(line)
            except ValueError:
                raise McpError("not JSON from the server: %r" % line[:200])
            if message.get("id") != rid:
                continue  # a notification (progress, log) or a server request
            if "error" in message:
                raise McpError("%s: %s" % (method, message["error"].get("message")))
            return message.get("result", {})

    def call(self, tool, arguments, timeout=180):
        """Calls a tool; returns (is_error, text) — the text a model reads."""
        result = self.request("tools/call", {"name": tool, "arguments": arguments},
                              timeout=timeout)
        text = "".join(c.get("text", "") for c in result.get("content", [])
                       if c.get("type") == "text")
        is_error = bool(result.get("isError"))
        self.calls += 1
        self.chars += len(text)
        if is_error:
            self.errors += 1
        self.transcript.append((tool, arguments, is_error, text))
        return is_error, text

    def close(self):
        try:
            self.request("shutdown", {}, timeout=10)
        except McpError:
            pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._stderr.close()


class StepFailed(Exception):
    """A step could not be done; the message is the tool's own where there is one."""


# Words a person uses for a control, and the roles of the tree they mean.
ROLE_WORDS = {
    "button": ["button", "toggle_button"],
    "toggle button": ["toggle_button", "button"],
    "check box": ["check_box", "check_menu_item"],
    "checkbox": ["check_box", "check_menu_item"],
    "radio button": ["radio_button", "radio_menu_item"],
    "field": ["text_field", "text_area", "combo_box", "spin_button"],
    "text field": ["text_field", "text_area"],
    "text box": ["text_field", "text_area"],
    "combo box": ["combo_box"],
    "list": ["combo_box", "list"],
    "menu item": ["menu_item", "check_menu_item", "radio_menu_item"],
    "link": ["link"],
    "tab": ["tab"],
    "item": ["list_item", "tree_item", "menu_item"],
    "slider": ["slider", "spin_button"],
    "cell": ["table_cell"],
}

LINE = re.compile(r'^\s*\[(?P<role>[a-z_]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?'
                  r'(?: desc="(?P<desc>(?:[^"\\]|\\.)*)")? id=(?P<id>[A-Za-z0-9_]+)')


def norm(label):
    """What a person treats as the same label: case, accents, an ellipsis, a
    trailing colon, mnemonic underscores, runs of spaces."""
    s = unicodedata.normalize("NFKD", label)
    s = "".join(c for c in s if not unicodedata.combining(c))
    s = s.replace("…", "").replace("...", "").replace("_", "").strip().rstrip(":").strip()
    return re.sub(r"\s+", " ", s).casefold()


def unquote(text):
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"“'" and text[-1] in "\"”'":
        text = text[1:-1]
    return text.replace("\\n", "\n").replace("\\t", "\t")


def parse_lines(text):
    """The elements a tool's text lists: (role, name, id, line)."""
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            name = (m.group("name") or m.group("desc") or "").replace('\\"', '"')
            out.append((m.group("role"), name, m.group("id"), line))
    return out


class Agent:
    """Runs steps through one MCP client, reading only the text it returns."""

    def __init__(self, client, app=None, log=None):
        self.client = client
        self.app = app  # the app's name as app_launch's text said it, for menu/press_keys
        self.pid = None
        self.read_timeout_ms = 0  # set when a tool says to read with a longer timeout_ms
        self.log = log or (lambda s: None)

    # -- calls ----------------------------------------------------------------

    def call(self, tool, arguments, must_succeed=True):
        if tool in ("find", "observe") and self.read_timeout_ms:
            arguments = dict(arguments, timeout_ms=self.read_timeout_ms)
        is_error, text = self.client.call(tool, arguments)
        if (re.search(r"Retry with a longer timeout_ms|within the \d+ ms deadline", text) and
                not self.read_timeout_ms):
            # As a model does what the tool says: later reads wait longer.
            self.read_timeout_ms = 10000
            if tool in ("find", "observe"):
                return self.call(tool, arguments, must_succeed)
        self.log("-> %s %s\n%s%s" % (tool, json.dumps(arguments, ensure_ascii=False),
                                     "ERROR " if is_error else "", text))
        if is_error and must_succeed:
            raise StepFailed("%s: %s" % (tool, first_lines(text)))
        return is_error, text

    # -- resolving a label ----------------------------------------------------

    def _pick(self, text, label, roles):
        """The element a reader of `text` would take for `label` of `roles`."""
        want = norm(label)
        best, best_score = None, 0
        for role, name, eid, _ in parse_lines(text):
            n = norm(name)
            score = 0
            if n == want:
                score = 4
            elif want and (n.startswith(want) or want in n):
                score = 2
            else:
                continue
            if roles and role in roles:
                score += 3 - roles.index(role) * 0.1
            elif roles:
                score -= 1
            if score > best_score:
                best, best_score = (role, name, eid), score
        return best

    def _beside(self, tree, label, roles):
        """In a compact tree, the first element of `roles` just after a label
        named `label` (a field known by the label printed next to it)."""
        rows = parse_lines(tree)
        want = norm(label)
        for i, (role, name, _, _) in enumerate(rows):
            if norm(name) == want and role not in roles:
                for role2, name2, eid2, _ in rows[i + 1:i + 7]:
                    if role2 in roles:
                        return (role2, name2, eid2)
        return None

    def resolve(self, label, role_word=None):
        """An element ID for `label`, read from find's (then observe's) text."""
        roles = ROLE_WORDS.get(role_word, []) if role_word else []
        _, text = self.call("find", {"name": label}, must_succeed=False)
        hit = self._pick(text, label, roles)
        if hit and (not roles or hit[0] in roles):
            return hit[2]
        first_message = text
        # Known by a label beside it, or not in the tree at all: read the tree
        # (with OCR where it is blind), then look again with OCR and vision.
        for sources in (["ax", "ocr"], ["ax", "ocr", "vision"]):
            _, tree = self.call("observe", {"sources": sources}, must_succeed=False)
            in_tree = self._pick(tree, label, roles)
            if in_tree and (not roles or in_tree[0] in roles):
                return in_tree[2]
            if roles:
                beside = self._beside(tree, label, roles)
                if beside:
                    return beside[2]
            _, text = self.call("find", {"name": label, "sources": sources},
                                must_succeed=False)
            hit2 = self._pick(text, label, roles)
            if hit2 and (not roles or hit2[0] in roles):
                return hit2[2]
            hit = hit or hit2
        if hit:
            return hit[2]  # the label found, in a role other than the one said
        raise StepFailed("%r not found: %s" % (label, first_lines(first_message)))

    # -- steps ----------------------------------------------------------------

    STEPS = [
        (re.compile(r"^keys (?P<keys>.+)$"), "keys"),
        (re.compile(r"^menu (?P<path>.+)$"), "menu"),
        (re.compile(r"^wait (?P<ms>\d+) ms$"), "sleep"),
        (re.compile(r"^wait for the (?P<role>[a-z ]+?) labelled (?P<label>.+)$"), "wait_for"),
        (re.compile(r"^wait for the text (?P<text>.+)$"), "wait_text"),
        (re.compile(r"^click the (?P<role>[a-z ]+?) labelled (?P<label>.+)$"), "click"),
        (re.compile(r"^double-click the (?P<role>[a-z ]+?) labelled (?P<label>.+)$"), "double"),
        (re.compile(r"^click (?P<label>.+)$"), "click"),
        (re.compile(r"^tick (?P<label>.+)$"), "tick"),
        (re.compile(r"^replace the text of the (?P<label>.+?) field with (?P<text>.+)$"),
         "replace"),
        (re.compile(r"^type (?P<text>.+) into the (?P<label>.+?) field$"), "type_into"),
        (re.compile(r"^type (?P<text>.+)$"), "type"),
        (re.compile(r"^choose (?P<value>.+) in (?P<label>.+)$"), "choose"),
        (re.compile(r"^set (?P<label>.+) to (?P<value>.+)$"), "set"),
    ]

    def step(self, step):
        for pattern, kind in self.STEPS:
            m = pattern.match(step)
            if m:
                return getattr(self, "_" + kind)(**m.groupdict())
        raise StepFailed("the harness does not understand the step %r" % step)

    def _keys(self, keys):
        self.call("press_keys", {"keys": keys})

    def _menu(self, path):
        self.call("menu", {"app": self.app or str(self.pid), "path": path})

    def _sleep(self, ms):
        time.sleep(int(ms) / 1000.0)

    def _wait_for(self, role, label):
        roles = ROLE_WORDS.get(role, [role.replace(" ", "_")])
        self.call("wait_for", {"name": unquote(label), "role": roles[0], "timeout_ms": 15000})

    def _wait_text(self, text):
        self.call("wait_for", {"text": unquote(text), "timeout_ms": 10000})

    def _click(self, label, role=None):
        self.call("click", {"target": self.resolve(unquote(label), role)})

    def _double(self, label, role=None):
        self.call("click", {"target": self.resolve(unquote(label), role), "count": 2})

    def _tick(self, label):
        self.call("click", {"target": self.resolve(unquote(label), "check box")})

    def _replace(self, label, text):
        self.call("type_text", {"target": self.resolve(unquote(label), "field"),
                                "text": unquote(text), "replace": True})

    def _type_into(self, text, label):
        self.call("type_text", {"target": self.resolve(unquote(label), "field"),
                                "text": unquote(text)})

    def _type(self, text):
        self.call("type_text", {"text": unquote(text)})

    def _choose(self, value, label):
        self.call("set_value", {"target": self.resolve(unquote(label), "list"),
                                "value": unquote(value)})

    def _set(self, label, value):
        self.call("set_value", {"target": self.resolve(unquote(label), "slider"),
                                "value": unquote(value)})

    # -- the app --------------------------------------------------------------

    def launch(self, command, timeout_ms=30000):
        _, text = self.call("app_launch", {"command": command, "timeout_ms": timeout_ms})
        m = re.search(r"pid (\d+)", text)
        self.pid = int(m.group(1)) if m else None
        m = re.search(r'accessible as "((?:[^"\\]|\\.)*)"', text)
        if m and not self.app:
            self.app = m.group(1)
        return text

    def close(self):
        """Closes the app once the task is done: when it asks about unsaved
        work (the task's outcome is already written and checked), ends it as
        app_close's own message says to."""
        target = str(self.pid) if self.pid else self.app
        is_error, text = self.call("app_close", {"app": target}, must_succeed=False)
        if "force: true" in text:
            is_error, text = self.call("app_close", {"app": target, "force": True},
                                       must_succeed=False)
        return is_error, text


def first_lines(text, n=3):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    out = " | ".join(lines[:n])
    return out[:400]

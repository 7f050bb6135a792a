"""A local web form in Chromium and in Firefox ESR. The page is a file the
task writes; it posts to the task's own HTTP server on 127.0.0.1, which
writes the posted body to a file — the checker reads that."""
import http.server
import os
import threading

from checkers import form_post
from suite import Task

PAGE = '''<!doctype html>
<html><head><meta charset="utf-8"><title>Delivery form</title></head>
<body style="font: 16px sans-serif; margin: 24px">
<h1>Delivery</h1>
<form method="post" action="http://127.0.0.1:%(port)d/submit">
  <p><label for="name">Recipient</label> <input id="name" name="recipient" size="30"></p>
  <p><label for="colour">Box colour</label>
     <select id="colour" name="colour">
       <option>Red</option><option>Green</option><option>Blue</option>
     </select></p>
  <p><label><input type="checkbox" name="fragile" value="yes"> Fragile</label></p>
  <p><button type="submit">Send delivery</button></p>
</form>
</body></html>
'''


SURVEY = '''<!doctype html>
<html><head><meta charset="utf-8"><title>Feedback</title></head>
<body style="font: 16px sans-serif; margin: 24px">
<h1>How was your order?</h1>
<form method="post" action="http://127.0.0.1:%(port)d/submit">
  <fieldset><legend>Rating</legend>
    <label><input type="radio" name="rating" value="poor"> Poor</label>
    <label><input type="radio" name="rating" value="good"> Good</label>
    <label><input type="radio" name="rating" value="excellent"> Excellent</label>
  </fieldset>
  <p><label for="comments">Comments</label><br>
     <textarea id="comments" name="comments" rows="4" cols="40"></textarea></p>
  <p><button type="submit">Send feedback</button></p>
</form>
</body></html>
'''


def serve_form(ctx, page=PAGE):
    """Starts the task's HTTP server and writes the page that posts to it."""
    posted = ctx.path("posted.txt")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with open(posted + ".tmp", "wb") as f:
                f.write(body)
            os.replace(posted + ".tmp", posted)
            page = b"<!doctype html><title>Sent</title><p>Thank you, the delivery is booked."
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ctx.cleanups.append(server.shutdown)
    ctx.write("form.html", page % {"port": server.server_address[1]})


STEPS = [
    "type Ada Lovelace into the Recipient field",
    "choose Green in Box colour",
    "tick Fragile",
    "click the button labelled Send delivery",
    "wait 2000 ms",
]
FEEDBACK_STEPS = [
    "click the radio button labelled Excellent",
    "type Fast delivery into the Comments field",
    "click the button labelled Send feedback",
    "wait 2000 ms",
]
WANT = {"recipient": "Ada Lovelace", "colour": "Green", "fragile": "yes"}


def firefox_profile(ctx, page=PAGE):
    serve_form(ctx, page)
    os.makedirs(ctx.path("ff-profile"))
    ctx.write("ff-profile/user.js", "\n".join([
        'user_pref("browser.shell.checkDefaultBrowser", false);',
        'user_pref("browser.aboutwelcome.enabled", false);',
        'user_pref("datareporting.policy.dataSubmissionEnabled", false);',
        'user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);',
        'user_pref("browser.startup.homepage_override.mstone", "ignore");',
        'user_pref("accessibility.force_disabled", 0);',
    ]) + "\n")


TASKS = [
    Task(
        name="chromium-form",
        goal="Book a delivery for Ada Lovelace in a green box, marked fragile, on the "
             "page open in Chromium.",
        setup=serve_form,
        command=["chromium", "--no-sandbox", "--no-first-run", "--disable-gpu",
                 "--user-data-dir={dir}/chromium-profile", "--window-size=1000,700",
                 "file://{dir}/form.html"],
        needs=["chromium"],
        launch_timeout_ms=60000,
        steps=STEPS,
        check=form_post("posted.txt", WANT),
    ),
    Task(
        name="firefox-form",
        goal="Book a delivery for Ada Lovelace in a green box, marked fragile, on the "
             "page open in Firefox.",
        setup=firefox_profile,
        command=["firefox-esr", "--no-remote", "--profile", "{dir}/ff-profile",
                 "--width", "1000", "--height", "700", "file://{dir}/form.html"],
        needs=["firefox-esr"],
        launch_timeout_ms=90000,
        steps=STEPS,
        check=form_post("posted.txt", WANT),
    ),
    Task(
        name="chromium-feedback",
        goal="On the feedback page open in Chromium, rate the order Excellent with the "
             "comment 'Fast delivery', and send it.",
        setup=lambda ctx: serve_form(ctx, SURVEY),
        command=["chromium", "--no-sandbox", "--no-first-run", "--disable-gpu",
                 "--user-data-dir={dir}/chromium-profile", "--window-size=1000,700",
                 "file://{dir}/form.html"],
        needs=["chromium"],
        launch_timeout_ms=60000,
        steps=FEEDBACK_STEPS,
        check=form_post("posted.txt", {"rating": "excellent", "comments": "Fast delivery"}),
    ),
    Task(
        name="firefox-feedback",
        goal="On the feedback page open in Firefox, rate the order Excellent with the "
             "comment 'Fast delivery', and send it.",
        setup=lambda ctx: firefox_profile(ctx, SURVEY),
        command=["firefox-esr", "--no-remote", "--profile", "{dir}/ff-profile",
                 "--width", "1000", "--height", "700", "file://{dir}/form.html"],
        needs=["firefox-esr"],
        launch_timeout_ms=90000,
        steps=FEEDBACK_STEPS,
        check=form_post("posted.txt", {"rating": "excellent", "comments": "Fast delivery"}),
    ),
]

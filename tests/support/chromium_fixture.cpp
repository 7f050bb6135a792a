#include "support/chromium_fixture.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

// Last: Xlib defines macros (Status, None, Bool) that would clash with ours.
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#undef Status

namespace uiscope::test {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

#ifndef UISCOPE_FIXTURE_WEB_DIR
#error "UISCOPE_FIXTURE_WEB_DIR must name tests/fixtures/web (see CMakeLists.txt)"
#endif

constexpr char kDefaultTitle[] = "uiscope fixture";

milliseconds Left(Clock::time_point deadline) {
  return std::max(milliseconds(0),
                  std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

std::string ChromiumBinary() {
  // Debian's /usr/bin/chromium is a shell wrapper that sources
  // /etc/chromium.d and forks `[` tests; the binary itself is what runs.
  if (access("/usr/lib/chromium/chromium", X_OK) == 0) return "/usr/lib/chromium/chromium";
  return "chromium";
}

// Percent-encodes a query value (the page reads it with URLSearchParams).
std::string UrlEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// The fixture page showing `rows` rows in a window titled `title`.
std::string PageUrl(const std::string& title, int rows) {
  return "file://" UISCOPE_FIXTURE_WEB_DIR "/form.html?rows=" + std::to_string(rows) +
         "&title=" + UrlEncode(title);
}

// Chromium's switches for a test: accessibility on, a fresh profile, no
// network, no first-run UI.
std::vector<std::string> ChromiumFlags(const std::string& profile) {
  return {// Root cannot use the sandbox; --test-type drops the infobar
          // that would warn about it (and push the page down).
          "--no-sandbox", "--test-type", "--disable-gpu", "--no-first-run",
          "--no-default-browser-check", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--disable-extensions",
          "--disable-dev-shm-usage", "--password-store=basic", "--mute-audio",
          "--disable-features=Translate,MediaRouter", "--user-data-dir=" + profile,
          "--force-renderer-accessibility"};
}

std::string WindowTitle(Display* dpy, Window w) {
  Atom net_wm_name = XInternAtom(dpy, "_NET_WM_NAME", False);
  Atom utf8 = XInternAtom(dpy, "UTF8_STRING", False);
  Atom type = 0;
  int format = 0;
  unsigned long count = 0, after = 0;
  unsigned char* data = nullptr;
  std::string title;
  if (XGetWindowProperty(dpy, w, net_wm_name, 0, 1024, False, utf8, &type, &format, &count, &after,
                         &data) == Success &&
      data != nullptr) {
    title.assign(reinterpret_cast<char*>(data), count);
  }
  if (data != nullptr) XFree(data);
  return title;
}

int WindowPid(Display* dpy, Window w) {
  Atom net_wm_pid = XInternAtom(dpy, "_NET_WM_PID", False);
  Atom type = 0;
  int format = 0;
  unsigned long count = 0, after = 0;
  unsigned char* data = nullptr;
  int pid = 0;
  if (XGetWindowProperty(dpy, w, net_wm_pid, 0, 1, False, XA_CARDINAL, &type, &format, &count,
                         &after, &data) == Success &&
      data != nullptr && count == 1 && format == 32) {
    pid = static_cast<int>(*reinterpret_cast<unsigned long*>(data));
  }
  if (data != nullptr) XFree(data);
  return pid;
}

// The viewable client window (the root's child, or the window manager
// frame's child) of process `pid` titled `title`; 0 when there is none yet.
Window FindClientWindow(Display* dpy, int pid, const std::string& title) {
  Window root = DefaultRootWindow(dpy);
  std::vector<Window> candidates;
  Window root_return = 0, parent = 0;
  Window* children = nullptr;
  unsigned int count = 0;
  if (XQueryTree(dpy, root, &root_return, &parent, &children, &count) == 0) return 0;
  for (unsigned int i = 0; i < count; ++i) {
    candidates.push_back(children[i]);
    Window* grand = nullptr;
    unsigned int grand_count = 0;
    if (XQueryTree(dpy, children[i], &root_return, &parent, &grand, &grand_count) != 0) {
      for (unsigned int j = 0; j < grand_count; ++j) candidates.push_back(grand[j]);
      if (grand != nullptr) XFree(grand);
    }
  }
  if (children != nullptr) XFree(children);
  for (Window w : candidates) {
    XWindowAttributes attrs;
    if (XGetWindowAttributes(dpy, w, &attrs) == 0 || attrs.map_state != IsViewable) continue;
    if (WindowPid(dpy, w) == pid && WindowTitle(dpy, w) == title) return w;
  }
  return 0;
}

}  // namespace

// ---- DevToolsPipe -----------------------------------------------------------

Result<std::unique_ptr<DevToolsPipe>> DevToolsPipe::Create(const std::string& dir) {
  std::string to_path = dir + "/devtools.in";
  std::string from_path = dir + "/devtools.out";
  for (const std::string& path : {to_path, from_path}) {
    if (mkfifo(path.c_str(), 0600) != 0) {
      return MakeError(ErrorCode::kInternal,
                       "mkfifo " + path + ": " + std::string(std::strerror(errno)));
    }
  }
  // Read-write: opening a FIFO this way never blocks, and the browser's own
  // opens (read on fd 3, write on fd 4) find their other end already there.
  int to = open(to_path.c_str(), O_RDWR | O_CLOEXEC);
  int from = open(from_path.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (to < 0 || from < 0) {
    if (to >= 0) close(to);
    if (from >= 0) close(from);
    return MakeError(ErrorCode::kInternal, "cannot open the DevTools FIFOs in " + dir);
  }
  return std::unique_ptr<DevToolsPipe>(new DevToolsPipe(to, from, to_path, from_path));
}

DevToolsPipe::~DevToolsPipe() {
  close(to_browser_);
  close(from_browser_);
}

Result<json> DevToolsPipe::Call(std::string_view method, const json& params,
                                const std::string& session, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const int id = next_id_++;
  json message = {{"id", id}, {"method", method}, {"params", params}};
  if (!session.empty()) message["sessionId"] = session;
  std::string bytes = message.dump();
  bytes.push_back('\0');
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = write(to_browser_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return MakeError(ErrorCode::kUnavailable,
                       "writing to Chromium's DevTools pipe: " + std::string(std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  while (true) {
    for (size_t end; (end = buffer_.find('\0')) != std::string::npos;) {
      std::string text = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      json answer = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (!answer.is_object() || answer.value("id", -1) != id) continue;  // an event
      if (answer.contains("error")) {
        return MakeError(ErrorCode::kInternal,
                         std::string(method) + ": " + answer["error"].value("message", text));
      }
      return answer.value("result", json::object());
    }
    const int wait_ms = static_cast<int>(Left(deadline).count());
    if (wait_ms <= 0) {
      return MakeError(ErrorCode::kTimeout, std::string(method) + ": no answer from Chromium in " +
                                                std::to_string(timeout.count()) + " ms");
    }
    pollfd pfd{from_browser_, POLLIN, 0};
    if (poll(&pfd, 1, std::min(wait_ms, 100)) <= 0) continue;
    char chunk[65536];
    ssize_t n = read(from_browser_, chunk, sizeof(chunk));
    if (n > 0) buffer_.append(chunk, static_cast<size_t>(n));
  }
}

// ---- ChromiumFixture --------------------------------------------------------

void XDisplayCloser::operator()(_XDisplay* display) const {
  if (display != nullptr) XCloseDisplay(display);
}

ChromiumFixture::~ChromiumFixture() {
  devtools_.reset();  // Chromium quits when its DevTools pipe closes
  if (process_) (void)process_->Terminate(milliseconds(3000));
  process_.reset();
  display_.reset();
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

int ChromiumFixture::pid() const { return process_ ? process_->pid() : 0; }

std::string ChromiumFixture::Log() const { return FileTail(log_file_, 100000); }

Status ChromiumFixture::Navigate(const std::string& url, milliseconds timeout) {
  auto result = devtools_->Call("Page.navigate", {{"url", url}}, session_, timeout);
  if (!result.ok()) return result.error();
  if (result->contains("errorText")) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot load " + url + ": " + (*result)["errorText"].dump());
  }
  return OkStatus();
}

Result<std::string> ChromiumFixture::Evaluate(const std::string& expression, milliseconds timeout) {
  auto result = devtools_->Call(
      "Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}}, session_, timeout);
  if (!result.ok()) return result.error();
  if (result->contains("exceptionDetails")) {
    return MakeError(ErrorCode::kInternal,
                     "the page threw: " + (*result)["exceptionDetails"].dump());
  }
  const json& value = (*result)["result"]["value"];
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

Result<ScreenBox> ChromiumFixture::ClientBox() const {
  Display* dpy = display_.get();
  XWindowAttributes attrs;
  Window child = 0;
  int x = 0, y = 0;
  if (XGetWindowAttributes(dpy, window_, &attrs) == 0 ||
      !XTranslateCoordinates(dpy, window_, DefaultRootWindow(dpy), 0, 0, &x, &y, &child)) {
    return MakeError(ErrorCode::kStale, "Chromium's window is gone");
  }
  return ScreenBox{x, y, attrs.width, attrs.height};
}

Result<std::pair<int, int>> ChromiumFixture::FrameOrigin() const {
  // The window manager's frame is the ancestor of the client window that is
  // a child of the root.
  Display* dpy = display_.get();
  Window root = DefaultRootWindow(dpy), current = window_;
  while (true) {
    Window root_return = 0, parent = 0;
    Window* children = nullptr;
    unsigned int count = 0;
    if (XQueryTree(dpy, current, &root_return, &parent, &children, &count) == 0) {
      return MakeError(ErrorCode::kStale, "Chromium's window is gone");
    }
    if (children != nullptr) XFree(children);
    if (parent == root || parent == 0) break;
    current = parent;
  }
  Window child = 0;
  int x = 0, y = 0;
  XTranslateCoordinates(dpy, current, root, 0, 0, &x, &y, &child);
  return std::make_pair(x, y);
}

Result<ScreenBox> ChromiumFixture::MoveFrame(int x, int y, milliseconds timeout) {
  // As the GTK fixture's gtk_window_move: the frame's top-left corner goes
  // to (x, y). The request is a configure request on the client window,
  // whose position the window manager reads by the window's gravity (ICCCM
  // 4.1.2.3): Chromium sets StaticGravity, where it is the client's own
  // position, so the frame's offset is added; with the default NorthWest
  // gravity it is the frame's.
  Display* dpy = display_.get();
  int request_x = x, request_y = y;
  XSizeHints hints{};
  long supplied = 0;
  if (XGetWMNormalHints(dpy, window_, &hints, &supplied) != 0 && (hints.flags & PWinGravity) &&
      hints.win_gravity == StaticGravity) {
    auto frame = FrameOrigin();
    auto client = ClientBox();
    if (!frame.ok()) return frame.error();
    if (!client.ok()) return client.error();
    request_x += client->x - frame->first;
    request_y += client->y - frame->second;
  }
  XMoveWindow(dpy, window_, request_x, request_y);
  XFlush(dpy);
  Result<std::pair<int, int>> at = std::make_pair(0, 0);
  bool placed = WaitUntil(
      [&] {
        at = FrameOrigin();
        return at.ok() && *at == std::make_pair(x, y);
      },
      timeout);
  if (!at.ok()) return at.error();
  if (!placed) {
    return MakeError(ErrorCode::kTimeout, "window is at " + std::to_string(at->first) + "," +
                                              std::to_string(at->second) + ", not " +
                                              std::to_string(x) + "," + std::to_string(y));
  }
  // The page learns its new position from the same configure events; wait
  // for it so that what Chromium reports (accessibility extents included)
  // is current when this returns.
  auto box = ClientBox();
  if (!box.ok()) return box.error();
  const std::string expected = std::to_string(box->x) + " " + std::to_string(box->y);
  WaitUntil(
      [&] {
        auto seen = Evaluate("screenX + ' ' + screenY");
        return seen.ok() && *seen == expected;
      },
      timeout);
  return box;
}

Result<std::string> ChromiumFixture::WidgetBox(std::string_view name, milliseconds timeout) {
  // The page answers in CSS pixels of its viewport; the viewport's screen
  // origin is the client window's origin plus the browser's own chrome,
  // which in --app mode is none (outer == inner size). Were there any, it
  // would be at the top with equal side borders.
  auto answer =
      Evaluate("uiscopeControl(" + json(std::string("widget ") + std::string(name)).dump() +
                   ") + '|' + [outerWidth, outerHeight, innerWidth, innerHeight, "
                   "devicePixelRatio].join(' ')",
               timeout);
  if (!answer.ok()) return answer.error();
  const size_t bar = answer->find('|');
  const std::string reply = answer->substr(0, bar);
  if (!reply.starts_with("ok ")) return MakeError(ErrorCode::kInternal, "page answered: " + reply);
  std::istringstream css(reply.substr(3)), metrics(answer->substr(bar + 1));
  double x = 0, y = 0, w = 0, h = 0, outer_w = 0, outer_h = 0, inner_w = 0, inner_h = 0, scale = 1;
  css >> x >> y >> w >> h;
  metrics >> outer_w >> outer_h >> inner_w >> inner_h >> scale;
  auto client = ClientBox();
  if (!client.ok()) return client.error();
  const double side = (outer_w - inner_w) / 2;
  const double top = (outer_h - inner_h) - side;
  auto px = [&](double v) { return static_cast<int>(std::lround(v * scale)); };
  return std::to_string(client->x + px(side + x)) + " " + std::to_string(client->y + px(top + y)) +
         " " + std::to_string(px(w)) + " " + std::to_string(px(h));
}

Result<std::string> ChromiumFixture::Command(std::string_view command, milliseconds timeout) {
  const size_t space = command.find(' ');
  const std::string_view verb = command.substr(0, space);
  const std::string_view args =
      space == std::string_view::npos ? std::string_view() : command.substr(space + 1);
  auto box_text = [](const ScreenBox& b) {
    return std::to_string(b.x) + " " + std::to_string(b.y) + " " + std::to_string(b.w) + " " +
           std::to_string(b.h);
  };
  if (verb == "geometry") {
    auto box = ClientBox();
    if (!box.ok()) return box.error();
    return box_text(*box);
  }
  if (verb == "move") {
    int x = 0, y = 0;
    std::istringstream in{std::string(args)};
    if (!(in >> x >> y)) return MakeError(ErrorCode::kInvalidArgument, "usage: move X Y");
    auto box = MoveFrame(x, y, timeout);
    if (!box.ok()) return box.error();
    return box_text(*box);
  }
  if (verb == "widget") return WidgetBox(args, timeout);
  if (verb == "quit") {
    auto quit = Quit(timeout);
    if (!quit.ok()) return quit.error();
    return std::string();
  }
  if (verb == "hang") {
    return MakeError(ErrorCode::kUnsupported, "hang: the Chromium fixture has no such command");
  }
  auto answer = Evaluate("uiscopeControl(" + json(std::string(command)).dump() + ")", timeout);
  if (!answer.ok()) return answer.error();
  if (*answer == "ok") return std::string();
  if (answer->starts_with("ok ")) return answer->substr(3);
  return MakeError(ErrorCode::kInternal,
                   "page command '" + std::string(command) + "' answered: " + *answer);
}

Status ChromiumFixture::Terminate(milliseconds grace) {
  if (!process_) return OkStatus();
  return process_->Terminate(grace);
}

Status ChromiumFixture::Quit(milliseconds timeout) {
  if (!process_) return OkStatus();
  // Browser.close answers, then the browser exits; an answer lost to the
  // exit is no failure.
  (void)devtools_->Call("Browser.close", json::object(), "", timeout);
  auto exited = process_->Wait(timeout);
  if (!exited.ok()) return exited.error();
  return OkStatus();
}

std::vector<std::string> ChromiumAppCommand(const std::string& profile_dir,
                                            const std::string& title, int rows) {
  return ChromiumUrlCommand(profile_dir, PageUrl(title, rows));
}

std::vector<std::string> ChromiumUrlCommand(const std::string& profile_dir,
                                            const std::string& url) {
  std::vector<std::string> argv = {ChromiumBinary()};
  for (std::string& flag : ChromiumFlags(profile_dir)) argv.push_back(std::move(flag));
  argv.push_back("--window-size=900,700");
  argv.push_back("--app=" + url);
  return argv;
}

std::unique_ptr<ChromiumFixture> LaunchChromium(TestDesktop& desktop, const AppOptions& options,
                                                milliseconds timeout) {
  if (!desktop.ok()) {
    ADD_FAILURE() << "no desktop: " << desktop.error();
    return nullptr;
  }
  const auto deadline = Clock::now() + timeout;
  std::unique_ptr<ChromiumFixture> app(new ChromiumFixture());
  std::string dir = desktop.info().runtime_dir + "/chromium-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << dir << ": " << std::strerror(errno);
    return nullptr;
  }
  app->dir_ = dir;
  auto devtools = DevToolsPipe::Create(dir);
  if (!devtools.ok()) {
    ADD_FAILURE() << devtools.error().ToString();
    return nullptr;
  }
  app->devtools_ = std::move(devtools).value();

  const std::string title = options.title.empty() ? kDefaultTitle : options.title;
  const auto [want_x, want_y] = options.position.value_or(std::make_pair(100, 80));
  const std::string url = PageUrl(title, options.rows);
  SpawnOptions spawn;
  // fd 3 and 4 are the DevTools pipe; the shell opens them and execs.
  spawn.argv = {
      "/bin/sh", "-c",
      "exec \"$0\" \"$@\" 3<\"$UISCOPE_DEVTOOLS_IN\" "
      "4>\"$UISCOPE_DEVTOOLS_OUT\"",
      ChromiumBinary()};
  for (std::string& flag : ChromiumFlags(dir + "/profile")) spawn.argv.push_back(std::move(flag));
  spawn.argv.insert(spawn.argv.end(),
                    {"--remote-debugging-pipe", "--window-size=900,700",
                     "--window-position=" + std::to_string(want_x) + "," + std::to_string(want_y),
                     "--app=" + url});
  spawn.env = {{"UISCOPE_DEVTOOLS_IN", app->devtools_->to_browser_path()},
               {"UISCOPE_DEVTOOLS_OUT", app->devtools_->from_browser_path()}};
  spawn.log_file = dir + "/chromium.log";
  app->log_file_ = spawn.log_file;
  app->process_ = desktop.Launch(std::move(spawn));
  if (!app->process_) return nullptr;
  auto fail = [&](const std::string& what) {
    ADD_FAILURE() << "Chromium did not get ready: " << what << "; its log " << app->log_file_ << ":"
                  << FileTail(app->log_file_, 30);
    return nullptr;
  };

  // 1. The page target, attached.
  std::string target;
  std::string last_error = "no page target";
  WaitUntil(
      [&] {
        if (!app->process_->Running()) return true;
        auto targets = app->devtools_->Call("Target.getTargets", json::object(), "",
                                            std::min(Left(deadline), milliseconds(5000)));
        if (!targets.ok()) {
          last_error = targets.error().ToString();
          return false;
        }
        for (const json& t : (*targets)["targetInfos"]) {
          if (t.value("type", "") == "page" && t.value("url", "").starts_with("file://")) {
            target = t.value("targetId", "");
          }
        }
        return !target.empty();
      },
      Left(deadline));
  if (!app->process_->Running()) return fail("it exited");
  if (target.empty()) return fail(last_error);
  auto attached = app->devtools_->Call(
      "Target.attachToTarget", {{"targetId", target}, {"flatten", true}}, "", Left(deadline));
  if (!attached.ok()) return fail(attached.error().ToString());
  app->session_ = attached->value("sessionId", "");

  // 2. The page loaded, its control function defined.
  bool loaded = WaitUntil(
      [&] {
        auto state = app->Evaluate(
            "document.readyState === 'complete' && typeof uiscopeControl === 'function'",
            std::min(Left(deadline), milliseconds(5000)));
        return state.ok() && *state == "true";
      },
      Left(deadline));
  if (!loaded) return fail("the page did not load");

  // 3. Its X window, placed like the other fixtures' (frame at the position).
  app->display_.reset(XOpenDisplay(desktop.info().display_name.c_str()));
  if (!app->display_) return fail("cannot open display " + desktop.info().display_name);
  WaitUntil(
      [&] {
        app->window_ = FindClientWindow(app->display_.get(), app->pid(), title);
        return app->window_ != 0;
      },
      Left(deadline));
  if (app->window_ == 0) return fail("no window titled \"" + title + "\"");
  auto moved = app->MoveFrame(want_x, want_y, Left(deadline));
  if (!moved.ok()) return fail("cannot place its window: " + moved.error().ToString());

  // 4. The form in the accessibility tree: Chromium builds it after load.
  Status accessible = WaitForAccessibleForm(desktop, app->pid(), Left(deadline));
  if (!accessible.ok()) return fail(accessible.error().message);
  return app;
}

}  // namespace uiscope::test

#include "platform/x11/xtest_input.h"

#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
// Xlib #defines Status as int; below, Status is uiscope::Status.
#undef Status

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <thread>
#include <unordered_map>

#include "platform/x11/x_free.h"

namespace uiscope {

namespace x11 {
namespace {

unsigned int XButton(MouseButton b) {
  switch (b) {
    case MouseButton::kLeft:
      return 1;
    case MouseButton::kMiddle:
      return 2;
    case MouseButton::kRight:
      return 3;
  }
  return 1;
}

// Key code 8 is the lowest the protocol allows and some clients treat it
// as reserved; never use it as a spare.
constexpr int kLowestSpareCode = 9;
// How often a character the app translated with a stale keymap is erased
// and typed again (see SpareBinder): once; what still reads wrong after
// that is the caller's to report, not to type over and over.
constexpr int kRetypes = 1;

struct Stroke {
  unsigned int code = 0;
  bool shift = false;
};

}  // namespace

// The core keyboard mapping as fetched from the server.
struct XTestInput::Keymap {
  int min_code = 0;
  int max_code = 0;
  int per_code = 0;  // keysyms per key code
  std::vector<KeySym> syms;

  static std::optional<Keymap> Fetch(Display* d) {
    Keymap k;
    XDisplayKeycodes(d, &k.min_code, &k.max_code);
    int count = k.max_code - k.min_code + 1;
    KeySym* raw = XGetKeyboardMapping(d, static_cast<KeyCode>(k.min_code), count, &k.per_code);
    if (raw == nullptr || k.per_code <= 0) return std::nullopt;
    XPtr<KeySym> owned(raw);
    k.syms.assign(raw, raw + static_cast<size_t>(count) * k.per_code);
    return k;
  }

  KeySym At(int code, int column) const {
    return syms[static_cast<size_t>(code - min_code) * per_code + column];
  }

  // The key code typing `sym` at level 1, else level 2 (with Shift).
  std::optional<Stroke> Find(Keysym sym) const {
    for (int column = 0; column < std::min(per_code, 2); ++column) {
      for (int code = min_code; code <= max_code; ++code) {
        if (At(code, column) == sym) return Stroke{static_cast<unsigned>(code), column == 1};
      }
    }
    return std::nullopt;
  }

  std::vector<unsigned int> SpareCodes(int limit) const {
    std::vector<unsigned int> out;
    for (int code = std::max(min_code, kLowestSpareCode); code <= max_code; ++code) {
      bool empty = true;
      for (int c = 0; c < per_code && empty; ++c) empty = At(code, c) == NoSymbol;
      if (!empty) continue;
      out.push_back(static_cast<unsigned>(code));
      if (limit > 0 && static_cast<int>(out.size()) >= limit) break;
    }
    return out;
  }
};

namespace {

// Binds keysyms the keymap lacks to spare key codes for one call, and
// restores the codes on destruction (after the app handled the keys, see
// the header).
//
// When every spare code is bound and another character is needed, the
// caller first makes sure the app handled the keys sent (`settle` in
// TypeKeysyms; WaitHandled() here when it did not), then the codes are
// rebound in one batch to the next distinct characters the text needs
// (Plan()), keeping the codes of those already bound, so a long text waits
// once per batch, not per character. After a rebinding the binder pauses
// (`rebind_settle`): Chromium translated the first key after a rebinding
// with the code's previous keysym ('台' typed as 'Ö', the code's character
// before) although it had shown every character sent before the
// rebinding; 30 ms was enough on an idle machine, and TypeKeysyms repairs
// what a loaded one still gets wrong.
class SpareBinder {
 public:
  // `wait_handled` (may be empty: then `settle`) is asked, with the number
  // of characters typed so far (see `typed`), before codes are rebound and
  // before they are restored.
  // `handled` is asked first each time: true once the app is seen to have
  // handled the keys sent (XTestInput::AppHandled); false means it could
  // not be told, and the fixed `settle` is waited unless `wait_handled`
  // watches the app.
  SpareBinder(Display* d, int per_code, std::vector<unsigned int> spares,
              std::chrono::milliseconds settle, std::chrono::milliseconds rebind_settle,
              std::function<TypedShown(size_t)> wait_handled, std::function<bool()> handled,
              int* bindings)
      : d_(d),
        per_code_(per_code),
        spares_(spares),
        free_(spares.rbegin(), spares.rend()),
        settle_(settle),
        rebind_settle_(rebind_settle),
        wait_handled_(std::move(wait_handled)),
        handled_(std::move(handled)),
        bindings_(bindings) {}
  ~SpareBinder() { Restore(); }

  // The keysyms the keymap lacks, in the order they will be typed (each
  // occurrence): what a rebinding looks ahead to.
  void Plan(std::vector<Keysym> missing) { plan_ = std::move(missing); }

  // Whether typing `sym` next rebinds codes used since the last wait.
  bool NeedsRebind(Keysym sym) const {
    return bound_.count(sym) == 0 && free_.empty() && !spares_.empty() && used_since_settle_;
  }

  // Whether a code was bound during this call.
  bool bindings_made() const { return !touched_.empty(); }

  // The code now typing `sym` (the next planned keysym, when planned),
  // binding codes as needed. Unsupported when the keymap has no spare code.
  Result<unsigned int> Bind(Keysym sym) {
    const size_t at = next_;
    if (next_ < plan_.size() && plan_[next_] == sym) ++next_;
    if (auto it = bound_.find(sym); it != bound_.end()) {
      used_since_settle_ = true;
      return it->second;
    }
    if (spares_.empty()) {
      return MakeError(ErrorCode::kUnsupported, "the keyboard map has no free key code to bind " +
                                                    KeysymName(sym) +
                                                    " to, and it has no key for it");
    }
    if (!free_.empty()) {
      const unsigned int code = free_.back();
      free_.pop_back();
      BindCode(code, sym);
      XSync(d_, False);
      used_since_settle_ = true;
      return code;
    }
    // Every spare code is bound: once the app has handled the keys that
    // used them, rebind them to the next distinct keysyms needed.
    if (used_since_settle_) (void)WaitHandled();
    std::vector<Keysym> batch = {sym};
    for (size_t i = at; i < plan_.size() && batch.size() < spares_.size(); ++i) {
      if (std::find(batch.begin(), batch.end(), plan_[i]) == batch.end()) {
        batch.push_back(plan_[i]);
      }
    }
    for (auto it = bound_.begin(); it != bound_.end();) {
      if (std::find(batch.begin(), batch.end(), it->first) == batch.end()) {
        free_.push_back(it->second);
        it = bound_.erase(it);
      } else {
        ++it;
      }
    }
    for (Keysym next : batch) {
      if (bound_.count(next) > 0 || free_.empty()) continue;
      const unsigned int code = free_.back();
      free_.pop_back();
      BindCode(code, next);
    }
    XSync(d_, False);
    std::this_thread::sleep_for(rebind_settle_);
    used_since_settle_ = true;
    return bound_.at(sym);
  }

  // Characters sent so far (for wait_handled).
  size_t typed = 0;

  // Waits until the app handled the keys sent so far; returns what it shows
  // of them (see TypeOptions): all of them without a `wait_handled`, after
  // the fixed settle time.
  TypedShown WaitHandled() {
    XSync(d_, False);
    used_since_settle_ = false;
    const bool handled = handled_ && handled_();
    if (wait_handled_) return wait_handled_(typed);
    if (!handled) std::this_thread::sleep_for(settle_);
    return {typed, typed};
  }

  void Restore() {
    if (touched_.empty()) return;
    if (used_since_settle_) (void)WaitHandled();
    for (unsigned int code : touched_) Map(code, NoSymbol);
    XSync(d_, False);
    touched_.clear();
    bound_.clear();
    free_.assign(spares_.rbegin(), spares_.rend());
  }

 private:
  void BindCode(unsigned int code, Keysym sym) {
    Map(code, sym);
    bound_[sym] = code;
    if (std::find(touched_.begin(), touched_.end(), code) == touched_.end()) {
      touched_.push_back(code);
    }
    ++*bindings_;
  }

  void Map(unsigned int code, KeySym sym) {
    // Every column the same, so Shift or a group change cannot alter it.
    // The MappingNotify reaches every client before the key events that
    // follow (the server sends events in order); the caller syncs.
    std::vector<KeySym> row(static_cast<size_t>(per_code_), sym);
    XChangeKeyboardMapping(d_, static_cast<int>(code), per_code_, row.data(), 1);
  }

  Display* d_;
  int per_code_;
  std::vector<unsigned int> spares_;
  std::vector<unsigned int> free_;  // spare codes bound to nothing now (used from the back)
  std::chrono::milliseconds settle_;
  std::chrono::milliseconds rebind_settle_;
  std::function<TypedShown(size_t)> wait_handled_;
  std::function<bool()> handled_;
  int* bindings_;
  std::unordered_map<Keysym, unsigned int> bound_;
  std::vector<unsigned int> touched_;  // codes bound at some point: restored at the end
  std::vector<Keysym> plan_;
  size_t next_ = 0;  // the next keysym of plan_ to be typed
  bool used_since_settle_ = false;
};

}  // namespace

Result<std::unique_ptr<XTestInput>> XTestInput::Open(const std::string& display_name,
                                                     const XTestOptions& options) {
  auto display = X11Display::Open(display_name);
  if (!display.ok()) return display.error();
  int event_base = 0, error_base = 0, major = 0, minor = 0;
  if (!XTestQueryExtension((*display)->raw(), &event_base, &error_base, &major, &minor)) {
    return MakeError(ErrorCode::kUnavailable,
                     "the X server of " + (*display)->name() +
                         " has no XTEST extension, so uiscope cannot send input there (Xvfb and "
                         "Xorg have it unless started with -extension XTEST)");
  }
  // Input must not be held back by another client's server grab (a menu
  // holding the pointer still gets our events through the grab).
  XTestGrabControl((*display)->raw(), True);
  return std::unique_ptr<XTestInput>(new XTestInput(std::move(display).value(), options));
}

XTestInput::~XTestInput() = default;

Status XTestInput::Sync() {
  XSync(display_->raw(), False);
  if (release_unsynced_) {
    release_unsynced_ = false;
    last_release_synced_ = std::chrono::steady_clock::now();
  }
  if (display_->broken()) {
    return MakeError(ErrorCode::kUnavailable,
                     "the X server of " + display_->name() + " went away while sending input");
  }
  return OkStatus();
}

Status XTestInput::Button(unsigned int x_button, bool press) {
  if (!XTestFakeButtonEvent(display_->raw(), x_button, press ? True : False, CurrentTime)) {
    return MakeError(ErrorCode::kInternal, "XTestFakeButtonEvent failed");
  }
  return OkStatus();
}

Status XTestInput::Key(unsigned int code, bool press) {
  if (press && code == last_release_code_) {
    // Not in the millisecond of the key's own release (see the header).
    if (release_unsynced_) (void)Sync();
    std::this_thread::sleep_until(last_release_synced_ + kSameKeyGap);
  }
  if (!XTestFakeKeyEvent(display_->raw(), code, press ? True : False, CurrentTime)) {
    return MakeError(ErrorCode::kInternal, "XTestFakeKeyEvent failed");
  }
  if (!press) {
    last_release_code_ = code;
    release_unsynced_ = true;
  }
  return OkStatus();
}

Status XTestInput::RawButtonEvent(unsigned int x_button, bool press) {
  if (auto st = Button(x_button, press); !st.ok()) return st;
  return Sync();
}

Status XTestInput::MovePointer(Point to) {
  Display* d = display_->raw();
  // The screen argument selects the screen to move to (-1 = the current
  // one); uiscope's frame is the default screen.
  XTestFakeMotionEvent(d, DefaultScreen(d), to.x, to.y, CurrentTime);
  return Sync();
}

Result<Point> XTestInput::PointerPosition() {
  Display* d = display_->raw();
  Window root = 0, child = 0;
  int root_x = 0, root_y = 0, win_x = 0, win_y = 0;
  unsigned int mask = 0;
  if (!XQueryPointer(d, DefaultRootWindow(d), &root, &child, &root_x, &root_y, &win_x, &win_y,
                     &mask)) {
    return MakeError(ErrorCode::kUnavailable, "the pointer is on another screen");
  }
  return Point{root_x, root_y};
}

Status XTestInput::PressButton(MouseButton button) {
  if (auto st = Button(XButton(button), true); !st.ok()) return st;
  return Sync();
}

Status XTestInput::ReleaseButton(MouseButton button) {
  if (auto st = Button(XButton(button), false); !st.ok()) return st;
  return Sync();
}

Status XTestInput::Click(Point at, MouseButton button, int count) {
  if (count < 1 || count > 3) {
    return MakeError(ErrorCode::kInvalidArgument, "click count must be 1, 2 or 3");
  }
  if (auto st = MovePointer(at); !st.ok()) return st;
  const unsigned int b = XButton(button);
  for (int i = 0; i < count; ++i) {
    Status pressed = Button(b, true);
    Status released = Button(b, false);
    if (!pressed.ok()) return pressed;
    if (!released.ok()) return released;
    // Each press-release pair on its own, so the toolkit counts clicks
    // (double-click detection compares the events' server times).
    if (auto st = Sync(); !st.ok()) return st;
  }
  return OkStatus();
}

Status XTestInput::Scroll(Point at, int dx, int dy) {
  if (auto st = MovePointer(at); !st.ok()) return st;
  auto steps = [&](int n, unsigned int negative, unsigned int positive) -> Status {
    const unsigned int b = n < 0 ? negative : positive;
    for (int i = 0; i < std::abs(n); ++i) {
      if (auto st = Button(b, true); !st.ok()) return st;
      if (auto st = Button(b, false); !st.ok()) return st;
      if (auto st = Sync(); !st.ok()) return st;
    }
    return OkStatus();
  };
  if (auto st = steps(dy, 4, 5); !st.ok()) return st;
  return steps(dx, 6, 7);
}

Status XTestInput::Drag(Point from, Point to, MouseButton button) {
  if (auto st = MovePointer(from); !st.ok()) return st;
  const unsigned int b = XButton(button);
  if (auto st = Button(b, true); !st.ok()) return st;
  Status status = Sync();
  // Small steps, each processed before the next: toolkits follow a drag by
  // motion events, and some start one only past a threshold of a few pixels.
  const double distance = std::hypot(to.x - from.x, to.y - from.y);
  const int steps = std::clamp(static_cast<int>(distance / 8), 8, 100);
  Display* d = display_->raw();
  for (int i = 1; i <= steps && status.ok(); ++i) {
    const int x = from.x + static_cast<int>(std::lround((to.x - from.x) * double(i) / steps));
    const int y = from.y + static_cast<int>(std::lround((to.y - from.y) * double(i) / steps));
    XTestFakeMotionEvent(d, DefaultScreen(d), x, y, CurrentTime);
    status = Sync();
    std::this_thread::sleep_for(options_.drag_step_pause);
  }
  // Released whatever happened, so the button never stays down.
  Status released = Button(b, false);
  Status synced = Sync();
  if (!status.ok()) return status;
  if (!released.ok()) return released;
  return synced;
}

Status XTestInput::PressChord(const KeyChord& chord) {
  Display* d = display_->raw();
  auto keymap = Keymap::Fetch(d);
  if (!keymap) return MakeError(ErrorCode::kUnavailable, "cannot read the keyboard map");
  std::vector<unsigned int> modifier_codes;
  for (Keysym m : chord.modifiers) {
    auto stroke = keymap->Find(m);
    if (!stroke) {
      // A spare code bound to a modifier keysym is not in the modifier map,
      // so it would not act as one.
      return MakeError(ErrorCode::kUnsupported, "the keyboard map of " + display_->name() +
                                                    " has no " + KeysymName(m) + " key");
    }
    modifier_codes.push_back(stroke->code);
  }
  HandledCheck check;
  SpareBinder binder(
      d, keymap->per_code, keymap->SpareCodes(options_.max_spare_codes), options_.remap_settle,
      options_.rebind_settle, nullptr, [&] { return AppHandled(check); }, &spare_bindings_);
  std::optional<Stroke> key;
  if (chord.key) {
    key = keymap->Find(*chord.key);
    if (!key) {
      auto code = binder.Bind(*chord.key);
      if (!code.ok()) return code.error();
      key = Stroke{*code, false};
    }
  }
  std::optional<unsigned int> shift;
  const bool has_shift = std::find(chord.modifiers.begin(), chord.modifiers.end(),
                                   keysym::kShiftL) != chord.modifiers.end();
  if (key && key->shift && !has_shift) {
    auto s = keymap->Find(keysym::kShiftL);
    if (!s) return MakeError(ErrorCode::kUnsupported, "the keyboard map has no Shift key");
    shift = s->code;
  }
  // Press in order, release in reverse; every press is matched by a
  // release even when a request fails.
  std::vector<unsigned int> pressed;
  Status status = OkStatus();
  auto press = [&](unsigned int code) {
    if (!status.ok()) return;
    status = Key(code, true);
    if (status.ok()) pressed.push_back(code);
  };
  for (unsigned int code : modifier_codes) press(code);
  if (shift) press(*shift);
  if (key) press(key->code);
  if (status.ok()) status = Sync();
  for (auto it = pressed.rbegin(); it != pressed.rend(); ++it) (void)Key(*it, false);
  Status synced = Sync();
  return status.ok() ? synced : status;
}

namespace {

// Whether `w` lists _NET_WM_PING among its WM_PROTOCOLS.
bool AnswersPing(Display* d, Window w, Atom ping) {
  Atom* protocols = nullptr;
  int count = 0;
  if (!XGetWMProtocols(d, w, &protocols, &count)) return false;
  XPtr<Atom> owned(protocols);
  return std::find(protocols, protocols + count, ping) != protocols + count;
}

// The window with the keyboard focus, or its nearest ancestor, that answers
// _NET_WM_PING (the focus may sit on a child of the top-level: a focus
// proxy); None when there is none.
Window PingableFocus(Display* d, Atom ping) {
  Window focus = None;
  int revert = 0;
  XGetInputFocus(d, &focus, &revert);
  const Window root = DefaultRootWindow(d);
  for (int depth = 0; focus != None && focus != PointerRoot && focus != root && depth < 32;
       ++depth) {
    if (AnswersPing(d, focus, ping)) return focus;
    Window parent = None, r = None;
    Window* children = nullptr;
    unsigned int n = 0;
    if (!XQueryTree(d, focus, &r, &parent, &children, &n)) return None;
    XPtr<Window> owned(children);
    focus = parent;
  }
  return None;
}

}  // namespace

bool XTestInput::AppHandled(HandledCheck& check) {
  if (check.gave_up) return false;
  auto give_up = [&](const std::string& why) {
    check.gave_up = true;
    if (check.unsure) check.unsure(why);
    return false;
  };
  Display* d = display_->raw();
  const Atom protocols = XInternAtom(d, "WM_PROTOCOLS", False);
  const Atom ping = XInternAtom(d, "_NET_WM_PING", False);
  const Window target = PingableFocus(d, ping);
  if (target == None) {
    return give_up("the window with the keyboard focus does not answer _NET_WM_PING (waited " +
                   std::to_string(options_.remap_settle.count()) + " ms instead)");
  }
  // The answer is the same message sent to the root window for the
  // substructure masks (EWMH): listened for on the root while it comes.
  const Window root = DefaultRootWindow(d);
  XWindowAttributes attrs;
  const long mask = XGetWindowAttributes(d, root, &attrs) ? attrs.your_event_mask : NoEventMask;
  XSelectInput(d, root, mask | SubstructureNotifyMask);
  const long stamp = ++pings_;
  XEvent e{};
  e.xclient.type = ClientMessage;
  e.xclient.window = target;
  e.xclient.message_type = protocols;
  e.xclient.format = 32;
  e.xclient.data.l[0] = static_cast<long>(ping);
  e.xclient.data.l[1] = stamp;
  e.xclient.data.l[2] = static_cast<long>(target);
  XSendEvent(d, target, False, NoEventMask, &e);
  XSync(d, False);
  struct Want {
    Atom protocols, ping;
    long stamp;
  } want{protocols, ping, stamp};
  auto is_answer = [](Display*, XEvent* ev, XPointer arg) -> Bool {
    const Want* w = reinterpret_cast<const Want*>(arg);
    return ev->type == ClientMessage && ev->xclient.message_type == w->protocols &&
           ev->xclient.format == 32 && static_cast<Atom>(ev->xclient.data.l[0]) == w->ping &&
           ev->xclient.data.l[1] == w->stamp;
  };
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + options_.handled_timeout;
  bool answered = false;
  while (!answered) {
    XEvent got;
    if (XCheckIfEvent(d, &got, is_answer, reinterpret_cast<XPointer>(&want))) {
      answered = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    XSync(d, False);
  }
  XSelectInput(d, root, mask);
  // Drop the root's substructure events that came meanwhile: nothing else
  // reads this connection's events.
  XSync(d, True);
  if (!answered) {
    return give_up("the application did not answer a _NET_WM_PING within " +
                   std::to_string(options_.handled_timeout.count()) +
                   " ms (busy or hung): the keymap was restored without knowing that it had "
                   "read its keys");
  }
  return true;
}

Status XTestInput::TypeText(std::string_view utf8, const TypeOptions& options) {
  auto syms = KeysymsForText(utf8);
  if (!syms.ok()) return syms.error();
  return TypeKeysyms(*syms, options);
}

Status XTestInput::TypeKeysyms(const std::vector<Keysym>& syms, const TypeOptions& options) {
  if (syms.empty()) return OkStatus();
  Display* d = display_->raw();
  auto keymap = Keymap::Fetch(d);
  if (!keymap) return MakeError(ErrorCode::kUnavailable, "cannot read the keyboard map");
  auto shift = keymap->Find(keysym::kShiftL);
  auto backspace = keymap->Find(keysym::kBackSpace);
  HandledCheck check;
  check.unsure = options.unsure;
  SpareBinder binder(
      d, keymap->per_code, keymap->SpareCodes(options_.max_spare_codes), options_.remap_settle,
      options_.rebind_settle, options.wait_handled, [&] { return AppHandled(check); },
      &spare_bindings_);
  std::vector<Keysym> missing;
  for (Keysym sym : syms) {
    if (!keymap->Find(sym)) missing.push_back(sym);
  }
  binder.Plan(std::move(missing));
  // One character at a time through the server: the order is kept and
  // nothing piles up in our output buffer.
  auto stroke_key = [&](const Stroke& stroke) -> Status {
    Status status = OkStatus();
    if (stroke.shift) status = Key(shift->code, true);
    if (status.ok()) status = Key(stroke.code, true);
    (void)Key(stroke.code, false);
    if (stroke.shift) (void)Key(shift->code, false);
    if (!status.ok()) return status;
    return Sync();
  };
  // The strokes sent since the app was last seen to show everything: what
  // a repair types again. Their codes stay bound until the next wait.
  std::vector<Stroke> unchecked;
  size_t checked = 0;  // characters the app was seen to show right
  // Waits until the app handled the keys sent; when it shows a wrong
  // character among them or lacks one (a key translated with a stale
  // keymap, see SpareBinder), erases back to it and types the rest again,
  // each time after a longer pause.
  auto settle = [&]() -> Status {
    auto pause = options_.rebind_settle;
    for (int attempt = 0;; ++attempt) {
      const TypedShown shown = binder.WaitHandled();
      if (shown.right >= binder.typed || shown.right < checked || shown.shown < shown.right ||
          attempt == kRetypes || !backspace || backspace->shift) {
        break;
      }
      retyped_ += static_cast<int>(binder.typed - shown.right);
      for (size_t i = shown.right; i < shown.shown; ++i) {
        if (auto st = stroke_key(*backspace); !st.ok()) return st;
      }
      std::this_thread::sleep_for(pause);
      pause *= 2;
      for (size_t i = shown.right; i < binder.typed; ++i) {
        if (auto st = stroke_key(unchecked[i - checked]); !st.ok()) return st;
      }
    }
    checked = binder.typed;
    unchecked.clear();
    return OkStatus();
  };
  for (Keysym sym : syms) {
    Stroke stroke;
    if (auto found = keymap->Find(sym)) {
      stroke = *found;
    } else {
      if (binder.NeedsRebind(sym)) {
        if (auto st = settle(); !st.ok()) return st;
      }
      auto code = binder.Bind(sym);
      if (!code.ok()) return code.error();
      stroke = Stroke{*code, false};
    }
    if (stroke.shift && !shift) {
      return MakeError(ErrorCode::kUnsupported, "the keyboard map has no Shift key");
    }
    if (auto st = stroke_key(stroke); !st.ok()) return st;
    unchecked.push_back(stroke);
    ++binder.typed;
  }
  // Checked (and repaired) only when codes were bound: keys of the keymap
  // itself are never translated with a stale one.
  if (binder.bindings_made()) return settle();
  return OkStatus();
}

}  // namespace x11
}  // namespace uiscope

#include "platform/x11/x11_clipboard.h"

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XRes.h>
#include <poll.h>
#include <unistd.h>

// Xlib's `#define Status int` would turn uiscope::Status into int.
#undef Status

#include <algorithm>
#include <cstdio>

#include "platform/x11/x_free.h"

namespace uiscope {

std::string_view SelectionName(Selection selection) {
  return selection == Selection::kPrimary ? "primary" : "clipboard";
}

Result<Selection> ParseSelection(std::string_view name) {
  if (name == "clipboard") return Selection::kClipboard;
  if (name == "primary") return Selection::kPrimary;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown selection \"" + std::string(name) + "\": clipboard or primary");
}

std::string_view ServeEndName(ServeEnd end) {
  switch (end) {
    case ServeEnd::kLost:
      return "lost";
    case ServeEnd::kExpired:
      return "expired";
    case ServeEnd::kDisplayGone:
      return "display_gone";
  }
  return "?";
}

bool IsTextMime(std::string_view mime) {
  return mime == kTextMime || mime == "text/plain;charset=utf-8" || mime == "UTF8_STRING" ||
         mime == "text";
}

Result<std::unique_ptr<Clipboard>> OpenX11Clipboard(const std::string& display) {
  auto clipboard = x11::X11Clipboard::Open(display);
  if (!clipboard.ok()) return clipboard.error();
  return std::unique_ptr<Clipboard>(std::move(clipboard).value());
}

namespace x11 {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kProperty[] = "_UISCOPE_SELECTION";
constexpr char kTimeProperty[] = "_UISCOPE_TIME";
constexpr char kTextUtf8Mime[] = "text/plain;charset=utf-8";

// STRING is ISO Latin-1 (ICCCM §2.6.2): code points above U+00FF become '?'.
std::string ToLatin1(const std::string& utf8) {
  std::string out;
  out.reserve(utf8.size());
  for (size_t i = 0; i < utf8.size();) {
    const unsigned char c = static_cast<unsigned char>(utf8[i]);
    int length = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 1;
    if (i + length > utf8.size()) length = 1;
    unsigned code = c;
    if (length == 2) code = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(utf8[i + 1]) & 0x3Fu);
    out += length == 1 ? static_cast<char>(c < 0x80 ? c : '?')
                       : (length == 2 && code <= 0xFF ? static_cast<char>(code) : '?');
    i += length;
  }
  return out;
}

std::string FromLatin1(const std::string& latin1) {
  std::string out;
  out.reserve(latin1.size());
  for (char ch : latin1) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out += ch;
    } else {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

struct Property {
  Atom type = None;
  int format = 0;
  std::string bytes;  // format 32: an array of long, as Xlib returns it
};

// The whole of `property` on `window` (deleting it when `remove`, which in
// INCR asks the owner for the next piece).
Property ReadProperty(Display* d, Window window, Atom property, bool remove) {
  Property p;
  unsigned long count = 0, after = 0;
  unsigned char* raw = nullptr;
  if (XGetWindowProperty(d, window, property, 0, 0, False, AnyPropertyType, &p.type, &p.format,
                         &count, &after, &raw) != Success) {
    return {};
  }
  XPtr<unsigned char> head(raw);
  raw = nullptr;
  if (XGetWindowProperty(d, window, property, 0, static_cast<long>((after + 3) / 4),
                         remove ? True : False, AnyPropertyType, &p.type, &p.format, &count, &after,
                         &raw) != Success) {
    return {};
  }
  XPtr<unsigned char> data(raw);
  if (raw == nullptr || p.type == None) return p;
  const size_t unit = p.format == 32 ? sizeof(long) : p.format == 16 ? sizeof(short) : 1;
  p.bytes.assign(reinterpret_cast<const char*>(raw), count * unit);
  return p;
}

std::optional<std::pair<std::string, std::string>> ClassOf(Display* d, Window w) {
  XClassHint hint{};
  if (XGetClassHint(d, w, &hint) == 0) return std::nullopt;
  std::pair<std::string, std::string> out{hint.res_class ? hint.res_class : "",
                                          hint.res_name ? hint.res_name : ""};
  if (hint.res_name) XFree(hint.res_name);
  if (hint.res_class) XFree(hint.res_class);
  return out;
}

long CardinalProperty(Display* d, Window w, Atom property, Atom type) {
  Property p = ReadProperty(d, w, property, false);
  if (p.type != type || p.format != 32 || p.bytes.size() < sizeof(long)) return 0;
  long value = 0;
  std::copy_n(p.bytes.data(), sizeof(long), reinterpret_cast<char*>(&value));
  return value;
}

std::string Hex(unsigned long id) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%lx", id);
  return buf;
}

}  // namespace

struct X11Clipboard::Transfer {
  Window requestor = None;
  Atom property = None;
  Atom type = None;
  std::string bytes;
  size_t offset = 0;
  bool finished = false;  // the zero-length piece was written
  Clock::time_point last;
};

Result<std::unique_ptr<X11Clipboard>> X11Clipboard::Open(const std::string& name) {
  auto display = X11Display::Open(name);
  if (!display.ok()) return display.error();
  Display* d = (*display)->raw();
  const Window w = XCreateSimpleWindow(d, DefaultRootWindow(d), -10, -10, 1, 1, 0, 0, 0);
  XSelectInput(d, w, PropertyChangeMask);
  // So that other tools (and the deny list of another uiscope) can tell
  // whose selection this is without the X-Resource extension.
  char res_name[] = "uiscope-clipboard";
  char res_class[] = "uiscope";
  XClassHint hint{res_name, res_class};
  XSetClassHint(d, w, &hint);
  XStoreName(d, w, "uiscope clipboard");
  const long pid = getpid();
  XChangeProperty(d, w, XInternAtom(d, "_NET_WM_PID", False), XA_CARDINAL, 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(&pid), 1);
  XFlush(d);
  std::unique_ptr<X11Clipboard> clipboard(new X11Clipboard(std::move(display).value(), w));
  long max_request = XExtendedMaxRequestSize(d);
  if (max_request == 0) max_request = XMaxRequestSize(d);
  // A ChangeProperty request carries its header too; leave room for it.
  const size_t request_bytes = static_cast<size_t>(max_request) * 4;
  clipboard->max_piece_ =
      std::min(kIncrThreshold, request_bytes > 4096 ? request_bytes - 1024 : request_bytes / 2);
  return clipboard;
}

X11Clipboard::X11Clipboard(std::unique_ptr<X11Display> display, unsigned long window)
    : display_(std::move(display)), window_(window) {}

X11Clipboard::~X11Clipboard() {
  if (!display_->broken()) {
    XDestroyWindow(display_->raw(), window_);
    XFlush(display_->raw());
  }
}

unsigned long X11Clipboard::Intern(const char* name) const {
  return XInternAtom(display_->raw(), name, False);
}

unsigned long X11Clipboard::SelectionAtom(Selection selection) const {
  return selection == Selection::kPrimary ? XA_PRIMARY : Intern("CLIPBOARD");
}

std::string X11Clipboard::AtomName(unsigned long atom) const {
  if (atom == None) return "None";
  XPtr<char> name(XGetAtomName(display_->raw(), atom));
  return name ? std::string(name.get()) : Hex(atom);
}

std::string X11Clipboard::Describe(Selection selection, const ClipboardOwner& owner) const {
  std::string who = "the owner of the " +
                    std::string(selection == Selection::kPrimary ? "PRIMARY" : "CLIPBOARD") +
                    " selection (window " + Hex(owner.window);
  if (owner.pid > 0) who += ", pid " + std::to_string(owner.pid);
  if (!owner.app_instance.empty()) who += ", " + owner.app_instance;
  return who + ")";
}

Result<ClipboardOwner> X11Clipboard::Owner(Selection selection) {
  Display* d = display_->raw();
  const Window w = XGetSelectionOwner(d, SelectionAtom(selection));
  if (display_->broken()) {
    return MakeError(ErrorCode::kUnavailable, "the X display " + display_->name() + " went away");
  }
  if (w == None) {
    return MakeError(ErrorCode::kNotFound,
                     "nothing owns the " +
                         std::string(selection == Selection::kPrimary ? "PRIMARY" : "CLIPBOARD") +
                         " selection on " + display_->name() +
                         ": no app has copied anything, or the app that did has exited");
  }
  ClipboardOwner owner;
  owner.window = w;
  // The X server knows which process opened the owner's connection (local
  // clients); a window's _NET_WM_PID is only what the app says.
  int event_base = 0, error_base = 0;
  if (XResQueryExtension(d, &event_base, &error_base)) {
    XResClientIdSpec spec{w, XRES_CLIENT_ID_PID_MASK};
    long count = 0;
    XResClientIdValue* ids = nullptr;
    if (XResQueryClientIds(d, 1, &spec, &count, &ids) == Success && ids != nullptr) {
      for (long i = 0; i < count && owner.pid <= 0; ++i) {
        if (ids[i].spec.mask & XRES_CLIENT_ID_PID_MASK) owner.pid = XResGetClientPid(&ids[i]);
      }
      XResClientIdsDestroy(count, ids);
    }
  }
  const Atom net_wm_pid = Intern("_NET_WM_PID");
  if (owner.pid <= 0) owner.pid = static_cast<int>(CardinalProperty(d, w, net_wm_pid, XA_CARDINAL));
  auto cls = ClassOf(d, w);
  if (!cls) {
    // GTK owns selections with an unmapped helper window; its client leader
    // is the app's group window, which carries WM_CLASS.
    const Window leader =
        static_cast<Window>(CardinalProperty(d, w, Intern("WM_CLIENT_LEADER"), XA_WINDOW));
    if (leader != None) {
      cls = ClassOf(d, leader);
      if (owner.pid <= 0) {
        owner.pid = static_cast<int>(CardinalProperty(d, leader, net_wm_pid, XA_CARDINAL));
      }
    }
  }
  if (cls) {
    owner.app_class = cls->first;
    owner.app_instance = cls->second;
  }
  if (owner.pid < 0) owner.pid = 0;
  return owner;
}

bool X11Clipboard::WaitFor(Deadline deadline, const std::function<bool(const XEvent&)>& match,
                           XEvent* out) {
  Display* d = display_->raw();
  while (!display_->broken()) {
    bool dispatched = false;
    while (!display_->broken() && XPending(d) > 0) {
      XEvent event;
      XNextEvent(d, &event);
      if (match && match(event)) {
        *out = event;
        return true;
      }
      Dispatch(event);
      dispatched = true;
    }
    // Without a match to wait for, one batch of events is the job (Serve).
    if (display_->broken() || (!match && dispatched)) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    // At most a second per poll, so stalled INCR transfers are dropped.
    pollfd p{ConnectionNumber(d), POLLIN, 0};
    poll(&p, 1, static_cast<int>(std::min<long>(left.count() + 1, 1000)));
    DropStalled();
  }
  return false;
}

void X11Clipboard::Dispatch(const XEvent& event) {
  switch (event.type) {
    case SelectionRequest:
      Answer(event);
      break;
    case SelectionClear:
      if (owned_ && event.xselectionclear.window == window_ &&
          event.xselectionclear.selection == SelectionAtom(*owned_)) {
        lost_ = true;
      }
      break;
    case PropertyNotify:
      if (event.xproperty.window != window_ && event.xproperty.state == PropertyDelete) {
        Continue(event);
      }
      break;
    default:
      break;
  }
}

void X11Clipboard::Answer(const XEvent& event) {
  Display* d = display_->raw();
  const XSelectionRequestEvent& r = event.xselectionrequest;
  XEvent reply{};
  reply.xselection.type = SelectionNotify;
  reply.xselection.display = d;
  reply.xselection.requestor = r.requestor;
  reply.xselection.selection = r.selection;
  reply.xselection.target = r.target;
  reply.xselection.time = r.time;
  reply.xselection.property = None;
  const bool ours = owned_ && !lost_ && r.owner == window_ &&
                    r.selection == SelectionAtom(*owned_) &&
                    (r.time == CurrentTime || r.time >= owned_since_);
  if (ours && r.target == Intern("MULTIPLE")) {
    // ICCCM §2.6.2: the property holds (target, property) pairs; each
    // target is converted into its property, and a pair refused has its
    // property replaced by None in the list written back. MULTIPLE always
    // names its property (no obsolete-client fallback).
    if (r.property != None && ConvertPairs(r.requestor, r.property)) {
      reply.xselection.property = r.property;
    }
  } else if (ours) {
    // Obsolete clients name no property: ICCCM says use the target's name.
    const Atom property = r.property == None ? r.target : r.property;
    if (ConvertInto(r.requestor, r.target, property)) reply.xselection.property = property;
  }
  XSendEvent(d, r.requestor, False, NoEventMask, &reply);
  XFlush(d);
}

bool X11Clipboard::ConvertPairs(unsigned long requestor, unsigned long property) {
  Display* d = display_->raw();
  const Atom atom_pair = Intern("ATOM_PAIR");
  const Atom multiple = Intern("MULTIPLE");
  Property pairs = ReadProperty(d, requestor, property, false);
  if (pairs.format != 32 || (pairs.type != atom_pair && pairs.type != XA_ATOM)) return false;
  std::vector<long> list(pairs.bytes.size() / sizeof(long));
  std::copy_n(pairs.bytes.data(), list.size() * sizeof(long), reinterpret_cast<char*>(list.data()));
  if (list.empty() || list.size() % 2 != 0) return false;
  for (size_t i = 0; i < list.size(); i += 2) {
    const Atom target = static_cast<Atom>(list[i]);
    const Atom into = static_cast<Atom>(list[i + 1]);
    // A MULTIPLE inside MULTIPLE, or a pair without a property: refused.
    if (into == None || target == multiple || !ConvertInto(requestor, target, into)) {
      list[i + 1] = static_cast<long>(None);
    }
  }
  XChangeProperty(d, requestor, property, atom_pair, 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(list.data()),
                  static_cast<int>(list.size()));
  return true;
}

bool X11Clipboard::ConvertInto(unsigned long requestor, unsigned long target,
                               unsigned long property) {
  Display* d = display_->raw();
  const bool text = data_.mime == kTextMime;
  const Atom utf8 = Intern("UTF8_STRING");
  const Atom targets = Intern("TARGETS");
  const Atom timestamp = Intern("TIMESTAMP");
  const Atom text_atom = Intern("TEXT");
  const Atom text_utf8 = Intern(kTextUtf8Mime);
  const Atom text_plain = Intern(std::string(kTextMime).c_str());
  if (target == targets) {
    std::vector<long> list = {static_cast<long>(targets), static_cast<long>(timestamp),
                              static_cast<long>(Intern("MULTIPLE"))};
    if (text) {
      for (Atom a : {utf8, text_utf8, text_plain, text_atom, static_cast<Atom>(XA_STRING)}) {
        list.push_back(static_cast<long>(a));
      }
    } else {
      list.push_back(static_cast<long>(Intern(data_.mime.c_str())));
    }
    XChangeProperty(d, requestor, property, XA_ATOM, 32, PropModeReplace,
                    reinterpret_cast<const unsigned char*>(list.data()),
                    static_cast<int>(list.size()));
    return true;
  }
  if (target == timestamp) {
    const long t = static_cast<long>(owned_since_);
    XChangeProperty(d, requestor, property, XA_INTEGER, 32, PropModeReplace,
                    reinterpret_cast<const unsigned char*>(&t), 1);
    return true;
  }
  std::optional<std::pair<Atom, std::string>> payload;
  if (text &&
      (target == utf8 || target == text_atom || target == text_utf8 || target == text_plain)) {
    payload.emplace(target == text_atom ? utf8 : target, data_.bytes);
  } else if (text && target == XA_STRING) {
    payload.emplace(XA_STRING, ToLatin1(data_.bytes));
  } else if (!text && target == Intern(data_.mime.c_str())) {
    payload.emplace(target, data_.bytes);
  }
  if (!payload) return false;
  auto& [type, bytes] = *payload;
  if (bytes.size() <= max_piece_) {
    XChangeProperty(d, requestor, property, type, 8, PropModeReplace,
                    reinterpret_cast<const unsigned char*>(bytes.data()),
                    static_cast<int>(bytes.size()));
    return true;
  }
  // INCR (ICCCM §2.7.2): announce the size; each time the requestor
  // deletes the property, the next piece goes in (Continue()).
  XSelectInput(d, requestor, PropertyChangeMask);
  const long size = static_cast<long>(bytes.size());
  XChangeProperty(d, requestor, property, Intern("INCR"), 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(&size), 1);
  auto t = std::make_unique<Transfer>();
  t->requestor = requestor;
  t->property = property;
  t->type = type;
  t->bytes = std::move(bytes);
  t->last = Clock::now();
  transfers_.push_back(std::move(t));
  return true;
}

void X11Clipboard::Continue(const XEvent& event) {
  Display* d = display_->raw();
  for (auto it = transfers_.begin(); it != transfers_.end(); ++it) {
    Transfer& t = **it;
    if (t.requestor != event.xproperty.window || t.property != event.xproperty.atom) continue;
    if (t.finished) {
      // The requestor deleted the zero-length end marker: done.
      if (std::none_of(transfers_.begin(), transfers_.end(), [&](const auto& other) {
            return other.get() != &t && other->requestor == t.requestor;
          })) {
        XSelectInput(d, t.requestor, t.requestor == window_ ? PropertyChangeMask : NoEventMask);
      }
      transfers_.erase(it);
      return;
    }
    const size_t n = std::min({kIncrChunk, max_piece_, t.bytes.size() - t.offset});
    XChangeProperty(d, t.requestor, t.property, t.type, 8, PropModeReplace,
                    reinterpret_cast<const unsigned char*>(t.bytes.data() + t.offset),
                    static_cast<int>(n));
    t.offset += n;
    t.finished = n == 0;
    t.last = Clock::now();
    XFlush(d);
    return;
  }
}

void X11Clipboard::DropStalled() {
  const auto now = Clock::now();
  std::erase_if(transfers_, [&](const std::unique_ptr<Transfer>& t) {
    if (now - t->last < kIncrStall) return false;
    if (!display_->broken() && t->requestor != window_) {
      XSelectInput(display_->raw(), t->requestor, NoEventMask);
    }
    return true;
  });
}

Result<std::optional<std::string>> X11Clipboard::Convert(Selection selection, unsigned long target,
                                                         Deadline deadline, size_t max_bytes,
                                                         const std::string& who) {
  Display* d = display_->raw();
  const std::string property_name =
      property_generation_ == 0
          ? std::string(kProperty)
          : std::string(kProperty) + "_" + std::to_string(property_generation_);
  const Atom property = Intern(property_name.c_str());
  const Atom selection_atom = SelectionAtom(selection);
  // Every way out but a complete transfer gives the property up.
  struct GiveUp {
    int* generation;
    bool done = false;
    ~GiveUp() {
      if (!done) ++*generation;
    }
  } give_up{&property_generation_};
  auto gone = [&] {
    return MakeError(ErrorCode::kUnavailable, "the X display " + display_->name() + " went away");
  };
  XDeleteProperty(d, window_, property);
  XConvertSelection(d, selection_atom, target, property, window_, CurrentTime);
  XFlush(d);
  XEvent event;
  const bool answered = WaitFor(
      deadline,
      [&](const XEvent& e) {
        // The target too: a late answer to an earlier request that timed
        // out must not pass for this one.
        return e.type == SelectionNotify && e.xselection.requestor == window_ &&
               e.xselection.selection == selection_atom && e.xselection.target == target;
      },
      &event);
  if (!answered) {
    if (display_->broken()) return gone();
    return MakeError(ErrorCode::kTimeout, who + " did not answer a request for " +
                                              AtomName(target) +
                                              " in time (the app may be busy "
                                              "or hung); try again or copy again");
  }
  if (event.xselection.property == None) {
    give_up.done = true;
    return std::optional<std::string>{};
  }
  Property head = ReadProperty(d, window_, property, false);
  if (head.type == Intern("INCR")) {
    // Deleting the INCR property asks for the first piece; an empty piece ends it.
    XDeleteProperty(d, window_, property);
    XFlush(d);
    std::string out;
    while (true) {
      const bool more = WaitFor(
          deadline,
          [&](const XEvent& e) {
            return e.type == PropertyNotify && e.xproperty.window == window_ &&
                   e.xproperty.atom == property && e.xproperty.state == PropertyNewValue;
          },
          &event);
      if (!more) {
        if (display_->broken()) return gone();
        return MakeError(ErrorCode::kTimeout, who + " stopped sending " + AtomName(target) +
                                                  " (INCR) after " + std::to_string(out.size()) +
                                                  " bytes; nothing was kept");
      }
      Property piece = ReadProperty(d, window_, property, true);
      XFlush(d);
      if (piece.bytes.empty()) break;
      if (out.size() + piece.bytes.size() > max_bytes) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "the selection's " + AtomName(target) + " is larger than the limit of " +
                             std::to_string(max_bytes) + " bytes; nothing was kept");
      }
      out += piece.bytes;
    }
    give_up.done = true;
    return std::optional<std::string>(std::move(out));
  }
  if (head.bytes.size() > max_bytes) {
    XDeleteProperty(d, window_, property);
    return MakeError(ErrorCode::kInvalidArgument, "the selection's " + AtomName(target) + " (" +
                                                      std::to_string(head.bytes.size()) +
                                                      " bytes) is larger than the limit of " +
                                                      std::to_string(max_bytes) +
                                                      " bytes; nothing was kept");
  }
  XDeleteProperty(d, window_, property);
  XFlush(d);
  give_up.done = true;
  return std::optional<std::string>(std::move(head.bytes));
}

Result<std::vector<std::string>> X11Clipboard::Targets(Selection selection,
                                                       std::chrono::milliseconds timeout) {
  auto owner = Owner(selection);
  if (!owner.ok()) return owner.error();
  auto got = Convert(selection, Intern("TARGETS"), Clock::now() + timeout, 1 << 20,
                     Describe(selection, *owner));
  if (!got.ok()) return got.error();
  std::vector<std::string> names;
  if (!*got) return names;
  const std::string& bytes = **got;
  for (size_t i = 0; i + sizeof(long) <= bytes.size(); i += sizeof(long)) {
    long atom = 0;
    std::copy_n(bytes.data() + i, sizeof(long), reinterpret_cast<char*>(&atom));
    names.push_back(AtomName(static_cast<unsigned long>(atom)));
  }
  return names;
}

Result<ClipboardData> X11Clipboard::Get(Selection selection, std::string_view mime,
                                        std::chrono::milliseconds timeout, size_t max_bytes) {
  if (mime.empty()) return MakeError(ErrorCode::kInvalidArgument, "no MIME type given");
  const Deadline deadline = Clock::now() + timeout;
  auto owner = Owner(selection);
  if (!owner.ok()) return owner.error();
  const std::string who = Describe(selection, *owner);
  const bool text = IsTextMime(mime);
  std::vector<Atom> targets;
  if (text) {
    targets = {Intern("UTF8_STRING"), Intern(kTextUtf8Mime), XA_STRING};
  } else {
    targets = {Intern(std::string(mime).c_str())};
  }
  for (Atom target : targets) {
    auto got = Convert(selection, target, deadline, max_bytes, who);
    if (!got.ok()) return got.error();
    if (!*got) continue;
    ClipboardData data;
    data.mime = text ? std::string(kTextMime) : std::string(mime);
    data.bytes = target == XA_STRING ? FromLatin1(**got) : std::move(**got);
    return data;
  }
  std::string message = who + " offers no " + std::string(mime);
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() > 0) {
    if (auto offered = Targets(selection, left); offered.ok() && !offered->empty()) {
      message += "; it offers:";
      for (const auto& name : *offered) message += " " + name;
    }
  }
  return MakeError(ErrorCode::kUnsupported, message);
}

Result<unsigned long> X11Clipboard::ServerTime(Deadline deadline) {
  // ICCCM §2.1: take a selection with a real server time, not CurrentTime;
  // a zero-length append to our own property yields one.
  Display* d = display_->raw();
  const Atom property = Intern(kTimeProperty);
  XChangeProperty(d, window_, property, XA_STRING, 8, PropModeAppend, nullptr, 0);
  XFlush(d);
  XEvent event;
  if (!WaitFor(
          deadline,
          [&](const XEvent& e) {
            return e.type == PropertyNotify && e.xproperty.window == window_ &&
                   e.xproperty.atom == property;
          },
          &event)) {
    return MakeError(ErrorCode::kTimeout,
                     "the X server " + display_->name() + " did not report a time stamp in time");
  }
  return static_cast<unsigned long>(event.xproperty.time);
}

Status X11Clipboard::Own(Selection selection, ClipboardData data) {
  if (data.mime.empty()) return MakeError(ErrorCode::kInvalidArgument, "no MIME type given");
  if (IsTextMime(data.mime)) data.mime = std::string(kTextMime);
  auto time = ServerTime(Clock::now() + std::chrono::seconds(2));
  if (!time.ok()) return time.error();
  Display* d = display_->raw();
  const Atom selection_atom = SelectionAtom(selection);
  XSetSelectionOwner(d, selection_atom, window_, *time);
  if (XGetSelectionOwner(d, selection_atom) != window_) {
    return MakeError(ErrorCode::kInternal, "the X server " + display_->name() +
                                               " did not hand over the selection (a newer owner?)");
  }
  owned_ = selection;
  data_ = std::move(data);
  owned_since_ = *time;
  lost_ = false;
  return OkStatus();
}

Result<ServeEnd> X11Clipboard::Serve(std::chrono::steady_clock::time_point until) {
  if (!owned_) return MakeError(ErrorCode::kUnavailable, "Serve() before Own()");
  XEvent unused;
  while (true) {
    // An INCR transfer under way is finished even after the loss.
    if (lost_ && transfers_.empty()) return ServeEnd::kLost;
    if (display_->broken()) return ServeEnd::kDisplayGone;
    if (Clock::now() >= until) {
      XSetSelectionOwner(display_->raw(), SelectionAtom(*owned_), None, owned_since_);
      XFlush(display_->raw());
      return ServeEnd::kExpired;
    }
    WaitFor(until, nullptr, &unused);
  }
}

}  // namespace x11
}  // namespace uiscope

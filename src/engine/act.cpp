#include "engine/act.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <thread>

#include "core/app_name.h"
#include "core/ascii.h"
#include "core/clock.h"
#include "core/diff.h"
#include "core/format.h"
#include "core/ids.h"
#include "core/keys.h"
#include "engine/cdp_pages.h"
#include "engine/gated_action.h"
#include "engine/label_field.h"
#include "engine/perceive.h"
#include "engine/pixel_ids.h"
#include "engine/privacy.h"
#include "engine/said_notes.h"
#include "platform/windows_from_pixels.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

// How long the window manager gets to activate a window, and the app to
// show it as active in its accessibility tree.
constexpr auto kActivateTimeout = std::chrono::milliseconds(1500);
constexpr auto kActiveInTreeTimeout = std::chrono::milliseconds(500);
// A point target's evidence area when no element there has bounds.
constexpr int kPointEvidenceRadius = 16;
// Hover settling (see Executor::HoverFirst): the pixels under the pointer
// are compared this often, at least this long, at most this long.
constexpr auto kHoverPoll = std::chrono::milliseconds(15);
constexpr auto kHoverMin = std::chrono::milliseconds(45);
constexpr auto kHoverQuiet = std::chrono::milliseconds(45);
// How long typing waits for the app to show the characters sent before it
// rebinds a spare key code.
constexpr auto kTypingCatchUp = std::chrono::milliseconds(3000);
constexpr auto kHoverMax = std::chrono::milliseconds(400);
// What typing waits instead, once the field showed none of the text typed.
constexpr auto kUnreadableSettle = std::chrono::milliseconds(100);
// The longest expected text a wrong field is typed over again (select all,
// type it whole): the value read back may be cut past that.
constexpr size_t kMaxRetypeBytes = 1000;
// How often a click target its tree marks disabled is read again while the
// click waits for it to become enabled (AwaitEnabled).
constexpr auto kEnabledPoll = std::chrono::milliseconds(30);
// A combo box opened by a click gets this long to show the option chosen.
constexpr auto kChooseOpenTimeout = std::chrono::milliseconds(2000);
// How far above and below a combo box its open list is looked for by OCR
// (a GTK menu opens over the box, a <select> below it).
constexpr int kPopupReach = 400;

// The node without its subtree (results carry the element, not its content).
Node Shallow(const Node& n) {
  Node c;
  c.id = n.id;
  c.role = n.role;
  c.toolkit_role = n.toolkit_role;
  c.name = n.name;
  c.value = n.value;
  c.description = n.description;
  c.bounds = n.bounds;
  c.states = n.states;
  c.actions = n.actions;
  c.source = n.source;
  c.confidence = n.confidence;
  c.app = n.app;
  c.pid = n.pid;
  c.window = n.window;
  c.ref = n.ref;
  return c;
}

std::string Describe(const Node& n) {
  std::string out(RoleName(n.role));
  if (!n.name.empty()) out += " \"" + SanitiseForDisplay(n.name, 60) + "\"";
  if (!n.id.empty()) out += " (" + n.id + ")";
  return out;
}

std::string JoinActions(const std::vector<std::string>& actions) {
  std::string out;
  for (const auto& a : actions) out += (out.empty() ? "" : ", ") + a;
  return out.empty() ? "none" : out;
}

std::string PointText(Point p) { return std::to_string(p.x) + "," + std::to_string(p.y); }

bool IsTextRole(Role r) { return r == Role::kTextField || r == Role::kTextArea; }
bool IsMultiLine(const Node& n) { return n.role == Role::kTextArea || n.Has(State::kMultiLine); }

// How many characters of `asked` arrived, in order, in `shown`: each asked
// character found at the next place it can be is one delivered ("Mär" shown
// as "Mr": 2 of 3).
size_t DeliveredChars(std::u32string_view asked, std::u32string_view shown) {
  size_t delivered = 0;
  size_t at = 0;
  for (char32_t c : asked) {
    const size_t found = shown.find(c, at);
    if (found == std::u32string_view::npos) continue;
    ++delivered;
    at = found + 1;
  }
  return delivered;
}

// An option's text as shown is the one asked for: exactly, else ignoring
// ASCII case and the spaces around it (menu items padded with spaces).
bool SameOption(std::string_view shown, std::string_view wanted) {
  auto trim = [](std::string_view t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
    return t;
  };
  shown = trim(shown);
  wanted = trim(wanted);
  return !wanted.empty() && (shown == wanted || AsciiLower(shown) == AsciiLower(wanted));
}
// Elements whose value is one of their options: set_value chooses it.
bool IsChoiceRole(Role r) { return r == Role::kComboBox || r == Role::kList; }
bool IsNumericRole(Role r) {
  return r == Role::kSlider || r == Role::kSpinButton || r == Role::kScrollBar ||
         r == Role::kProgressBar;
}

// The accessibility action a plain left click means on `node`, if it has
// one. "activate" on a text field is Enter, not a click, so it is skipped.
// Chromium names a check box's action by what it does ("check", or
// "uncheck" once checked); its generic "dodefault" is left out: on a
// static text it is not what a click does.
std::optional<std::string> PreferredAction(const Node& node) {
  static const char* const kOrder[] = {"click",   "press",    "toggle", "check",
                                       "uncheck", "activate", "jump",   "open"};
  for (const char* name : kOrder) {
    if (IsTextRole(node.role) && std::string_view(name) == "activate") continue;
    if (std::find(node.actions.begin(), node.actions.end(), name) != node.actions.end()) {
      return std::string(name);
    }
  }
  return std::nullopt;
}

bool IsQtToolkit(std::string_view toolkit) { return toolkit.rfind("qt", 0) == 0; }

// Where a click on `node` lands: the centre of its visible part (clipped to
// its window and the screen).
std::optional<Point> ClickPoint(const Node& node, const std::optional<Rect>& window,
                                const Frame& frame) {
  if (!node.bounds || node.bounds->Empty()) return std::nullopt;
  Rect r = *node.bounds;
  if (window) r = Intersect(r, *window);
  if (frame.width > 0 && frame.height > 0) r = ClampToFrame(r, frame.width, frame.height);
  if (r.Empty()) return std::nullopt;
  return r.Center();
}

// Where a drag from a slider starts: on its knob, at the position of its
// current value along a horizontal slider (minimum on the left, as GTK, Qt
// and Chromium lay them out unless inverted). A press elsewhere on the
// track does not grab the knob everywhere: Qt pages towards the press and
// then ignores the motion, GTK and Chromium jump first. The knob's own
// length L is unknown: x + f * w is off from its centre by L * (1/2 - f), at
// most L/2, and a few pixels' inset keeps the ends on it too. `from` is the
// point inside the visible area the estimate is kept in line with; nullopt
// for a vertical slider (which end is the minimum differs by toolkit) or
// one without a usable range.
std::optional<Point> SliderKnob(const Rect& bounds, const ElementCapabilities& caps, Point from) {
  constexpr int kInset = 6;
  if (!caps.value || !(caps.maximum > caps.minimum) || bounds.w < bounds.h ||
      bounds.w <= 2 * kInset) {
    return std::nullopt;
  }
  const double f =
      std::clamp((caps.current - caps.minimum) / (caps.maximum - caps.minimum), 0.0, 1.0);
  const int x = std::clamp(bounds.x + static_cast<int>(std::lround(f * bounds.w)),
                           bounds.x + kInset, bounds.x + bounds.w - kInset);
  return Point{x, from.y};
}

// The deepest node whose bounds hold `p` (smallest area wins).
const Node* NodeAt(const std::vector<Node>& roots, Point p) {
  const Node* best = nullptr;
  ForEachNode(roots, [&](const Node& n, int) {
    if (n.bounds && n.bounds->Contains(p) && n.role != Role::kApplication &&
        (best == nullptr || n.bounds->Area() <= best->bounds->Area())) {
      best = &n;
    }
  });
  return best;
}

const Node* FocusedIn(const std::vector<Node>& roots, int pid) {
  const Node* found = nullptr;
  ForEachNode(roots, [&](const Node& n, int) {
    if (found == nullptr && n.Has(State::kFocused) && (pid == 0 || n.pid == pid) &&
        n.role != Role::kWindow && n.role != Role::kApplication) {
      found = &n;
    }
  });
  return found;
}

// The X window showing the accessibility window `window` of process `pid`:
// same pid, then the same title, then the closest in place and size. Not
// the most overlap: a dialog lies within its main window, which overlaps it
// as much as the dialog's own X window does, and an untitled dialog (GTK's
// message dialogs) then lost to the main window, which was raised instead.
std::optional<WindowInfo> MatchXWindow(const std::vector<WindowInfo>& windows, int pid,
                                       const Node* window) {
  const WindowInfo* best = nullptr;
  int64_t best_score = -1;
  for (const WindowInfo& w : windows) {
    if (pid != 0 && w.pid != 0 && w.pid != pid) continue;
    int64_t score = 0;
    if (pid != 0 && w.pid == pid) score += int64_t{1} << 40;
    if (window && !window->name.empty() && w.title == window->name) score += int64_t{1} << 39;
    if (window && window->bounds) {
      // Areas are far below 2^37: the offset keeps the score positive.
      score += (int64_t{1} << 38) + 2 * int64_t{Intersect(w.bounds, *window->bounds).Area()} -
               int64_t{w.bounds.Area()} - int64_t{window->bounds->Area()};
    }
    if (w.visible) score += 1;
    if (score > best_score) {
      best = &w;
      best_score = score;
    }
  }
  if (best == nullptr || (pid != 0 && best->pid != pid && !window)) return std::nullopt;
  return *best;
}

// The topmost window holding `p` (the list is bottom to top).
std::optional<WindowInfo> WindowAt(const std::vector<WindowInfo>& windows, Point p) {
  for (auto it = windows.rbegin(); it != windows.rend(); ++it) {
    if (it->visible && it->bounds.Contains(p)) return *it;
  }
  return std::nullopt;
}

Result<double> ParseNumber(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  while (end && *end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "\"" + text + "\" is not a number (this element takes a numeric value)");
  }
  return v;
}

std::string FormatNumber(double v) {
  char buf[64];
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.6g", v);
  }
  return buf;
}

// What the executor decided to do, before the gate is asked.
enum class Path { kAction, kSetText, kSetValue, kChoose, kXTest };

struct Plan {
  Snapshot snapshot;  // the observation the action was resolved in
  // The tree as observed, before pixels were added to `snapshot` to find an
  // OCR or vision ID: the verifier compares later trees with it, and those
  // hold no pixel nodes.
  std::optional<Snapshot> tree;
  std::optional<Node> target;
  std::optional<Node> window;  // the target's window node
  int pid = 0;                 // the application acted on (0 = unknown)
  std::optional<WindowInfo> xwindow;
  std::optional<Rect> evidence;  // the target's box: where the hover settles first
  // The effect may show anywhere in the target's window (VerifyScope's
  // evidence left unset), not only in `evidence`.
  bool effect_anywhere = false;
  std::vector<Point> points;
  Path path = Path::kXTest;
  std::string action;            // kAction
  double number = 0;             // kSetValue
  std::vector<KeyChord> chords;  // press_keys
  bool focus_first = false;      // keyboard input into `target`
  // set_value on a combo box or list by input: opened with a click at
  // points[0], then its option clicked where it shows (ChooseByInput).
  bool choose_by_input = false;
  bool sensitive = false;
  // The action lands on a button (the target, or the element under the
  // point): its effect may follow the press (verify.h: button_press).
  bool on_button = false;
  std::string toolkit;  // the target's app's toolkit (Node::toolkit), "" when not known
  // What the target's value will be once typed / set, when that is known
  // (verification waits for it; typing paces itself by it).
  std::optional<std::string> expect_value;
  std::string typed_base;  // the value typing appends to ("" when replacing)
  // The click is Qt's accessibility toggle, which flips the state without
  // emitting `clicked`: the app's click handlers do not run (JudgeToggle).
  bool toggle_without_click = false;
};

class Executor {
 public:
  Executor(Workspace::Lease& lease, const ActionRequest& request)
      : lease_(lease), request_(request) {}

  Result<ActionResult> Run();

 private:
  Status Validate();
  Result<Snapshot> ObserveFor(const std::string& id, int pid_hint, bool include_hidden = false);
  void NoteObservation(std::vector<std::string> warnings);
  void NoteSaidBefore();
  const Node* FindPixelId(const std::string& id);
  const Node* AtRememberedPlace(const RememberedPlace& place);
  const Node* PerceiveAgain(const std::string& id, const PixelIdOrigin& origin);
  Result<const Node*> Recall(const std::string& id);
  Status Resolve();
  const Node* FieldForText(const std::vector<Node>& roots, const Node& n) const;
  Status ChoosePath();
  Status AwaitEnabled();
  Result<ElementCapabilities> Capabilities();
  PlannedAction Planned() const;
  Status Prepare(Verifier& verifier);
  Status Perform();
  Status FocusTarget();
  Status ChooseByInput();
  std::optional<Point> OptionInTree(const std::string& option);
  std::optional<Point> OptionInPixels(const std::string& option, TextReader& reader);
  Status HoverFirst(bool* moved);
  void Expect();
  TypeOptions Pacing(const std::string& text);
  Status CheckText(Verifier& verifier);
  Status ReplaceByInput(Verifier& verifier);
  Status JudgeText(const Verifier& verifier);
  void JudgeToggle();
  void JudgeQuiet();
  std::string WhyTextUnread() const;
  ActionOutcome Outcome(const std::string& error) const;

  Workspace::Lease& lease_;
  const ActionRequest& request_;
  Plan plan_;
  // The observation warnings this call has noted, and how many of them
  // were said before on this desktop and left out (engine/said_notes.h).
  std::set<std::string> observation_notes_;
  int said_before_ = 0;
  ActionResult result_;
  std::optional<ElementCapabilities> caps_;
  std::vector<WindowInfo> windows_;
  GateDecision decision_;
  bool text_unreadable_ = false;  // typing saw the field show none of the text
  // The input backend could not tell that the app handled the keys before
  // it restored the keymap (TypeOptions::unsure): why, "" when it could.
  std::string typing_unsure_;
};

Status Executor::Validate() {
  const ActionRequest& r = request_;
  if (lease_.hands == nullptr) {
    return MakeError(ErrorCode::kInternal, "acting needs a lease acquired with Need::kHands");
  }
  switch (r.kind) {
    case ActionKind::kClick:
      if (r.target.empty()) {
        return MakeError(ErrorCode::kInvalidArgument, "click needs a target: an ID or X,Y");
      }
      if (r.count < 1 || r.count > 3) {
        return MakeError(ErrorCode::kInvalidArgument, "click count must be 1, 2 or 3");
      }
      break;
    case ActionKind::kTypeText:
      if (r.text.empty() && !r.replace) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "nothing to type: give a text (or replace with an empty one to clear "
                         "the field)");
      }
      if (auto syms = KeysymsForText(r.text); !syms.ok()) return syms.error();
      break;
    case ActionKind::kPressKeys:
      if (r.keys.empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "press_keys needs at least one chord, e.g. ctrl+a or Return");
      }
      for (const std::string& k : r.keys) {
        auto chord = ParseKeyChord(k);
        if (!chord.ok()) return chord.error();
        plan_.chords.push_back(std::move(chord).value());
      }
      break;
    case ActionKind::kScroll:
      if (r.target.empty()) {
        return MakeError(ErrorCode::kInvalidArgument, "scroll needs a target: an ID or X,Y");
      }
      if (r.dx == 0 && r.dy == 0) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "scroll needs dx or dy (wheel steps; dy > 0 scrolls down)");
      }
      if (std::abs(r.dx) > 100 || std::abs(r.dy) > 100) {
        return MakeError(ErrorCode::kInvalidArgument, "scroll at most 100 wheel steps at a time");
      }
      break;
    case ActionKind::kDrag:
      if (r.target.empty() || r.to.empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "drag needs a start and an end, each an ID or X,Y");
      }
      break;
    case ActionKind::kSetValue:
      if (r.target.id.empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "set_value needs the ID of an element (a slider, spin button, combo "
                         "box or text field)");
      }
      break;
  }
  const bool input_only = r.kind == ActionKind::kPressKeys || r.kind == ActionKind::kScroll ||
                          r.kind == ActionKind::kDrag;
  if (input_only && r.via == Via::kAccessibility) {
    return MakeError(ErrorCode::kUnsupported,
                     std::string(ActionToolName(r.kind)) + " is input only: use via auto or xtest");
  }
  if (r.kind == ActionKind::kClick && r.target.point && r.via == Via::kAccessibility) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "a click at a point is input only: give an element ID for via "
                     "accessibility");
  }
  return OkStatus();
}

// A fresh observation to resolve `id` in. When the last observation covered
// everything and knew the element, only its application is observed again.
Result<Snapshot> Executor::ObserveFor(const std::string& id, int pid_hint, bool include_hidden) {
  Observer& observer = *lease_.observer;
  int pid = pid_hint;
  if (!id.empty() && pid == 0) {
    if (const Node* known = FindById(observer.last_roots(), id)) pid = known->pid;
  }
  Result<Observation> obs = MakeError(ErrorCode::kInternal, "not observed");
  if (observer.last_was_full() && pid > 0) {
    obs = observer.RefreshApp(pid, request_.timeout, include_hidden);
  } else {
    ObserveRequest all;
    all.timeout = request_.timeout;
    all.include_hidden = include_hidden;
    obs = observer.Observe(all);
  }
  if (!obs.ok()) return obs.error();
  NoteObservation(std::move(obs->warnings));
  return std::move(obs->snapshot);
}

// An observation's warnings go into the result once per call, and once per
// desktop within the hour (engine/said_notes.h): a note about the app's tree
// that every call repeats is then counted, not said again.
void Executor::NoteObservation(std::vector<std::string> warnings) {
  std::erase_if(warnings, [&](const std::string& w) { return !observation_notes_.insert(w).second; });
  int left_out = 0;
  for (std::string& w :
       SayOnce(SaidNotesFile(SessionStateDir(), lease_.display), warnings, &left_out)) {
    result_.notes.push_back(std::move(w));
  }
  said_before_ += left_out;
}

void Executor::NoteSaidBefore() {
  if (said_before_ == 0) return;
  result_.notes.push_back(std::to_string(said_before_) +
                          (said_before_ == 1 ? " note about the desktop, said in an earlier call,"
                                             : " notes about the desktop, said in earlier calls,") +
                          " left out (observe says them all)");
}

// An OCR or vision ID an earlier call printed is in no accessibility tree
// (engine/pixel_ids.h): acted on where it was when its window and pixels
// are unchanged, else perceived again. Null when it was not such an ID, or
// is not there now.
const Node* Executor::FindPixelId(const std::string& id) {
  auto record = PixelIds(PixelIdsFile(SessionStateDir(), lease_.display)).Lookup(id);
  if (!record || lease_.capture == nullptr) return nullptr;
  if (!plan_.tree) plan_.tree = plan_.snapshot;
  // Text for a label seen in pixels goes into the field beside it
  // (FieldForText), which only the whole perception holds: perceive again.
  const bool needs_neighbours = record->place && PutsText(request_.kind) &&
                                IsLabelRole(record->place->node.role);
  if (record->place && !needs_neighbours) {
    if (const Node* node = AtRememberedPlace(*record->place)) return node;
  } else if (!record->place) {
    result_.notes.push_back(id + " was observed where no place could be kept for it (no window " +
                            "listed at its centre, or its pixels unreadable); perceived again");
  }
  return PerceiveAgain(id, record->origin);
}

// The node of `place` added to plan_.snapshot, under its window, when the
// place is unchanged (CheckPlace); null, with a note saying why, otherwise.
const Node* Executor::AtRememberedPlace(const RememberedPlace& place) {
  const Node& remembered = place.node;
  PlaceCheck check = CheckPlace(place, windows_, *lease_.capture);
  Node* window = nullptr;
  ForEachNodeMutable(plan_.snapshot.roots, [&](Node& n, int) {
    if (window == nullptr && n.id == remembered.window) window = &n;
  });
  if (check.still && window == nullptr) {
    check.still = false;
    check.why = "its window " + remembered.window + " is not in the tree observed now";
  }
  if (!check.still) {
    result_.notes.push_back(remembered.id + " is not as it was observed: " + check.why +
                            "; perceived again");
    return nullptr;
  }
  window->children.push_back(remembered);
  result_.resolution = "place";
  result_.notes.push_back(
      "acted on " + remembered.id + " where it was observed: its window has not moved and its " +
      "pixels are unchanged" +
      (check.pixels.changed_cells > 0 ? " (but for a caret-wide strip)" : std::string()));
  return FindById(plan_.snapshot.roots, remembered.id);
}

// Perceived again with the sources and scope that made the ID, into
// plan_.snapshot.
const Node* Executor::PerceiveAgain(const std::string& id, const PixelIdOrigin& origin) {
  ObserveRequest scope;
  scope.app = origin.app;
  scope.pid = origin.pid;
  scope.timeout = request_.timeout;
  Perception perception;
  if (!scope.app.empty() || scope.pid != 0) {
    auto obs = lease_.observer->Observe(scope);
    if (!obs.ok()) return nullptr;
    perception.observation = std::move(obs).value();
  } else {
    perception.observation.snapshot = plan_.snapshot;
  }
  TextReader reader;
  // Learning on (a learner): what the observation before read is kept, and
  // the same pixels read again cost a hash (engine/read_text.h).
  if (lease_.learner != nullptr) reader.KeepCacheIn(OcrCacheFile());
  const Sources sources{origin.ax, origin.ocr, origin.vision};
  if (auto st = AddPixelSources(perception, lease_, scope, sources, &reader); !st.ok()) {
    result_.notes.push_back("could not perceive " + id + " again: " + st.error().message);
    return nullptr;
  }
  plan_.snapshot = std::move(perception.observation.snapshot);
  result_.resolution = "perceived";
  result_.notes.push_back(std::string("found ") + id + " by perceiving again with " +
                          (origin.ocr && origin.vision ? "ocr and vision"
                           : origin.ocr                ? "ocr"
                                                       : "vision"));
  return FindById(plan_.snapshot.roots, id);
}

// A learned or taught target (source learned) is in no accessibility tree:
// memory adds it to plan_.snapshot again (engine/learner.h), at its window's
// current origin plus the bounds it has there, or where its fingerprint is
// found now. Null when `id` is not a learned target; an error when it is one
// whose window is not on screen.
Result<const Node*> Executor::Recall(const std::string& id) {
  Learner* learner = lease_.learner;
  if (learner == nullptr) return nullptr;
  std::vector<std::string> warnings;
  learner->Learn(plan_.snapshot, ScreenRegions(lease_), warnings);
  for (auto& w : warnings) result_.notes.push_back(std::move(w));
  if (const Node* node = FindById(plan_.snapshot.roots, id)) {
    if (node->source == Source::kLearned) {
      result_.notes.push_back("found " + id + " in the learned memory" +
                              (node->Has(State::kStale)
                                   ? " where it was last seen in its window (the pixels did not "
                                     "confirm it now)"
                                   : ""));
    }
    return node;
  }
  auto holding = learner->Holding(id);
  if (!holding.ok() || !*holding) return nullptr;
  const AppSignature& sig = **holding;
  if (FindAppNode(plan_.snapshot.roots, sig.app) == nullptr) {
    // No window of it can be opened: the app itself is gone.
    return MakeError(ErrorCode::kStale,
                     "element " + id + " is a target learned in " + sig.app + "'s window \"" +
                         sig.title_pattern + "\", and " + sig.app +
                         " is not running now (no application of that name on this desktop: "
                         "it exited or was never started here). Launch it (app_launch), open "
                         "that window, then act");
  }
  return MakeError(ErrorCode::kStale,
                   "element " + id + " is a target learned in " + sig.app + "'s window \"" +
                       sig.title_pattern +
                       "\", which is not on screen now: open that window, then act (see `uiscope "
                       "memory show " +
                       sig.app + "`)");
}

// Text given to a label (an accessible label, or OCR text read beside a
// field drawn in pixels) goes into the field that label names, never into
// whatever holds the focus when the label is clicked: the field, or null
// when `n` takes the text itself or no field stands beside it (then the
// label is acted on as asked).
const Node* Executor::FieldForText(const std::vector<Node>& roots, const Node& n) const {
  if (!PutsText(request_.kind)) return nullptr;
  // The rule find-then-act names fields by (engine/named_target.h).
  bool (*takes)(const Node&) = request_.kind == ActionKind::kSetValue ? TakesValue : TakesText;
  if (!IsLabelRole(n.role) || takes(n)) return nullptr;
  return FieldOfLabel(roots, n, takes);
}

Status Executor::Resolve() {
  const ActionTarget& t = request_.target;
  Hands& hands = *lease_.hands;
  if (hands.windows) {
    auto listed = hands.windows->ListWindows();
    if (listed.ok()) windows_ = std::move(listed).value();
  }
  int pid_hint = 0;
  std::optional<WindowInfo> at_point;
  if (t.point) {
    at_point = WindowAt(windows_, *t.point);
    if (at_point) pid_hint = at_point->pid;
  } else if (t.id.empty()) {
    // Keys or text for whatever has the focus: the active window's app.
    for (const WindowInfo& w : windows_) {
      if (w.focused) {
        at_point = w;
        pid_hint = w.pid;
      }
    }
  }
  // An ID known before this observation but absent from it is stale; one
  // never seen is unknown.
  const bool known_before = !t.id.empty() && FindById(lease_.observer->last_roots(), t.id);
  auto snapshot = ObserveFor(t.id, pid_hint);
  if (!snapshot.ok()) return snapshot.error();
  plan_.snapshot = std::move(snapshot).value();
  const auto& roots = plan_.snapshot.roots;

  if (!t.id.empty()) {
    const Node* node = FindById(roots, t.id);
    if (node != nullptr) result_.resolution = "tree";
    if (node == nullptr) node = FindPixelId(t.id);
    if (node == nullptr) {
      auto recalled = Recall(t.id);
      if (!recalled.ok()) return recalled.error();
      node = *recalled;
      if (node != nullptr && node->source == Source::kLearned) result_.resolution = "memory";
    }
    if (node == nullptr && !lease_.observer->WhyMissing(t.id)) {
      // `observe --all` prints elements that are not showing, with the IDs
      // a default observation gives them (the anchors see to that): look
      // among those before calling the ID unknown.
      auto hidden = ObserveFor(t.id, pid_hint, /*include_hidden=*/true);
      if (!hidden.ok()) return hidden.error();
      plan_.snapshot = std::move(hidden).value();
      node = FindById(roots, t.id);
      if (node != nullptr && !node->Has(State::kShowing) && request_.via != Via::kAccessibility) {
        return MakeError(ErrorCode::kUnsupported,
                         Describe(*node) +
                             " is not showing: it is hidden, in a closed menu or scrolled out "
                             "of view. Scroll it into view or open what holds it, then act; "
                             "or act on it with via accessibility");
      }
    }
    if (node == nullptr) {
      // Its app not answering or gone is the cause, not the ID (issue 14).
      if (auto why = lease_.observer->WhyMissing(t.id)) return *why;
      const int total = static_cast<int>(CountNodes(roots));
      if (known_before) {
        return MakeError(ErrorCode::kStale,
                         "element " + t.id +
                             " is no longer on screen (it was in the previous observation); "
                             "observe again for current IDs");
      }
      return MakeError(ErrorCode::kNotFound,
                       "no element " + t.id + " on screen now (" + std::to_string(total) +
                           " elements observed); IDs come from observe or find: observe again");
    }
    if (result_.resolution.empty()) result_.resolution = "tree";
    if (const Node* field = FieldForText(roots, *node)) {
      result_.notes.push_back(Describe(*node) + " is a label: the text goes into the field beside it, " +
                              Describe(*field));
      node = field;
    }
    plan_.target = Shallow(*node);
    plan_.pid = node->pid;
    plan_.sensitive = node->Has(State::kPassword);
    if (const Node* w = FindById(roots, node->window)) plan_.window = Shallow(*w);
    plan_.xwindow = MatchXWindow(windows_, plan_.pid, plan_.window ? &*plan_.window : nullptr);
    plan_.evidence = node->bounds;
    // An element found in the pixels of a window no accessibility tree
    // describes (xcalc, a hung app, a VNC screen): nothing but its pixels
    // can show the effect, and a key's effect shows in the display, not on
    // the key, so a change anywhere in its window counts (what animates on
    // its own and a caret are still left out: engine/verify.h).
    const bool from_pixels = node->source == Source::kOcr || node->source == Source::kVision;
    plan_.effect_anywhere = from_pixels && plan_.window && plan_.window->source == Source::kX11;
    plan_.on_button = node->role == Role::kButton;
    for (const Node& app : roots) {
      if (app.role == Role::kApplication && app.pid == node->pid) plan_.toolkit = app.toolkit;
    }
  } else if (t.point) {
    plan_.xwindow = at_point;
    plan_.pid = at_point ? at_point->pid : 0;
    const Node* under = NodeAt(roots, *t.point);
    if (under && under->role != Role::kWindow && under->bounds) {
      plan_.evidence = *under->bounds;
      plan_.on_button = under->role == Role::kButton;
    } else {
      plan_.evidence = Rect{t.point->x - kPointEvidenceRadius, t.point->y - kPointEvidenceRadius,
                            2 * kPointEvidenceRadius, 2 * kPointEvidenceRadius};
    }
  } else {
    plan_.xwindow = at_point;
    plan_.pid = at_point ? at_point->pid : 0;
    if (const Node* focused = FocusedIn(roots, plan_.pid)) {
      plan_.evidence = focused->bounds;
      plan_.sensitive = focused->Has(State::kPassword);
    }
  }
  return OkStatus();
}

// Known from X11 or pixels only: no accessibility object to ask, and its
// app may be the one not answering (issue 15 §3: input never waits on it).
bool OutsideAccessibility(const Node& n) {
  return n.source == Source::kX11 || n.source == Source::kOcr || n.source == Source::kVision ||
         n.source == Source::kLearned;
}

Result<ElementCapabilities> Executor::Capabilities() {
  if (OutsideAccessibility(*plan_.target)) {
    return MakeError(ErrorCode::kUnsupported,
                     Describe(*plan_.target) + " is known from " +
                         std::string(SourceName(plan_.target->source)) +
                         " only, not through accessibility; it takes input (via xtest)");
  }
  if (!caps_) {
    auto caps = lease_.accessibility->Capabilities(*plan_.target, request_.timeout);
    if (!caps.ok()) return caps.error();
    caps_ = std::move(caps).value();
  }
  return *caps_;
}

Status Executor::ChoosePath() {
  const ActionRequest& r = request_;
  const Frame& frame = lease_.frame;
  const std::optional<Rect> window_bounds =
      plan_.xwindow ? std::optional<Rect>(AppArea(*plan_.xwindow))
                    : (plan_.window ? plan_.window->bounds : std::nullopt);
  auto point_of = [&](const ActionTarget& t, const char* what) -> Result<Point> {
    if (t.point) return *t.point;
    const Node* node = FindById(plan_.snapshot.roots, t.id);
    if (node == nullptr) {
      return MakeError(ErrorCode::kNotFound, std::string("no element ") + t.id + " (the " + what +
                                                 ") on screen now; observe again");
    }
    auto p = ClickPoint(*node, window_bounds, frame);
    if (!p) {
      return MakeError(ErrorCode::kUnsupported,
                       Describe(*node) + " has no visible area on screen to point at" +
                           (node->bounds ? " (it is scrolled out or covered by its window's edge)"
                                         : " (the toolkit reports no bounds)") +
                           "; scroll it into view" +
                           (r.kind == ActionKind::kClick ? " or use via accessibility" : ""));
    }
    return *p;
  };
  const Node* target = plan_.target ? &*plan_.target : nullptr;

  switch (r.kind) {
    case ActionKind::kClick: {
      const bool plain = r.button == MouseButton::kLeft && r.count == 1;
      std::optional<std::string> action;
      if (target) action = r.action.empty() ? PreferredAction(*target) : r.action;
      if (r.via == Via::kAccessibility) {
        if (!plain) {
          return MakeError(ErrorCode::kUnsupported,
                           "right, middle and double clicks are input: use via auto or xtest");
        }
        if (!action) {
          return MakeError(ErrorCode::kUnsupported,
                           Describe(*target) + " offers no accessibility action to click with " +
                               "(actions: " + JoinActions(target->actions) + "); use via xtest");
        }
      }
      // A menu item on screen is clicked with the pointer unless the
      // accessibility path is asked for: its action runs inside the app's
      // AT-SPI call, and one that opens a modal dialog (Inkscape 1.2's
      // File > Save As…) left the app deaf to input and accessibility until
      // the dialog closed.
      const bool menu_by_pointer = r.via == Via::kAuto && target &&
                                   target->role == Role::kMenuItem &&
                                   ClickPoint(*target, window_bounds, frame).has_value();
      // Qt's button actions are not a person's click (Qt 5.15 and 6,
      // widgets/accessible/simplewidgets.cpp, QAccessibleButton::doAction):
      // - "Press" is animateClick(): the button is drawn down and `clicked`
      //   emitted 100 ms later, so a verified press costs 100 ms more. Such
      //   a button is clicked with the pointer where that needs nothing
      //   else: its window has the focus (nothing to raise, no modal dialog
      //   over it) and is the top window at the click point. Elsewhere the
      //   action stays: it does click.
      // - "Toggle" (check boxes, radio and toggle buttons) is toggle(): the
      //   state flips and `toggled` is emitted, never `clicked`, so the
      //   app's click handlers do not run. Such a button is clicked with the
      //   pointer wherever it shows (its window raised first); where it does
      //   not, or the action is asked for, the action runs and its effect is
      //   at most unverified (JudgeToggle).
      auto top_at_click = [&](const Node& n) {
        const std::optional<Point> p = ClickPoint(n, window_bounds, frame);
        if (!p || !plan_.xwindow) return false;
        const std::optional<WindowInfo> top = WindowAt(windows_, *p);
        return top && top->id == plan_.xwindow->id;
      };
      const bool qt_button = target && plain && action && IsQtToolkit(plan_.toolkit);
      const bool qt_press_by_pointer = qt_button && r.via == Via::kAuto && *action == "press" &&
                                       target->role == Role::kButton && plan_.xwindow &&
                                       plan_.xwindow->focused && top_at_click(*target);
      const bool qt_toggle_by_pointer =
          qt_button && r.via == Via::kAuto && *action == "toggle" && plan_.xwindow &&
          ClickPoint(*target, window_bounds, frame).has_value();
      if (qt_press_by_pointer) {
        result_.notes.push_back(
            "clicked with the pointer: Qt runs a button's accessibility press 100 ms late");
      }
      if (qt_toggle_by_pointer) {
        result_.notes.push_back(
            "clicked with the pointer: Qt's accessibility toggle runs no click handler");
      }
      if (target && plain && action && r.via != Via::kXTest && !menu_by_pointer &&
          !qt_press_by_pointer && !qt_toggle_by_pointer) {
        plan_.path = Path::kAction;
        plan_.action = *action;
        plan_.toggle_without_click = qt_button && *action == "toggle";
        return OkStatus();
      }
      auto p = point_of(r.target, "target");
      if (!p.ok()) return p.error();
      plan_.points = {*p};
      plan_.path = Path::kXTest;
      return OkStatus();
    }
    case ActionKind::kTypeText:
    case ActionKind::kSetValue: {
      const bool set_value = r.kind == ActionKind::kSetValue;
      if (target == nullptr) {  // type into the focused element
        if (r.via == Via::kAccessibility) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "via accessibility needs the ID of the element to type into");
        }
        plan_.path = Path::kXTest;
        return OkStatus();
      }
      if (r.via != Via::kXTest && !(r.via == Via::kAuto && OutsideAccessibility(*target))) {
        auto caps = Capabilities();
        if (!caps.ok()) return caps.error();
        if (set_value && IsChoiceRole(target->role) && !caps->editable_text) {
          plan_.path = Path::kChoose;
          return OkStatus();
        }
        if (set_value && caps->value && !IsTextRole(target->role)) {
          auto number = ParseNumber(r.text);
          if (!number.ok()) return number.error();
          if (caps->maximum > caps->minimum &&
              (*number < caps->minimum || *number > caps->maximum)) {
            return MakeError(ErrorCode::kInvalidArgument,
                             FormatNumber(*number) + " is outside the range " +
                                 FormatNumber(caps->minimum) + ".." + FormatNumber(caps->maximum) +
                                 " of " + Describe(*target));
          }
          plan_.path = Path::kSetValue;
          plan_.number = *number;
          return OkStatus();
        }
        if ((set_value || r.replace) && caps->editable_text) {
          // SetTextContents puts a newline into a one-line field as it is
          // (GtkEntry keeps it and shows a glyph), where typing it would be
          // Return: neither is what the text means.
          if (r.text.find('\n') != std::string::npos && !IsMultiLine(*target)) {
            return MakeError(ErrorCode::kInvalidArgument,
                             Describe(*target) +
                                 " holds one line, and the text has a newline: give the text "
                                 "without it, then press Return (press_keys) if that is meant");
          }
          plan_.path = Path::kSetText;
          return OkStatus();
        }
        if (r.via == Via::kAccessibility) {
          if (!set_value && !r.replace) {
            return MakeError(ErrorCode::kUnsupported,
                             "typing is done with key events; via accessibility replaces the "
                             "whole text instead (replace: true)");
          }
          return MakeError(ErrorCode::kUnsupported,
                           Describe(*target) +
                               " has neither editable text nor a value; use via "
                               "xtest");
        }
      }
      if (set_value && IsChoiceRole(target->role)) {
        // Never select-all and typing: they land on whatever has the focus
        // (a <select> took ctrl+a for the whole page). Opened with a click
        // and its option clicked instead.
        auto p = ClickPoint(*target, window_bounds, frame);
        if (!p) {
          return MakeError(
              ErrorCode::kUnsupported,
              Describe(*target) + " has no visible area to click it open; scroll it into view");
        }
        plan_.points = {*p};
        plan_.path = Path::kXTest;
        plan_.choose_by_input = true;
        return OkStatus();
      }
      if (set_value && (IsNumericRole(target->role) && !IsTextRole(target->role))) {
        return MakeError(ErrorCode::kUnsupported,
                         Describe(*target) +
                             " takes no typed value through input; drag it, or "
                             "set it via accessibility");
      }
      auto p = ClickPoint(*target, window_bounds, frame);
      if (p) plan_.points = {*p};
      plan_.path = Path::kXTest;
      plan_.focus_first = true;
      return OkStatus();
    }
    case ActionKind::kPressKeys:
      plan_.path = Path::kXTest;
      plan_.focus_first = target != nullptr;
      if (target) {
        if (auto p = ClickPoint(*target, window_bounds, frame)) plan_.points = {*p};
      }
      return OkStatus();
    case ActionKind::kScroll: {
      auto p = point_of(r.target, "target");
      if (!p.ok()) return p.error();
      plan_.points = {*p};
      plan_.path = Path::kXTest;
      return OkStatus();
    }
    case ActionKind::kDrag: {
      auto from = point_of(r.target, "start");
      if (!from.ok()) return from.error();
      if (target && target->role == Role::kSlider && target->bounds) {
        if (auto caps = Capabilities(); caps.ok()) {
          auto knob = SliderKnob(*target->bounds, *caps, *from);
          if (knob && (!window_bounds || window_bounds->Contains(*knob))) *from = *knob;
        }
      }
      auto to = point_of(r.to, "end");
      if (!to.ok()) return to.error();
      plan_.points = {*from, *to};
      plan_.path = Path::kXTest;
      // The drag's effect may show anywhere between its ends.
      Rect ends = Union(Rect{from->x, from->y, 1, 1}, Rect{to->x, to->y, 1, 1});
      plan_.evidence = plan_.evidence ? Union(*plan_.evidence, ends) : ends;
      return OkStatus();
    }
  }
  return OkStatus();
}

PlannedAction Executor::Planned() const {
  PlannedAction a;
  a.tool = std::string(ActionToolName(request_.kind));
  a.display = lease_.display;
  a.session = lease_.session_id;
  a.target_id = request_.target.id;
  a.target = plan_.target;
  if (plan_.xwindow) {
    a.target_window = AppArea(*plan_.xwindow);
  } else if (plan_.window && plan_.window->bounds) {
    a.target_window = plan_.window->bounds;
  }
  a.points = plan_.points;
  a.frame = lease_.frame;
  if (PutsText(request_.kind)) {
    a.text = request_.text;
  }
  a.sensitive = plan_.sensitive;
  if (plan_.target) a.app = plan_.target->app;
  a.arguments = request_.arguments;
  a.confirmation_token = request_.confirmation_token;
  a.candidates = request_.candidates;
  a.candidate_nodes = request_.candidate_nodes;
  a.plan_step = request_.plan_step;
  a.require_confirmation = request_.require_confirmation;
  if (lease_.observer != nullptr) {
    a.hidden_window = InputReachesHiddenWindow(HiddenWindows::Of(*lease_.observer), windows_,
                                               plan_.points, plan_.xwindow);
  }
  return a;
}

ActionOutcome Executor::Outcome(const std::string& error) const {
  ActionOutcome o;
  o.performed = result_.performed;
  o.via = result_.via;
  o.error = error;
  if (result_.verification) {
    const Verification& v = *result_.verification;
    o.effect = v.effect;
    o.verification = {{"effect", v.effect},
                      {"reason", v.reason},
                      {"added", v.tree.added.size()},
                      {"removed", v.tree.removed.size()},
                      {"changed", v.tree.changed.size()},
                      {"pixel_score", v.pixels.score}};
    o.screen_hash_after = v.screen_hash_after;
  }
  return o;
}

// Text an action puts into a readable field becomes the expected value:
// the verification waits for it and typing paces itself by it. Not for
// password fields (their value is never read), text with control
// characters (Return may submit, Tab move on), text longer than the tree
// reads, or a field found in pixels (vision, OCR, memory: on a VNC desktop
// or an app without accessibility), which no tree reads back: there the
// pixels are the evidence.
void Executor::Expect() {
  if (!plan_.target || plan_.sensitive || !IsTextRole(plan_.target->role)) return;
  if (plan_.target->source != Source::kAx && plan_.target->source != Source::kMerged) return;
  const ActionRequest& r = request_;
  if (!PutsText(r.kind)) return;
  if (r.text.size() > 1000) return;
  // A newline is a line break in a multi-line field; anywhere else, and
  // for Tab, the key may move the focus or submit.
  const bool multi_line = IsMultiLine(*plan_.target);
  if (std::any_of(r.text.begin(), r.text.end(), [&](char c) {
        return static_cast<unsigned char>(c) < 0x20 && !(multi_line && c == '\n');
      })) {
    return;
  }
  const bool replace = r.replace || r.kind == ActionKind::kSetValue;
  if (plan_.path == Path::kSetText || replace) {
    plan_.typed_base.clear();
  } else if (plan_.path == Path::kXTest &&
             (!plan_.target->Has(State::kFocused) || plan_.target->value.empty())) {
    // Typing goes to the end (FocusTarget), or into an empty field wherever
    // its caret is.
    plan_.typed_base = plan_.target->value;
  } else {
    return;  // typing at a caret uiscope does not know
  }
  plan_.expect_value = plan_.typed_base + r.text;
}

// Typing is paced by what the field shows (xtest_input.h explains why).
// The field shows the text typed so far: done. It shows as many characters
// with some other than typed, every key handled: the app translated a key
// with a stale keymap, and the backend retypes from the first wrong one.
// It shows other text for long (a key dropped, or a slow app): the backend
// is told what it shows, and retypes from where it goes wrong.
TypeOptions Executor::Pacing(const std::string& text) {
  TypeOptions options;
  options.unsure = [this](std::string_view why) {
    if (!typing_unsure_.empty()) return;
    typing_unsure_ = std::string(why);
    result_.notes.push_back(
        "could not tell that the app handled the keys before the keyboard "
        "map was restored: " +
        typing_unsure_);
  };
  if (!plan_.expect_value || plan_.pid <= 0) return options;
  auto chars = DecodeUtf8(text);
  if (!chars.ok()) return options;
  if (auto caps = Capabilities(); caps.ok() && !caps->text && !text_unreadable_) {
    // Nothing to watch: its tree value never shows what is typed.
    text_unreadable_ = true;
    result_.notes.push_back(
        "the field exposes no text to accessibility: typed without reading it back");
  }
  options.wait_handled = [this, chars = *chars](size_t typed) -> TypedShown {
    const std::u32string_view sent = std::u32string_view(chars).substr(0, typed);
    const std::string prefix = plan_.typed_base + EncodeUtf8(sent);
    const auto base = DecodeUtf8(plan_.typed_base);
    const size_t prefix_chars = (base.ok() ? base->size() : 0) + sent.size();
    // What the field shows of `sent`, if it starts with the text typed into
    // and shows some of it: a field showing none of it may expose no text
    // (Chromium fields read "" in some pages), and typing again into a
    // field that cannot be read repeats the text without end ("Zürich" four
    // times over): such a field is never retyped into.
    auto compare = [&](const std::string& value) -> std::optional<TypedShown> {
      if (!value.starts_with(plan_.typed_base)) return std::nullopt;
      auto shown = DecodeUtf8(std::string_view(value).substr(plan_.typed_base.size()));
      if (!shown.ok() || shown->empty()) return std::nullopt;
      const size_t n = std::min(shown->size(), sent.size());
      const size_t right = static_cast<size_t>(
          std::mismatch(sent.begin(), sent.begin() + n, shown->begin()).first - sent.begin());
      if (right >= sent.size()) return std::nullopt;  // all sent shows, and more: not ours to fix
      std::string what = right < shown->size() ? "\"" + EncodeUtf8(shown->substr(right, 1)) + "\""
                                               : std::string("nothing");
      result_.notes.push_back("the app showed " + what + " where \"" +
                              EncodeUtf8(sent.substr(right, 1)) +
                              "\" was typed (a key translated with a stale keymap, or dropped); "
                              "typed again from there");
      return TypedShown{right, shown->size()};
    };
    if (text_unreadable_) {
      // Known not to show what is typed: a fixed pause, not a catch-up wait.
      std::this_thread::sleep_for(kUnreadableSettle);
      return TypedShown{typed, typed};
    }
    const auto deadline = Clock::now() + kTypingCatchUp;
    std::optional<std::string> last;
    while (Clock::now() < deadline) {
      auto obs = lease_.observer->RefreshApp(plan_.pid, request_.timeout);
      if (!obs.ok()) break;
      const Node* n = FindById(obs->snapshot.roots, plan_.target->id);
      if (n == nullptr || n->value == prefix) return TypedShown{typed, typed};
      last = n->value;
      if (auto now = DecodeUtf8(n->value); now.ok() && now->size() == prefix_chars) {
        if (auto shown = compare(n->value)) return *shown;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (last) {
      if (auto shown = compare(*last)) return *shown;
    }
    if (last && *last == plan_.typed_base) {
      text_unreadable_ = true;
      result_.notes.push_back(
          "the field showed none of the typed text within " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(kTypingCatchUp).count()) +
          " ms (it may expose no text): typing went on, nothing was typed again");
    } else {
      result_.notes.push_back("the field did not show the typed text in time; typing went on");
    }
    return TypedShown{typed, typed};
  };
  return options;
}

// The value of the target in the verification's last tree, when it changed.
std::optional<std::string> ValueAfter(const Verification& v, const std::string& id) {
  std::optional<std::string> after;
  for (const NodeChange& c : v.tree.changed) {
    if (c.id != id) continue;
    for (const FieldChange& f : c.fields) {
      if (f.field == "value") after = f.after;
    }
  }
  return after;
}

// After the verification of a text put into a field (expect_value): a
// SetTextContents that changed nothing (the app accepted the call and
// ignored it) is tried again with input where input may be used
// (ReplaceByInput). Typed text the field reads back wrong — it shows other
// text than before, so it can be read — is typed over once: select all,
// the whole expected text, verified again. A field that reads as it did
// before is never typed into again. JudgeText then says what arrived.
Status Executor::CheckText(Verifier& verifier) {
  if (!plan_.expect_value || !result_.verification) return OkStatus();
  const std::string& id = plan_.target->id;
  const Node* before = FindById(verifier.before().roots, id);
  std::optional<std::string> after = ValueAfter(*result_.verification, id);
  if (plan_.path == Path::kSetText) {
    // An element with EditableText has Text: reading as before, its text
    // did not change, whatever else did.
    if (after || (before && before->value == *plan_.expect_value)) return OkStatus();
    if (request_.via != Via::kAccessibility && lease_.hands->input) {
      if (auto st = ReplaceByInput(verifier); !st.ok()) return st;
      after = ValueAfter(*result_.verification, id);
      // Falls through to the input path's check below.
    } else {
      return MakeError(
          ErrorCode::kUnsupported,
          "EditableText.SetTextContents on " + Describe(*plan_.target) +
              " changed nothing within " + std::to_string(request_.verify.settle.count()) +
              " ms (it still reads \"" + SanitiseForDisplay(before ? before->value : "", 60) +
              "\"): the application accepted the call and ignored it; type into it "
              "with input (via xtest)");
    }
  }
  if (plan_.path != Path::kXTest || !after || *after == *plan_.expect_value ||
      plan_.expect_value->size() > kMaxRetypeBytes) {
    return OkStatus();
  }
  // The tree diff holds the value as the tree reads it; the verification
  // warned already when it is not the expected one.
  Input& input = *lease_.hands->input;
  result_.notes.push_back("the field read \"" + SanitiseForDisplay(*after, 60) +
                          "\", not the expected \"" + SanitiseForDisplay(*plan_.expect_value, 60) +
                          "\": selected all and typed the whole text again (once)");
  result_.method += "; then ctrl+a and the whole text again";
  if (auto st = input.PressChord(*ParseKeyChord("ctrl+a")); !st.ok()) return st;
  if (plan_.expect_value->empty()) {
    if (auto st = input.PressChord(*ParseKeyChord("Delete")); !st.ok()) return st;
  } else {
    const std::string base = plan_.typed_base;
    plan_.typed_base.clear();  // Pacing compares with what is typed now
    Status st = input.TypeText(*plan_.expect_value, Pacing(*plan_.expect_value));
    plan_.typed_base = base;
    if (!st.ok()) return st;
  }
  result_.verification = verifier.Wait(request_.cancelled);
  return OkStatus();
}

// The fallback of a SetTextContents the app ignored: the text replaced
// with input (focus, select all, type), as via xtest would, and verified
// again against the same before state.
Status Executor::ReplaceByInput(Verifier& verifier) {
  result_.notes.push_back("EditableText.SetTextContents changed nothing within " +
                          std::to_string(request_.verify.settle.count()) +
                          " ms: replaced the text with input instead");
  const std::optional<Rect> window_bounds =
      plan_.xwindow ? std::optional<Rect>(AppArea(*plan_.xwindow))
                    : (plan_.window ? plan_.window->bounds : std::nullopt);
  plan_.points.clear();
  if (auto p = ClickPoint(*plan_.target, window_bounds, lease_.frame)) plan_.points = {*p};
  plan_.path = Path::kXTest;
  plan_.focus_first = true;
  const std::string method = result_.method;
  if (auto st = Prepare(verifier); !st.ok()) return st;
  if (auto st = Perform(); !st.ok()) return st;
  result_.method = method + " (changed nothing), then " + result_.method;
  result_.verification = verifier.Wait(request_.cancelled);
  return OkStatus();
}

// Why the text typed into the target cannot be read back there (no
// expect_value; see Expect).
std::string Executor::WhyTextUnread() const {
  const ActionRequest& r = request_;
  if (!plan_.target) return "no element was named (it went to whatever has the focus)";
  if (plan_.sensitive) return "it is a password field, whose text is never read";
  if (plan_.target->source != Source::kAx && plan_.target->source != Source::kMerged) {
    return "it was found in " + std::string(SourceName(plan_.target->source)) +
           ", and no accessibility tree reads its text";
  }
  if (!IsTextRole(plan_.target->role)) return Describe(*plan_.target) + " is not a text field";
  if (std::any_of(r.text.begin(), r.text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
    return "the text holds keys (Tab, Return, BackSpace) that may move the focus, submit or "
           "erase";
  }
  if (r.text.size() > 1000) return "the text is longer than the tree reads back";
  return "typing went to a caret uiscope does not know";
}

// What arrived, read back on the target. "observed" only when the target
// reads the text asked for where it was typed (appended, or, replacing, the
// whole text); a target that reads something else is a failure saying how
// many characters arrived; one whose text nothing reads is "unverified",
// with why. The verifier's evidence (any change of the tree or of the
// target's pixels) does not stand for the text.
Status Executor::JudgeText(const Verifier& verifier) {
  const ActionRequest& r = request_;
  if (!result_.verification || !result_.performed || plan_.choose_by_input) return OkStatus();
  const bool text_path = plan_.path == Path::kXTest || plan_.path == Path::kSetText;
  if (!text_path || !PutsText(r.kind)) {
    return OkStatus();
  }
  Verification& v = *result_.verification;
  const bool replace = r.replace || r.kind == ActionKind::kSetValue;
  const auto asked = DecodeUtf8(r.text);
  const size_t count = asked.ok() ? asked->size() : 0;
  const std::string of = std::to_string(count);
  if (!plan_.expect_value) {
    if (v.effect == "observed") {
      v.effect = "unverified";
      v.reason = "typed " + of +
                 " characters; what arrived cannot be read back: " + WhyTextUnread() + " (" +
                 v.reason + ")";
    }
    return OkStatus();
  }
  const std::string& id = plan_.target->id;
  const std::optional<std::string> after = ValueAfter(v, id);
  const Node* before = FindById(verifier.before().roots, id);
  const std::string now = after ? *after : (before ? before->value : std::string());
  if (now == *plan_.expect_value) {
    v.effect = "observed";
    v.reason = "the field reads the text asked for (" + of + " of " + of +
               " characters delivered)" + (after ? "" : ", as it did before") + "; " + v.reason;
    return OkStatus();
  }
  if (!after) {
    if (replace) {
      return MakeError(ErrorCode::kUnsupported, "replacing the text of " + Describe(*plan_.target) +
                                                    " changed nothing: it still reads \"" +
                                                    SanitiseForDisplay(now, 60) + "\" (0 of " + of +
                                                    " characters delivered)");
    }
    // The field reads as before: whatever else changed (a window opened,
    // the tree elsewhere) does not say the text arrived.
    if (v.effect == "observed") {
      v.effect = "unverified";
      v.reason = "typed " + of + " characters; " + Describe(*plan_.target) + " still reads \"" +
                 SanitiseForDisplay(now, 60) +
                 "\" as before, so whether the text arrived cannot be read back (" + v.reason +
                 ")";
    }
    return OkStatus();
  }
  size_t delivered = 0;
  if (now.starts_with(plan_.typed_base) && asked.ok()) {
    if (auto shown = DecodeUtf8(std::string_view(now).substr(plan_.typed_base.size()));
        shown.ok()) {
      delivered = DeliveredChars(*asked, *shown);
    }
  }
  return MakeError(ErrorCode::kUnsupported,
                   "typed " + of + " characters into " + Describe(*plan_.target) +
                       ", but it reads \"" + SanitiseForDisplay(now, 80) + "\", not \"" +
                       SanitiseForDisplay(*plan_.expect_value, 80) + "\" (" +
                       std::to_string(delivered) + " of " + of + " characters delivered" +
                       (typing_unsure_.empty() ? "" : "; " + typing_unsure_) + ")");
}

// A toggle that ran no click handler is not the click asked for, whatever
// state it flipped: "observed" becomes "unverified", saying why.
void Executor::JudgeToggle() {
  if (!plan_.toggle_without_click || !result_.verification || !result_.performed) return;
  Verification& v = *result_.verification;
  if (v.effect != "observed") return;
  v.effect = "unverified";
  v.reason = "Qt's accessibility toggle flipped the state without emitting clicked, so the "
             "app's click handlers did not run (click where it shows, via xtest, for them; " +
             v.reason + ")";
}

// "none" only when nothing happened. A push button of the tree, enabled and
// pressed, that showed nothing may still have done its work: a calculator's
// operator key shows nothing until the next digit. Text typed where nothing
// reads it back, with no change seen, cannot be told either: a caret's
// blink can mask the very pixels it went to. Both are "unverified", saying
// why, so that an agent looks before it presses or types again.
void Executor::JudgeQuiet() {
  if (!result_.verification || !result_.performed) return;
  Verification& v = *result_.verification;
  if (v.effect != "none") return;
  const ActionRequest& r = request_;
  const Node* t = plan_.target ? &*plan_.target : nullptr;
  const bool pressed = r.kind == ActionKind::kClick && r.button == MouseButton::kLeft &&
                       r.count == 1 && t != nullptr && t->role == Role::kButton &&
                       (t->source == Source::kAx || t->source == Source::kMerged) &&
                       t->Has(State::kEnabled);
  const bool typed_unread = r.kind == ActionKind::kTypeText && !plan_.expect_value &&
                            (plan_.path == Path::kXTest || plan_.path == Path::kSetText);
  if (pressed) {
    v.effect = "unverified";
    v.reason = Describe(*t) + " was pressed and " + v.reason +
               ": a button's effect can be inside the app or show later (an operator key shows "
               "nothing until the next one); look before pressing it again";
  } else if (typed_unread) {
    v.effect = "unverified";
    v.reason = "typed text where nothing reads it back, and " + v.reason +
               ": whether it arrived cannot be told (a caret can hide the change); read the "
               "field (read_text) before typing again";
  }
}

// A click on an element its own tree marks disabled does nothing: a Save
// button clicked a moment after a file name was typed, while still
// disabled, saved nothing. The click waits until the element is enabled,
// within the request's timeout (each read of the tree within what is left
// of it), and says so; else, or once the call is cancelled, it is refused,
// with nothing sent. The observation it was enabled in becomes the before
// state, so its enabling is not taken for the click's effect.
Status Executor::AwaitEnabled() {
  if (request_.kind != ActionKind::kClick || !plan_.target || !KnownDisabled(*plan_.target)) {
    return OkStatus();
  }
  const auto start = Clock::now();
  const auto deadline = start + request_.timeout;
  std::string stopped;  // why it stopped before the deadline, "" when it did not
  while (plan_.pid > 0 && Clock::now() + kEnabledPoll < deadline) {
    if (request_.cancelled && request_.cancelled()) {
      stopped = "the call was cancelled while it waited";
      break;
    }
    std::this_thread::sleep_for(kEnabledPoll);
    const auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   deadline - Clock::now()),
                               std::chrono::milliseconds(1));
    auto obs = lease_.observer->RefreshApp(plan_.pid, left);
    if (!obs.ok()) {
      stopped = "its tree could not be read again: " + obs.error().message;
      break;
    }
    const Node* n = FindById(obs->snapshot.roots, plan_.target->id);
    if (n == nullptr) {
      stopped = "it went from its application's tree";
      break;
    }
    if (KnownDisabled(*n)) continue;
    plan_.target = Shallow(*n);
    plan_.snapshot = std::move(obs->snapshot);
    result_.target = plan_.target;
    result_.notes.push_back(Describe(*plan_.target) + " was disabled; clicked once it was " +
                            "enabled, " + std::to_string(static_cast<int>(MsSince(start))) +
                            " ms later");
    return OkStatus();
  }
  return MakeError(ErrorCode::kUnsupported,
                   Describe(*plan_.target) + " is disabled (its application marks it so) and " +
                       (stopped.empty() ? "did not become enabled within " +
                                              std::to_string(request_.timeout.count()) + " ms"
                                        : stopped + " (after " +
                                              std::to_string(static_cast<int>(MsSince(start))) +
                                              " ms)") +
                       ": nothing was clicked. Do what enables it first, or click again later");
}

// Gives keyboard input a home: the element takes the focus (through
// accessibility when it can, else a click on it), and when it did not have
// it, the caret goes to the end so typed text is appended.
Status Executor::FocusTarget() {
  if (!plan_.target || plan_.target->Has(State::kFocused)) return OkStatus();
  // A window known from X11, raised and focused through the window system
  // (Prepare), has the keyboard.
  if (OutsideAccessibility(*plan_.target) && IsWindowRole(plan_.target->role) && plan_.xwindow) {
    return OkStatus();
  }
  bool focused = false;
  auto caps = Capabilities();
  if (caps.ok() && caps->component) {
    focused = lease_.accessibility->GrabFocus(*plan_.target, request_.timeout).ok();
  }
  if (!focused) {
    if (plan_.points.empty()) {
      return MakeError(ErrorCode::kUnsupported,
                       Describe(*plan_.target) +
                           " cannot take the focus through accessibility and has no visible "
                           "area to click");
    }
    if (auto st = lease_.hands->input->Click(plan_.points[0], MouseButton::kLeft, 1); !st.ok()) {
      return st;
    }
    result_.notes.push_back("clicked the element to focus it");
  }
  if (request_.kind == ActionKind::kTypeText && !request_.replace &&
      IsTextRole(plan_.target->role)) {
    // GTK and Qt select a field's text when it gains focus; typing would
    // replace it.
    auto end = ParseKeyChord(plan_.target->role == Role::kTextArea ? "ctrl+End" : "End");
    if (auto st = lease_.hands->input->PressChord(*end); !st.ok()) return st;
  }
  return OkStatus();
}

// set_value on a combo box or list that accessibility cannot choose in
// (found in pixels only, via xtest, or an app whose Selection does not read
// back): opened with a click, the option looked for where it shows — in the
// app's tree once showing, else by OCR around the element — and clicked.
// The option never showing closes the list again with Escape.
Status Executor::ChooseByInput() {
  Input& input = *lease_.hands->input;
  const std::string& option = request_.text;
  result_.via = "xtest";
  if (auto st = input.Click(plan_.points[0], MouseButton::kLeft, 1); !st.ok()) return st;
  const auto deadline = Clock::now() + kChooseOpenTimeout;
  TextReader reader;
  if (lease_.learner != nullptr) reader.KeepCacheIn(OcrCacheFile());
  while (true) {
    std::string how = "in the tree";
    std::optional<Point> at = OptionInTree(option);
    if (!at) {
      at = OptionInPixels(option, reader);
      how = "by OCR";
    }
    if (at) {
      result_.points = {plan_.points[0], *at};
      result_.method = "opened it with a click at " + PointText(plan_.points[0]) +
                       ", then clicked option \"" + SanitiseForDisplay(option, 60) + "\" (found " +
                       how + ") at " + PointText(*at);
      return input.Click(*at, MouseButton::kLeft, 1);
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  result_.method = "opened it with a click at " + PointText(plan_.points[0]) + ", then Escape";
  (void)input.PressChord(*ParseKeyChord("Escape"));
  return MakeError(
      ErrorCode::kNotFound,
      "option \"" + SanitiseForDisplay(option, 60) + "\" did not show within " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(kChooseOpenTimeout).count()) +
          " ms of opening " + Describe(*plan_.target) +
          " (looked for in its app's tree and by OCR); closed it again with Escape");
}

// A showing element of the target's app named `option` (a menu item or
// list item first), other than the target itself: its centre.
std::optional<Point> Executor::OptionInTree(const std::string& option) {
  if (plan_.pid <= 0) return std::nullopt;
  auto obs = lease_.observer->RefreshApp(plan_.pid, request_.timeout);
  if (!obs.ok()) return std::nullopt;
  const Node* best = nullptr;
  ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
    if (n.id == plan_.target->id || n.pid != plan_.pid || !n.Has(State::kShowing) || !n.bounds ||
        n.bounds->Empty() || IsChoiceRole(n.role) || !SameOption(n.name, option)) {
      return;
    }
    const bool item = n.role == Role::kMenuItem || n.role == Role::kListItem;
    if (best == nullptr ||
        (item && best->role != Role::kMenuItem && best->role != Role::kListItem)) {
      best = &n;
    }
  });
  if (best == nullptr) return std::nullopt;
  return ClickPoint(*best, std::nullopt, lease_.frame);
}

// A line of text reading `option` around the target (kPopupReach above and
// below, three widths across), outside the target's own box, which shows
// the option chosen now: its centre. Password fields are blanked first.
std::optional<Point> Executor::OptionInPixels(const std::string& option, TextReader& reader) {
  if (lease_.capture == nullptr || !plan_.target->bounds) return std::nullopt;
  const Rect& b = *plan_.target->bounds;
  Rect around{b.x - b.w, b.y - kPopupReach, 3 * b.w, b.h + 2 * kPopupReach};
  if (lease_.frame.width > 0)
    around = ClampToFrame(around, lease_.frame.width, lease_.frame.height);
  if (around.Empty()) return std::nullopt;
  auto frame = lease_.capture->CaptureRegion(around);
  if (!frame.ok()) return std::nullopt;
  const std::vector<Rect> masks = PasswordFieldBounds(plan_.snapshot.roots);
  auto read = reader.ReadImage(frame->image, Point{frame->region.x, frame->region.y},
                               ocr::OcrOptions{}, masks);
  if (!read.ok()) return std::nullopt;
  for (const ocr::OcrLine& line : read->lines) {
    if (!Intersect(line.bounds, b).Empty() || !SameOption(line.text, option)) continue;
    return line.bounds.Center();
  }
  return std::nullopt;
}

// Pointer actions: the pointer goes to the point first and the pixels
// there are left to settle, so a hover highlight (GTK animates it for
// 200 ms) is part of the before state, not taken for the click's effect.
Status Executor::HoverFirst(bool* moved) {
  *moved = false;
  Input& input = *lease_.hands->input;
  const Point to = plan_.points.front();
  if (auto at = input.PointerPosition(); at.ok() && *at == to) return OkStatus();
  if (auto st = input.MovePointer(to); !st.ok()) return st;
  *moved = true;
  ScreenCapture* capture = lease_.hands->capture.get();
  if (capture == nullptr || !plan_.evidence) return OkStatus();
  const Rect area = Rect{plan_.evidence->x - 4, plan_.evidence->y - 4, plan_.evidence->w + 8,
                         plan_.evidence->h + 8};
  // Settled: no change for kHoverQuiet (GTK repaints an animation every
  // 10-20 ms; the first frame comes ~20 ms after the pointer moved).
  const auto start = Clock::now();
  auto last_change = start;
  uint64_t last = 0;
  while (Clock::now() - start < kHoverMax) {
    std::this_thread::sleep_for(kHoverPoll);
    auto frame = capture->CaptureRegion(area);
    if (!frame.ok()) break;
    const auto now = Clock::now();
    if (frame->frame_hash != last) {
      last = frame->frame_hash;
      last_change = now;
    } else if (now - last_change >= kHoverQuiet && now - start >= kHoverMin) {
      break;
    }
  }
  return OkStatus();
}

// After the gate: raise and focus what the input goes to, then retake the
// before state so that none of this counts as the action's effect.
Status Executor::Prepare(Verifier& verifier) {
  if (plan_.path != Path::kXTest) return OkStatus();
  Hands& hands = *lease_.hands;
  if (!hands.input) {
    return MakeError(ErrorCode::kUnavailable,
                     "this desktop has no input backend; act via accessibility");
  }
  bool changed = false;
  if (plan_.xwindow && !plan_.xwindow->focused && hands.windows) {
    if (auto st = hands.windows->Activate(plan_.xwindow->id, kActivateTimeout); !st.ok()) {
      return MakeError(st.error().code, "could not raise and focus the target's window \"" +
                                            plan_.xwindow->title + "\": " + st.error().message);
    }
    result_.notes.push_back("raised and focused window \"" +
                            SanitiseForDisplay(plan_.xwindow->title, 60) + "\" first");
    changed = true;
    // The app learns of its activation a moment later; wait until its tree
    // says so, or the change would be taken for the action's effect.
    if (plan_.window && plan_.pid > 0) {
      const auto deadline = Clock::now() + kActiveInTreeTimeout;
      while (Clock::now() < deadline) {
        auto obs = lease_.observer->RefreshApp(plan_.pid, request_.timeout);
        if (!obs.ok()) break;
        const Node* w = FindById(obs->snapshot.roots, plan_.window->id);
        if (w == nullptr || w->Has(State::kActive)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  }
  if (plan_.focus_first) {
    if (auto st = FocusTarget(); !st.ok()) return st;
    changed = changed || !plan_.target->Has(State::kFocused);
  }
  const bool pointer = request_.kind == ActionKind::kClick || request_.kind == ActionKind::kDrag ||
                       request_.kind == ActionKind::kScroll;
  if (pointer && !plan_.points.empty()) {
    bool moved = false;
    if (auto st = HoverFirst(&moved); !st.ok()) return st;
    changed = changed || moved;
  }
  if (changed) {
    if (auto st = verifier.Retake(); !st.ok()) {
      result_.notes.push_back("could not retake the state before the action: " +
                              st.error().message);
    }
  }
  return OkStatus();
}

Status Executor::Perform() {
  const ActionRequest& r = request_;
  Accessibility& ax = *lease_.accessibility;
  // Whatever the path, the app's tree must not be served from a mirror
  // until the app has reacted (platform/atspi/atspi_mirror.h).
  ax.NoteActed(plan_.pid);
  Input* input = lease_.hands->input.get();
  switch (plan_.path) {
    case Path::kAction: {
      result_.via = "accessibility";
      result_.method = "action \"" + plan_.action + "\"";
      Status st = ax.DoAction(*plan_.target, plan_.action, r.timeout);
      if (!st.ok() && st.error().code == ErrorCode::kTimeout) {
        // The app runs the action before answering; a modal dialog it opens
        // holds the answer back. The action was delivered: verify it.
        result_.notes.push_back("the application did not confirm the action within " +
                                std::to_string(r.timeout.count()) +
                                " ms (it may be showing a modal dialog)");
        return OkStatus();
      }
      return st;
    }
    case Path::kSetText:
      result_.via = "editable_text";
      result_.method = "EditableText.SetTextContents";
      return ax.SetText(*plan_.target, r.text, r.timeout);
    case Path::kChoose: {
      result_.via = "accessibility";
      result_.method = "chose option \"" + SanitiseForDisplay(r.text, 60) + "\"";
      auto how = ax.ChooseOption(*plan_.target, r.text, r.timeout);
      if (!how.ok() && how.error().code == ErrorCode::kUnsupported && r.via == Via::kAuto &&
          lease_.hands->input) {
        // The app offers no way to choose through accessibility that reads
        // back: opened and chosen with input instead.
        const std::optional<Rect> window =
            plan_.xwindow ? std::optional<Rect>(AppArea(*plan_.xwindow)) : std::nullopt;
        if (auto p = ClickPoint(*plan_.target, window, lease_.frame)) {
          result_.notes.push_back("accessibility could not choose (" + how.error().message +
                                  "): chose it with input");
          plan_.points = {*p};
          return ChooseByInput();
        }
      }
      if (!how.ok()) return how.error();
      result_.method = "chose " + *how;
      return OkStatus();
    }
    case Path::kSetValue:
      result_.via = "value";
      result_.method = "Value.CurrentValue = " + FormatNumber(plan_.number);
      return ax.SetValue(*plan_.target, plan_.number, r.timeout);
    case Path::kXTest:
      break;
  }
  result_.via = std::string(input->kind());
  result_.points = plan_.points;
  switch (r.kind) {
    case ActionKind::kClick: {
      std::string what = r.count == 2 ? "double " : r.count == 3 ? "triple " : "";
      result_.method =
          what + std::string(MouseButtonName(r.button)) + " click at " + PointText(plan_.points[0]);
      return input->Click(plan_.points[0], r.button, r.count);
    }
    case ActionKind::kTypeText:
    case ActionKind::kSetValue: {
      if (plan_.choose_by_input) return ChooseByInput();
      const bool replace = r.replace || r.kind == ActionKind::kSetValue;
      auto chars = DecodeUtf8(r.text);
      result_.method = "typed " + std::to_string(chars.ok() ? chars->size() : 0) + " characters";
      if (!replace && plan_.target) {
        // A Chromium or Electron page with a DevTools port takes the text
        // whole (engine/cdp_pages.h); focused above like any typing.
        Status inserted = InsertPageText(plan_.snapshot.roots, *plan_.target, r.text, r.timeout);
        if (inserted.ok()) {
          result_.via = "cdp";
          result_.method = "Input.insertText of " + std::to_string(chars.ok() ? chars->size() : 0) +
                           " characters";
          return OkStatus();
        }
        if (inserted.error().code != ErrorCode::kUnsupported) return inserted;
      }
      if (replace) {
        if (auto st = input->PressChord(*ParseKeyChord("ctrl+a")); !st.ok()) return st;
        result_.method = "ctrl+a, then " + result_.method;
        if (r.text.empty()) {
          result_.method = "ctrl+a, Delete";
          return input->PressChord(*ParseKeyChord("Delete"));
        }
      }
      return input->TypeText(r.text, Pacing(r.text));
    }
    case ActionKind::kPressKeys: {
      // Keys pressed into a password field spell the secret as surely as
      // typed text does: the result never names them.
      if (plan_.sensitive) {
        result_.method = "keys " + std::string(kSecretMask) + " (into a password field)";
      } else {
        result_.method = "keys";
        for (const KeyChord& c : plan_.chords) result_.method += " " + c.text;
      }
      for (const KeyChord& c : plan_.chords) {
        if (auto st = input->PressChord(c); !st.ok()) return st;
      }
      return OkStatus();
    }
    case ActionKind::kScroll: {
      result_.method = "scroll";
      if (r.dx != 0) result_.method += " dx=" + std::to_string(r.dx);
      if (r.dy != 0) result_.method += " dy=" + std::to_string(r.dy);
      result_.method += " at " + PointText(plan_.points[0]);
      return input->Scroll(plan_.points[0], r.dx, r.dy);
    }
    case ActionKind::kDrag:
      result_.method = std::string(MouseButtonName(r.button)) + " drag " +
                       PointText(plan_.points[0]) + " → " + PointText(plan_.points[1]);
      return input->Drag(plan_.points[0], plan_.points[1], r.button);
  }
  return OkStatus();
}

Result<ActionResult> Executor::Run() {
  const auto start = Clock::now();
  result_.tool = std::string(ActionToolName(request_.kind));
  result_.display = lease_.display;
  if (auto st = Validate(); !st.ok()) return st.error();
  ActionGate& gate = *lease_.gate;

  if (auto st = Resolve(); !st.ok()) {
    // The policy still hears of an action on an unknown or stale ID.
    if (st.error().code == ErrorCode::kNotFound || st.error().code == ErrorCode::kStale) {
      PlannedAction planned = Planned();
      planned.target.reset();
      GatedAction refused(gate, std::move(planned));
      refused.Record(Outcome(st.error().message));
    }
    return st.error();
  }
  if (auto st = ChoosePath(); !st.ok()) return st.error();
  result_.target = plan_.target;
  if (auto st = AwaitEnabled(); !st.ok()) return st.error();

  VerifyScope scope;
  scope.pid = plan_.pid;
  if (plan_.xwindow) {
    scope.window = plan_.xwindow->id;
    scope.region = AppArea(*plan_.xwindow);
  } else if (plan_.window && plan_.window->bounds) {
    scope.region = plan_.window->bounds;
  } else if (lease_.frame.width > 0) {
    scope.region = Rect{0, 0, lease_.frame.width, lease_.frame.height};
  }
  if (scope.region && lease_.frame.width > 0) {
    scope.region = ClampToFrame(*scope.region, lease_.frame.width, lease_.frame.height);
    if (scope.region->Empty()) scope.region.reset();
  }
  if (!plan_.effect_anywhere) scope.evidence = plan_.evidence;
  scope.moving = request_.kind == ActionKind::kScroll || request_.kind == ActionKind::kDrag;
  if (plan_.target) scope.target_id = plan_.target->id;
  scope.button_press = plan_.on_button && plan_.path == Path::kAction;
  scope.pointer_on_button =
      plan_.on_button && plan_.path == Path::kXTest && request_.kind == ActionKind::kClick;
  Expect();
  if (plan_.expect_value) {
    scope.expect_id = plan_.target->id;
    scope.expect_value = plan_.expect_value;
  }
  Verifier verifier(*lease_.observer, lease_.hands->capture.get(), lease_.hands->windows.get(),
                    plan_.tree ? *plan_.tree : plan_.snapshot, scope, request_.verify,
                    lease_.accessibility, &lease_.hands->animations);
  result_.resolve_ms = MsSince(start);

  PlannedAction planned = Planned();
  planned.screen_hash_before = verifier.screen_hash_before();
  GatedAction action(gate, std::move(planned));
  decision_ = action.decision();
  result_.decision = decision_;
  if (!action.allowed()) {
    action.Record(Outcome(""));
    NoteSaidBefore();
    result_.total_ms = MsSince(start);
    return result_;
  }

  const auto act_start = Clock::now();
  Status st = Prepare(verifier);
  if (st.ok()) {
    verifier.JustBeforeAction();
    st = Perform();
    result_.performed = st.ok();
  }
  result_.act_ms = MsSince(act_start);
  if (!st.ok()) {
    action.Record(Outcome(st.error().message));
    return st.error();
  }
  result_.verification = verifier.Wait(request_.cancelled);
  Status checked = CheckText(verifier);
  if (checked.ok()) checked = JudgeText(verifier);
  JudgeToggle();
  JudgeQuiet();
  if (!checked.ok()) {
    action.Record(Outcome(checked.error().message));
    return checked.error();
  }
  action.Record(Outcome(""));
  NoteSaidBefore();
  result_.total_ms = MsSince(start);
  return result_;
}

}  // namespace

bool PutsText(ActionKind kind) {
  return kind == ActionKind::kTypeText || kind == ActionKind::kSetValue;
}

std::string_view ActionToolName(ActionKind kind) {
  switch (kind) {
    case ActionKind::kClick:
      return "click";
    case ActionKind::kTypeText:
      return "type_text";
    case ActionKind::kPressKeys:
      return "press_keys";
    case ActionKind::kScroll:
      return "scroll";
    case ActionKind::kDrag:
      return "drag";
    case ActionKind::kSetValue:
      return "set_value";
  }
  return "click";
}

Result<Via> ParseVia(std::string_view name) {
  if (name == "auto" || name.empty()) return Via::kAuto;
  if (name == "accessibility" || name == "ax") return Via::kAccessibility;
  if (name == "xtest" || name == "input") return Via::kXTest;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown via \"" + std::string(name) +
                       "\": use auto (the element's accessibility action or text interface "
                       "when it has one, else input), accessibility or xtest");
}

std::string_view ViaName(Via via) {
  switch (via) {
    case Via::kAuto:
      return "auto";
    case Via::kAccessibility:
      return "accessibility";
    case Via::kXTest:
      return "xtest";
  }
  return "auto";
}

std::string ActionTarget::ToString() const {
  if (!id.empty()) return id;
  if (point) return PointText(*point);
  return "";
}

Result<ActionTarget> ParseActionTarget(std::string_view text) {
  ActionTarget t;
  auto bad = [&] {
    return MakeError(ErrorCode::kInvalidArgument,
                     "target \"" + std::string(text) +
                         "\" is neither an element ID (btn_1a2b, from observe or find) nor a "
                         "screen point X,Y");
  };
  if (text.empty()) return bad();
  if (size_t comma = text.find(','); comma != std::string_view::npos) {
    std::string xs(text.substr(0, comma)), ys(text.substr(comma + 1));
    char* end = nullptr;
    errno = 0;
    long x = std::strtol(xs.c_str(), &end, 10);
    if (xs.empty() || *end != '\0') return bad();
    long y = std::strtol(ys.c_str(), &end, 10);
    if (ys.empty() || *end != '\0' || errno == ERANGE || std::labs(x) > 1000000 ||
        std::labs(y) > 1000000) {
      return bad();
    }
    t.point = Point{static_cast<int>(x), static_cast<int>(y)};
    return t;
  }
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return bad();
  }
  t.id = std::string(text);
  return t;
}

Result<ActionResult> PerformAction(Workspace::Lease& lease, const ActionRequest& request) {
  Executor executor(lease, request);
  auto result = executor.Run();
  // Active learning (engine/learner.h): the verified effect on the target.
  if (result.ok() && lease.learner != nullptr && result->performed && result->target &&
      result->verification) {
    lease.learner->RecordAction(*result->target, lease.observer->last_roots(),
                                result->verification->effect, result->notes);
  }
  return result;
}

std::string_view GateVerdictName(GateVerdict verdict) {
  switch (verdict) {
    case GateVerdict::kAllow:
      return "allow";
    case GateVerdict::kDrop:
      return "drop";
    case GateVerdict::kDeny:
      return "deny";
    case GateVerdict::kNeedsConfirmation:
      return "needs_confirmation";
  }
  return "deny";
}

std::string FormatActionResult(const ActionResult& r) {
  std::string out;
  std::string what = r.target ? Describe(*r.target) : std::string();
  if (!r.performed) {
    out = r.tool + (what.empty() ? "" : " " + what) + ": not performed, " +
          std::string(GateVerdictName(r.decision.verdict));
    if (!r.decision.rule.empty()) out += " by rule " + r.decision.rule;
    if (!r.decision.reason.empty()) out += ": " + r.decision.reason;
    out += "\n";
    if (!r.decision.token.empty()) {
      out += "confirmation token: " + r.decision.token +
             " (approve it, then repeat the action with confirmation_token)\n";
    }
    return out;
  }
  char timing[64];
  std::snprintf(timing, sizeof(timing), " in %.0f ms", r.total_ms);
  out = r.tool + (what.empty() ? "" : " " + what) + " via " + r.via + " (" + r.method + ")" +
        timing + "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  if (r.verification) {
    const Verification& v = *r.verification;
    out += "effect: " + v.effect + " — " + v.reason + "\n";
    out += FormatDiff(v.tree, 20);
    out += FormatPixelChange(v);
    for (const auto& w : v.warnings) out += "warning: " + w + "\n";
  }
  return out;
}

}  // namespace uiscope

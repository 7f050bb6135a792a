#include "platform/atspi/atspi_tree.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>

#include "core/app_name.h"
#include "core/ascii.h"
#include "core/escape.h"
#include "core/label_names.h"
#include "core/top_levels.h"
#include "platform/atspi/atspi_constants.h"
#include "platform/process_name.h"
#include "platform/x11/x11_display.h"
#include "platform/x11/x11_windows.h"

namespace uiscope::atspi {
namespace {

// "GtkScrollbar", "AdwGizmo": a GTK or libadwaita type name (see
// ApplyGtk4Quirks).
bool IsGtkTypeName(std::string_view name) {
  return name.size() > 3 && (name.starts_with("Gtk") || name.starts_with("Adw")) &&
         std::isupper(static_cast<unsigned char>(name[3])) &&
         name.find(' ') == std::string_view::npos;
}

// "HistoryView": one word of letters and digits, starting upper-case, with
// another upper-case letter after a lower-case one.
bool IsCamelCaseWord(std::string_view name) {
  if (name.empty() || !std::isupper(static_cast<unsigned char>(name[0]))) return false;
  int humps = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (!std::isalnum(c)) return false;
    if (i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(name[i - 1]))) ++humps;
  }
  return humps >= 1;
}

constexpr char kRegistry[] = "org.a11y.atspi.Registry";
constexpr char kRootPath[] = "/org/a11y/atspi/accessible/root";
constexpr char kAccessibleIface[] = "org.a11y.atspi.Accessible";
constexpr char kApplicationIface[] = "org.a11y.atspi.Application";
constexpr char kComponentIface[] = "org.a11y.atspi.Component";
constexpr char kActionIface[] = "org.a11y.atspi.Action";
constexpr char kTextIface[] = "org.a11y.atspi.Text";
constexpr char kValueIface[] = "org.a11y.atspi.Value";
constexpr char kTableIface[] = "org.a11y.atspi.Table";
constexpr char kSelectionIface[] = "org.a11y.atspi.Selection";
constexpr char kPropertiesIface[] = "org.freedesktop.DBus.Properties";

// Text longer than this is cut: a terminal or document can hold megabytes,
// and the tree is for an agent's context window.
constexpr int kMaxTextChars = 4000;

// Children lists longer than this are screened by extents first: a list of
// 1,000 rows in a scrolled window shows a dozen, and asking each row only
// for its extents (one request) before the full set (four) saves most of the
// walk. GTK3 reports every mapped row as SHOWING, scrolled out or not.
constexpr size_t kLargeChildList = 48;

// Never harm the app observed. A container that says it manages its
// descendants creates an accessible for each child it is asked for:
// LibreOffice Calc's sheet claims 2147483647 children (its 1048576 x 16384
// cells, clamped) and, asked for all of them, stops answering for good and
// grows by gigabytes. Such a container is read by what is in view (the
// Table interface's cells, or children by index) once it claims more than
// kManagedListing children; any container claiming more than
// kMaxChildListing is read the same way. GTK 3 tree views manage their
// descendants too, with a few hundred cells and their column headers among
// the children: under the limit they are listed as before.
constexpr int32_t kManagedListing = 1000;
constexpr int32_t kMaxChildListing = 10000;
// Cells read from one table's visible range, whole rows from the top; and
// children read by index from a huge container that is not a table. Calc
// (7.4) builds a new accessible for every cell it is asked for, once more
// on every observation, and keeps ~6.5 KB of it: its 47 x 23 cells in view
// on a 1920 x 1080 screen cost 7 MB per observe. 300 cells (13 rows of 23
// columns there) keep ten observations within 20 MB, and an agent's
// context free of hundreds of empty cells.
constexpr int kMaxVisibleCells = 300;
constexpr int kIndexWindow = 200;
// The text a walk keeps (names, descriptions, values) and the share of the
// app's deadline after which it adds no more nodes: past either, the walk
// stops growing, finishes what is in flight and says what it cut.
constexpr size_t kMaxTreeBytes = 4u << 20;
constexpr double kWalkBudgetShare = 0.75;

// "A", "Z", "AA", ... for a 0-based column; with the 1-based row: "B2".
std::string CellAddress(int row, int col) {
  std::string letters;
  for (int64_t c = int64_t{col} + 1; c > 0; c = (c - 1) / 26) {
    letters.insert(letters.begin(), static_cast<char>('A' + (c - 1) % 26));
  }
  return letters + std::to_string(int64_t{row} + 1);
}

// U+FFFC, OBJECT REPLACEMENT CHARACTER: where a Text holds an embedded
// object (a child: a link in a paragraph, a <select>'s list).
constexpr std::string_view kEmbeddedObject = "\xEF\xBF\xBC";

// `text` without embedded-object characters; "" if nothing else is left but
// white space. An agent cannot read U+FFFC, and a value of only that says
// nothing.
std::string WithoutEmbeddedObjects(std::string text) {
  for (size_t at = text.find(kEmbeddedObject); at != std::string::npos;
       at = text.find(kEmbeddedObject, at)) {
    text.erase(at, kEmbeddedObject.size());
  }
  const bool blank = std::all_of(text.begin(), text.end(), [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
  });
  if (blank) text.clear();
  return text;
}

// Code points in UTF-8 `s` (bytes that do not continue a character).
size_t CodePoints(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Cuts `s` to at most `max` bytes on a UTF-8 character boundary; true if cut.
bool CutUtf8(std::string* s, size_t max) {
  if (s->size() <= max) return false;
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>((*s)[end]) & 0xC0) == 0x80) --end;
  s->resize(end);
  return true;
}

MessagePtr PropertyGet(const ObjectRef& ref, const char* iface, const char* prop) {
  MessagePtr m = NewMethodCall(ref.bus, ref.path, kPropertiesIface, "Get");
  dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &prop,
                           DBUS_TYPE_INVALID);
  return m;
}

MessagePtr PropertyGetAll(const ObjectRef& ref, const char* iface) {
  MessagePtr m = NewMethodCall(ref.bus, ref.path, kPropertiesIface, "GetAll");
  dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &iface, DBUS_TYPE_INVALID);
  return m;
}

bool IsReturn(DBusMessage* reply) {
  return reply != nullptr && dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_METHOD_RETURN;
}

// Number formatting for Value.CurrentValue: "25", "0.75", not "25.000000".
std::string FormatNumber(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.6g", v);
  }
  return buf;
}

// Roles (AT-SPI names) whose Text interface holds the value an agent wants.
bool WantsText(std::string_view role) {
  return role == "entry" || role == "text" || role == "terminal" || role == "spin button" ||
         role == "paragraph" || role == "combo box" || role == "editbar" || role == "static" ||
         role == "heading" || role == "caption";
}
// Roles whose text is read when they have no name and no children: some
// engines expose a label's, a document's, a list item's or a status bar's
// text only through the Text interface, and an agent must read the result
// of its action from the tree. Named ones carry their text as the name
// already; a container's text is its children's (Chromium's is one U+FFFC
// per child), read from them.
bool MayHoldText(std::string_view role) {
  return role == "label" || role == "document text" || role == "document frame" ||
         role == "document email" || role == "article" || role == "block quote" ||
         role == "list item" || role == "table cell" || role == "status bar" ||
         role == "tool tip" || role == "notification" || role == "description value";
}
bool WantsNumericValue(std::string_view role) {
  return role == "slider" || role == "spin button" || role == "scroll bar" ||
         role == "progress bar" || role == "level bar" || role == "dial";
}
bool ClipsChildren(std::string_view role) { return role == "viewport" || role == "scroll pane"; }

StateSet MapStates(uint32_t lo, uint32_t hi, bool password) {
  StateSet s;
  auto has = [&](StateBit b) { return HasState(lo, hi, b); };
  s.Set(State::kEnabled, has(StateBit::kEnabled) || has(StateBit::kSensitive));
  s.Set(State::kFocused, has(StateBit::kFocused));
  s.Set(State::kFocusable, has(StateBit::kFocusable));
  s.Set(State::kChecked, has(StateBit::kChecked));
  s.Set(State::kSelected, has(StateBit::kSelected));
  s.Set(State::kExpanded, has(StateBit::kExpanded));
  s.Set(State::kExpandable, has(StateBit::kExpandable));
  s.Set(State::kEditable, has(StateBit::kEditable) && !has(StateBit::kReadOnly));
  s.Set(State::kShowing, has(StateBit::kShowing));
  s.Set(State::kVisible, has(StateBit::kVisible));
  s.Set(State::kMultiLine, has(StateBit::kMultiLine));
  s.Set(State::kModal, has(StateBit::kModal));
  s.Set(State::kActive, has(StateBit::kActive));
  s.Set(State::kIndeterminate, has(StateBit::kIndeterminate));
  s.Set(State::kPressed, has(StateBit::kPressed));
  s.Set(State::kDefunct, has(StateBit::kDefunct));
  s.Set(State::kPassword, password);
  return s;
}

// The normalised role of an AT-SPI role number. RoleFromAtspiName normalises
// and hashes a string; the walk needs the role of every node, so the numbers
// are mapped once. Only "text" and "entry" depend on the states.
Role NormalisedRole(uint32_t atspi_role, StateSet states) {
  static const std::array<Role, kRoleNames.size()> kTable = [] {
    std::array<Role, kRoleNames.size()> table{};
    for (size_t i = 0; i < kRoleNames.size(); ++i) table[i] = RoleFromAtspiName(kRoleNames[i]);
    return table;
  }();
  std::string_view name = RoleName(atspi_role);
  if (name == "text" || name == "entry") {
    return RoleFromAtspiName(name, states.Has(State::kEditable), states.Has(State::kMultiLine));
  }
  return atspi_role < kTable.size() ? kTable[atspi_role] : Role::kUnknown;
}

// The AT-SPI role number of a role name (RoleName's inverse); 0 for a name
// it does not know.
uint32_t RoleNumber(std::string_view name) {
  for (size_t i = 0; i < kRoleNames.size(); ++i) {
    if (kRoleNames[i] == name) return static_cast<uint32_t>(i);
  }
  return 0;
}

bool IsPasswordRole(uint32_t atspi_role) { return RoleName(atspi_role) == "password text"; }

// GTK 3 reports G_MININT coordinates for widgets it has not placed (rows of
// a long list that were never scrolled into view).
bool Placed(const Rect& r) {
  return r.x != std::numeric_limits<int32_t>::min() && r.y != std::numeric_limits<int32_t>::min();
}

// Names and descriptions are labels, read on one line: leading and trailing
// white space is dropped and a run of spaces and tabs inside becomes one
// space. Mousepad (0.5) pads its menu items' names for the accelerator
// column ("Save      "; the shortcut itself is the Action's key binding,
// not in the name). Line breaks inside are kept: a label may have lines.
void NormaliseSpace(std::string* s) {
  std::string out;
  out.reserve(s->size());
  bool pending_space = false;
  for (char c : *s) {
    if (c == ' ' || c == '\t') {
      pending_space = !out.empty();
      continue;
    }
    if (c == '\n' || c == '\r') {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      pending_space = false;
    } else if (pending_space && out.back() != '\n') {
      out += ' ';
    }
    pending_space = false;
    out += c;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  size_t start = 0;
  while (start < out.size() && (out[start] == '\n' || out[start] == '\r')) ++start;
  *s = out.substr(start);
}

// The label leaves inside a control, through unnamed boxes (GTK 4 puts a
// menu button's label in a box beside its arrow).
void CollectLabels(std::vector<Node>& nodes, std::vector<Node*>& out) {
  for (Node& n : nodes) {
    if ((n.role == Role::kLabel || n.role == Role::kText) && n.children.empty() &&
        !n.name.empty()) {
      out.push_back(&n);
    } else if (n.role == Role::kPanel && n.name.empty() && n.actions.empty()) {
      CollectLabels(n.children, out);
    }
  }
}

// Drops the label leaves named `name` and the unnamed boxes that held
// nothing else.
void DropLabelsNamed(std::vector<Node>& nodes, const std::string& name) {
  std::erase_if(nodes, [&](Node& n) {
    if ((n.role == Role::kLabel || n.role == Role::kText) && n.children.empty()) {
      return n.name == name;
    }
    if (n.role != Role::kPanel || !n.name.empty() || !n.actions.empty() || n.children.empty()) {
      return false;
    }
    DropLabelsNamed(n.children, name);
    return n.children.empty();
  });
}

// `label` without its mnemonic marks: "_Clear" -> "Clear", "a__b" -> "a_b".
std::string WithoutMnemonic(std::string_view label) {
  std::string out;
  for (size_t i = 0; i < label.size(); ++i) {
    if (label[i] == '_' && i + 1 < label.size()) ++i;
    out += label[i];
  }
  return out;
}

// A control shows its name a second time in the label inside it; GTK 4
// (4.8, gtkatcontext.c) even names a button with use-underline by its label
// twice, the label property as written and then its label child's text:
// gnome-calculator's keys are "7 7", "mod mod", a "_Clear" button is
// "_Clear Clear".
// The control is named by its label once, an unnamed one by its only label
// (gnome-calculator's "π", whose markup label gives the button no name),
// and the label that repeats the name is dropped: it is the same thing.
void FoldRepeatedLabel(Node& control) {
  if (!IsLabelledControl(control.role)) return;
  std::vector<Node*> labels;
  CollectLabels(control.children, labels);
  if (labels.size() != 1) return;
  const std::string text = labels[0]->name;
  const std::string_view name = control.name;
  const bool doubled = name.size() > text.size() + 1 && name.ends_with(text) &&
                       name[name.size() - text.size() - 1] == ' ' &&
                       WithoutMnemonic(name.substr(0, name.size() - text.size() - 1)) == text;
  if (control.name.empty() || doubled) control.name = text;
  if (control.name == text) DropLabelsNamed(control.children, text);
}

// What the walk does differently for a toolkit's bridge (see Quirks()).
struct ToolkitQuirks {
  // Ask for the Accessible properties with one Properties.GetAll per node;
  // otherwise with one Properties.Get per property.
  bool get_all = true;
  // Qt 5 Widgets: tabs report the current tab as "focused", not "selected";
  // a menu-bar title is a "menu item" holding its popup menu; and scroll
  // areas are plain fillers, so their clipping is found by geometry.
  bool qt = false;
  // GTK 4: extents are window-relative (the caller shifts them by the X
  // window's origin) and asked for as such; widgets below the window are
  // never "showing" (4.8), hidden stack pages keep their box, unnamed
  // widgets are named after their type, notebook tabs "Tab".
  bool gtk4 = false;
  // Chromium (and Electron): children come in DOM order, which is the
  // reading order; tab panels are "scroll pane"s; <label> text is a child
  // text leaf; the browser's own views leave empty, unnamed panels.
  bool chromium = false;
  // GTK 2 (GAIL): the items of an open menu, a popup window of its own, are
  // never "showing" (only "visible"), and keep their state and extents when
  // the menu closes; the X server says which popups are open.
  bool gtk2 = false;
  // LibreOffice (VCL, any plugin): the cells of a sheet, read through the
  // Table interface (ReadTableRange), are "table cell"s that implement Text,
  // and answer a text range past their end with "". So a cell is not asked
  // its role, its interfaces, its description or child count (none; notes
  // are an attribute), and its text is asked by length first (one request
  // for an empty cell, where GetText(0, max) gave "" and then the length was
  // asked anyway): 5 requests per empty cell instead of 8, on the ~300 cells
  // of a sheet in view (issue 15's observe of Calc).
  bool libreoffice = false;
};

// One object of the walk, filled as replies arrive.
struct RawNode {
  ObjectRef ref;
  int parent = -1;
  int depth = 0;
  uint32_t role = 0;                 // AT-SPI role number
  Role normalised = Role::kUnknown;  // set when stage 1 completes
  StateSet states;                   // set when stage 1 completes
  std::string name;
  std::string description;
  std::string value;
  uint32_t state_lo = 0;
  uint32_t state_hi = 0;
  int32_t child_count = 0;
  Rect extents;
  bool has_extents = false;
  Rect clip;  // the area where this node's children can be seen
  std::vector<std::string> actions;
  std::string key_binding;  // the first non-empty one of GetActions
  // An unnamed field's LABELLED_BY target (RequestLabelledBy): the node of
  // the walk it is, else its name as read on its own.
  int label_node = -1;
  std::string label_name;
  std::vector<int> children;
  int ordinal = 0;           // position among the parent's children
  bool in_document = false;  // below a "document web" (Chromium's page content)
  ObjectRef hit;             // GTK 4 stacks: the object at the centre (ProbeStack)
  int cell_row = -1;         // a cell read through its table's Table interface
  int cell_col = -1;
  bool probe_sent = false;
  int stage1_pending = 0;
  bool dead = false;
  bool pruned = false;
};

// How long an application may answer nothing at the start of its walk
// before the other applications are walked first (it then gets the rest of
// its time). Toolkits answer from their main loop, within milliseconds when
// it runs: silence this long means the loop is blocked.
constexpr auto kFirstReplyProbe = std::chrono::milliseconds(250);

// "gedit (pid 42)"; the bus name when the app has not told its name.
std::string AppLabel(const AppInfo& app, const std::string& bus = "") {
  // An app's name is its own text and goes into errors and warnings an agent
  // or a person reads: escaped, so it cannot add lines to them.
  std::string name = !app.name.empty() ? app.name : !bus.empty() ? bus : "(no name)";
  return EscapeForDisplay(name, 60) + " (pid " + std::to_string(app.pid) + ")";
}

// A pipelined walk of one application's tree.
class Walker {
 public:
  // `popups`: the open popup windows' boxes (X11Display::MappedPopups), for
  // GTK 2's menus.
  Walker(DbusConnection& conn, const TreeRequest& request, Rect screen, ToolkitQuirks quirks,
         std::vector<Rect> popups = {})
      : pipeline_(conn),
        request_(request),
        screen_(screen),
        quirks_(quirks),
        popups_(std::move(popups)) {}

  // With `first_reply_by`, gives up then when the app has answered nothing
  // (silent() is true): see Tree().
  Status Run(const ObjectRef& root, Clock::time_point deadline,
             Clock::time_point first_reply_by = Clock::time_point::max()) {
    const auto now = Clock::now();
    grow_until_ =
        now + std::chrono::duration_cast<Clock::duration>((deadline - now) * kWalkBudgetShare);
    Discover(root, -1, 0);
    return pipeline_.Run(deadline, first_reply_by);
  }

  bool root_answered() const { return !nodes_.empty() && nodes_[0].stage1_pending == 0; }
  bool root_dead() const { return !nodes_.empty() && nodes_[0].dead; }
  // The app itself went away during the walk: the bus answered for it
  // (NoReply, ServiceUnknown) or its private socket closed.
  bool app_gone() const { return app_gone_ || pipeline_.disconnected(); }
  bool silent() const { return pipeline_.replies() == 0; }
  bool capped() const { return capped_; }
  // Stopped by its deadline: what it left out depends on how fast the app
  // answered this time, not on the app's state.
  bool cut_short() const { return cut_time_; }
  // Why the walk stopped growing, and what it read partially, in words.
  std::vector<std::string> Cuts() const {
    std::vector<std::string> cuts = notes_;
    if (cut_nodes_) {
      cuts.push_back("tree capped at " + std::to_string(request_.max_nodes) + " nodes");
    }
    if (cut_depth_) {
      cuts.push_back("tree capped at depth " + std::to_string(request_.max_depth));
    }
    if (cut_bytes_) {
      cuts.push_back("tree capped at " + std::to_string(kMaxTreeBytes >> 20) + " MiB of text");
    }
    if (cut_time_) {
      cuts.push_back("walk cut short to keep within the " +
                     std::to_string(request_.timeout.count()) +
                     " ms deadline (a busy app or a very large tree): nodes after " +
                     std::to_string(nodes_.size()) + " were not read");
    }
    if (cut_text_ > 0) {
      cuts.push_back(std::to_string(cut_text_) + " names or descriptions cut at " +
                     std::to_string(kMaxTextChars) + " bytes");
    }
    if (cut_values_ > 0) {
      cuts.push_back(std::to_string(cut_values_) + " texts (values) cut at " +
                     std::to_string(kMaxTextChars) + " characters");
    }
    return cuts;
  }
  int revisits() const { return revisits_; }
  size_t requests() const { return pipeline_.sent(); }

  // Builds the node tree of the shown nodes.
  Node Build(const AppInfo& app) const { return BuildNode(0, app); }

  // --- Reading parts of a stored tree again (RefreshStored) ---
  // `path`: the stored nodes from the application down to an object, root
  // first. The object is read again with its subtree, in the context a
  // full walk gives it: its ancestors are entered as nodes already read,
  // from what the stored tree kept of each (role, states, box), and the
  // context derived from them the way Stage1Done derives it (the clip of
  // viewports, menus and Qt's fillers; Chromium's in_document). Returns the
  // object's index; -1 when it is already part of this read.
  int QueueSubtree(const std::vector<const Node*>& path) {
    int parent = -1;
    for (size_t d = 0; d + 1 < path.size(); ++d) {
      parent = Seed(*path[d], parent, static_cast<int>(d));
    }
    const Node& target = *path.back();
    return Discover(ObjectRef{target.ref.owner, target.ref.path}, parent,
                    static_cast<int>(path.size()) - 1);
  }
  // Asks where `ref` lies now; `done` gets its box as a walk would store
  // it (nullopt: none, or no answer: `answered` false).
  void QueueBox(const ObjectRef& ref,
                std::function<void(bool answered, std::optional<Rect> box)> done) {
    pipeline_.Add(ExtentsCall(ref), [done = std::move(done)](DBusMessage* r) {
      Rect e;
      bool has = false;
      ReadExtents(r, &e, &has);
      std::optional<Rect> box;
      if (has && !e.Empty() && Placed(e)) box = e;
      done(IsReturn(r), box);
    });
  }
  Status RunQueued(Clock::time_point deadline) {
    grow_until_ = deadline;
    return pipeline_.Run(deadline);
  }
  // The object at `idx` was read whole: it answered, is alive, and every
  // request of its first stage came back.
  bool ReadWhole(int idx) const { return nodes_[idx].stage1_pending == 0 && !nodes_[idx].dead; }
  // Pruned: a walk would not show it (not showing, out of view, a quirk).
  bool Pruned(int idx) const { return nodes_[idx].pruned; }
  Node BuildAt(int idx, const AppInfo& app) const { return BuildNode(idx, app); }
  bool chromium() const { return quirks_.chromium; }

 private:
  // An ancestor of an object read again (QueueSubtree), from the stored
  // tree; once per object.
  int Seed(const Node& stored, int parent, int depth) {
    const ObjectRef ref{stored.ref.owner, stored.ref.path};
    if (auto known = index_.find(ref); known != index_.end()) return known->second;
    seen_.insert(ref);
    const int idx = static_cast<int>(nodes_.size());
    index_.emplace(ref, idx);
    nodes_.emplace_back();
    RawNode& n = nodes_.back();
    n.ref = ref;
    n.parent = parent;
    n.depth = depth;
    n.role = RoleNumber(stored.toolkit_role);
    n.normalised = stored.role;
    n.states = stored.states;
    n.name = stored.name;
    if (stored.bounds) {
      n.extents = *stored.bounds;
      n.has_extents = true;
    }
    // The clip, as Stage1Done sets it.
    const Rect parent_clip = ParentClip(n);
    n.clip = parent_clip;
    if (parent >= 0) {
      if (quirks_.qt) ClipToFiller(n, nodes_[parent]);
      if (quirks_.gtk4 && depth == 1 && n.has_extents) n.clip = n.extents;
      if (quirks_.chromium) {
        n.in_document =
            nodes_[parent].in_document || RoleName(nodes_[parent].role) == "document web";
      }
    }
    ClipChildren(n, parent_clip);
    return idx;
  }

  // Adds the object as a node and asks for its stage-1 data; returns its
  // index, or -1 when it was seen before or the walk has stopped growing.
  // A cell of a table read through its Table interface, at row, column.
  struct CellAt {
    int32_t row = -1;
    int32_t col = -1;
  };

  int Discover(const ObjectRef& ref, int parent, int depth, int ordinal = 0,
               const Rect* known_extents = nullptr, const CellAt* cell = nullptr) {
    if (!seen_.insert(ref).second) {
      ++revisits_;  // the same object reached twice: a cycle or a shared child
      return -1;
    }
    if (static_cast<int>(nodes_.size()) >= request_.max_nodes) {
      capped_ = cut_nodes_ = true;
      return -1;
    }
    if (bytes_ > kMaxTreeBytes) {
      capped_ = cut_bytes_ = true;
      return -1;
    }
    if (parent >= 0 && Clock::now() > grow_until_) {
      capped_ = cut_time_ = true;
      return -1;
    }
    int idx = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
    index_.emplace(ref, idx);
    RawNode& n = nodes_.back();
    n.ref = ref;
    n.parent = parent;
    n.depth = depth;
    n.ordinal = ordinal;
    if (known_extents != nullptr) {
      n.extents = *known_extents;
      n.has_extents = true;
    }
    if (parent >= 0) nodes_[parent].children.push_back(idx);
    if (cell != nullptr) {
      n.cell_row = cell->row;
      n.cell_col = cell->col;
    }
    // A LibreOffice sheet's cell is a table cell (ToolkitQuirks::libreoffice).
    const bool known_role = cell != nullptr && quirks_.libreoffice;
    if (known_role) n.role = kRoleTableCell;

    // Stage 1: everything needed to decide whether the node is shown, all at once.
    bool want_extents = depth > 0 && known_extents == nullptr;
    n.stage1_pending =
        (want_extents ? 2 : 1) + (known_role ? 0 : 1) + (known_role || quirks_.get_all ? 1 : 3);
    if (known_role) {
      // Its name only: a sheet's cells have no description (notes are an
      // attribute) and no children, and GetAll gathers seven properties.
      pipeline_.Add(PropertyGet(ref, kAccessibleIface, "Name"), [this, idx](DBusMessage* r) {
        ParseAccessibleProp(idx, "Name", r);
        Stage1Done(idx);
      });
    } else if (quirks_.get_all) {
      pipeline_.Add(PropertyGetAll(ref, kAccessibleIface), [this, idx](DBusMessage* r) {
        ParseAccessibleProps(idx, r);
        Stage1Done(idx);
      });
    } else {
      for (const char* prop : {"Name", "Description", "ChildCount"}) {
        pipeline_.Add(PropertyGet(ref, kAccessibleIface, prop), [this, idx, prop](DBusMessage* r) {
          ParseAccessibleProp(idx, prop, r);
          Stage1Done(idx);
        });
      }
    }
    if (!known_role) {
      pipeline_.Add(NewMethodCall(ref.bus, ref.path, kAccessibleIface, "GetRole"),
                    [this, idx](DBusMessage* r) {
                      DBusMessageIter it;
                      if (IsReturn(r) && dbus_message_iter_init(r, &it)) {
                        ReadUint32(&it, &nodes_[idx].role);
                      } else {
                        MarkIfDead(idx, r);
                      }
                      Stage1Done(idx);
                    });
    }
    pipeline_.Add(NewMethodCall(ref.bus, ref.path, kAccessibleIface, "GetState"),
                  [this, idx](DBusMessage* r) {
                    ParseState(idx, r);
                    Stage1Done(idx);
                  });
    if (want_extents) {
      pipeline_.Add(ExtentsCall(ref), [this, idx](DBusMessage* r) {
        ReadExtents(r, &nodes_[idx].extents, &nodes_[idx].has_extents);
        Stage1Done(idx);
      });
    }
    return idx;
  }

  MessagePtr ExtentsCall(const ObjectRef& ref) const {
    MessagePtr m = NewMethodCall(ref.bus, ref.path, kComponentIface, "GetExtents");
    // GTK 4 has no screen coordinates: 4.8 answers a screen request with
    // window coordinates plus a "Screen coordinates not supported" warning on
    // the app's stderr for every call; later versions answer (0, 0).
    uint32_t coord = static_cast<uint32_t>(quirks_.gtk4 ? CoordType::kWindow : CoordType::kScreen);
    dbus_message_append_args(m.get(), DBUS_TYPE_UINT32, &coord, DBUS_TYPE_INVALID);
    return m;
  }

  void MarkIfDead(int idx, DBusMessage* r) {
    if (IsDeadObjectError(r)) nodes_[idx].dead = true;
    if (IsAppGoneError(r)) app_gone_ = true;
  }

  void ParseAccessibleProps(int idx, DBusMessage* r) {
    if (!IsReturn(r)) {
      MarkIfDead(idx, r);
      return;
    }
    RawNode& n = nodes_[idx];
    DBusMessageIter it, dict;
    if (!dbus_message_iter_init(r, &it) || dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) {
      return;
    }
    dbus_message_iter_recurse(&it, &dict);
    while (dbus_message_iter_get_arg_type(&dict) == DBUS_TYPE_DICT_ENTRY) {
      DBusMessageIter entry;
      dbus_message_iter_recurse(&dict, &entry);
      std::string key;
      if (ReadString(&entry, &key)) {
        if (key == "Name") {
          ReadVariantString(&entry, &n.name);
        } else if (key == "Description") {
          ReadVariantString(&entry, &n.description);
        } else if (key == "ChildCount") {
          ReadVariantInt32(&entry, &n.child_count);
        }
      }
      dbus_message_iter_next(&dict);
    }
  }

  // One Properties.Get reply (a variant) for `prop`.
  void ParseAccessibleProp(int idx, std::string_view prop, DBusMessage* r) {
    DBusMessageIter it;
    if (!IsReturn(r) || !dbus_message_iter_init(r, &it)) {
      MarkIfDead(idx, r);
      return;
    }
    RawNode& n = nodes_[idx];
    if (prop == "Name") {
      ReadVariantString(&it, &n.name);
    } else if (prop == "Description") {
      ReadVariantString(&it, &n.description);
    } else if (prop == "ChildCount") {
      ReadVariantInt32(&it, &n.child_count);
    }
  }

  void ParseState(int idx, DBusMessage* r) {
    DBusMessageIter it, arr;
    if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
        dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) {
      MarkIfDead(idx, r);
      return;
    }
    dbus_message_iter_recurse(&it, &arr);
    uint32_t words[2] = {0, 0};
    for (int i = 0; i < 2 && ReadUint32(&arr, &words[i]); ++i) {
    }
    nodes_[idx].state_lo = words[0];
    nodes_[idx].state_hi = words[1];
  }

  // No Component interface (an error reply) leaves a node without bounds.
  static void ReadExtents(DBusMessage* r, Rect* out, bool* has) {
    DBusMessageIter it, st;
    if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
        dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_STRUCT) {
      return;
    }
    dbus_message_iter_recurse(&it, &st);
    int32_t v[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) {
      if (!ReadInt32(&st, &v[i])) return;
    }
    *out = Rect{v[0], v[1], v[2], v[3]};
    *has = true;
  }

  // Decides whether a node is shown, then asks for what only shown nodes need.
  void Stage1Done(int idx) {
    if (--nodes_[idx].stage1_pending != 0) return;
    RawNode& n = nodes_[idx];
    if (n.dead) return;
    NormaliseSpace(&n.name);
    NormaliseSpace(&n.description);
    cut_text_ += CutUtf8(&n.name, kMaxTextChars) + CutUtf8(&n.description, kMaxTextChars);
    bytes_ += n.name.size() + n.description.size();
    std::string_view role = RoleName(n.role);
    const bool password = IsPasswordRole(n.role);
    n.states = MapStates(n.state_lo, n.state_hi, password);
    n.normalised = n.depth == 0 ? Role::kApplication : NormalisedRole(n.role, n.states);
    const Rect parent_clip = ParentClip(n);
    n.clip = parent_clip;
    if (quirks_.qt && n.parent >= 0) ApplyQtQuirks(n, nodes_[n.parent]);
    if (quirks_.gtk4 && n.depth > 0 && ApplyGtk4Quirks(n)) {
      n.pruned = true;
      return;
    }
    if (quirks_.chromium && n.parent >= 0 && ApplyChromiumQuirks(n, nodes_[n.parent])) {
      n.pruned = true;
      return;
    }
    if (quirks_.gtk2 && InOpenPopup(n)) n.states.Set(State::kShowing);
    if (n.depth > 0 && !request_.include_hidden) {
      bool showing = n.states.Has(State::kShowing);
      // A zero-sized or unplaced node cannot be judged by geometry; keep it
      // when the toolkit says it is showing.
      bool placed = n.has_extents && !n.extents.Empty();
      if (!showing || (placed && Intersect(n.extents, parent_clip).Empty())) {
        n.pruned = true;
        return;
      }
    }
    ClipChildren(n, parent_clip);
    const ObjectRef ref = n.ref;
    if (quirks_.gtk4 && n.parent >= 0 && !request_.include_hidden) {
      const RawNode& parent = nodes_[n.parent];
      if (parent.children.size() > 1 && parent.has_extents && n.has_extents && !n.extents.Empty() &&
          n.extents == parent.extents) {
        ProbeStack(n.parent);
      }
    }
    if (n.child_count > 0 && n.depth < request_.max_depth) {
      const bool manages = HasState(n.state_lo, n.state_hi, StateBit::kManagesDescendants);
      if (n.child_count > kMaxChildListing || (manages && n.child_count > kManagedListing)) {
        ReadInView(idx, manages);
      } else {
        pipeline_.Add(NewMethodCall(ref.bus, ref.path, kAccessibleIface, "GetChildren"),
                      [this, idx](DBusMessage* r) { OnChildren(idx, r); });
      }
    } else if (n.child_count > 0) {
      capped_ = cut_depth_ = true;
    }
    if (n.depth > 0 && n.name.empty() && IsLabelNamedRole(n.normalised)) RequestLabelledBy(idx);
    bool wants_actions = request_.fetch_actions && n.depth > 0 &&
                         (IsInteractiveRole(n.normalised) || n.normalised == Role::kLink);
    bool wants_value =
        request_.fetch_values && !password && (WantsNumericValue(role) || ReadsText(n));
    if (!wants_actions && !wants_value) return;
    if (quirks_.libreoffice && n.cell_row >= 0 && !wants_actions) {
      RequestTextByLength(idx);  // a sheet's cell: it has Text (ToolkitQuirks::libreoffice)
      return;
    }
    // Ask which interfaces the object has before calling into one: GTK's
    // bridge answers a call on a missing interface with a CRITICAL on the
    // app's stderr (impl_GetActions: assertion 'ATK_IS_ACTION' failed), and
    // list rows and tabs are interactive without implementing Action.
    pipeline_.Add(
        NewMethodCall(ref.bus, ref.path, kAccessibleIface, "GetInterfaces"),
        [this, idx, wants_actions, wants_value](DBusMessage* r) {
          std::vector<std::string> ifaces;
          DBusMessageIter it;
          if (!IsReturn(r) || !dbus_message_iter_init(r, &it) || !ReadStringArray(&it, &ifaces)) {
            return;
          }
          auto has = [&](const char* name) {
            return std::find(ifaces.begin(), ifaces.end(), name) != ifaces.end();
          };
          if (wants_actions && has(kActionIface)) RequestActions(idx);
          if (wants_value) RequestValue(idx, has(kValueIface), has(kTextIface));
        });
  }

  // A field without a name may be named by a label through a relation
  // alone: GTK 3's file chooser entry has no name and a LABELLED_BY
  // relation to its "Name:" label (gtkfilechooserwidget.c), as has any GTK 3
  // entry whose label was tied to it with atk_object_add_relationship.
  // The relation set, only for unnamed fields; the first target's name is
  // the walk's when the walk holds the label (a sibling of the field, as a
  // rule), else one more request. (LABEL_FOR, the other direction, would
  // cost a request per label; GTK and Qt set both when they set one.)
  void RequestLabelledBy(int idx) {
    const ObjectRef ref = nodes_[idx].ref;
    pipeline_.Add(
        NewMethodCall(ref.bus, ref.path, kAccessibleIface, "GetRelationSet"),
        [this, idx](DBusMessage* r) {
          DBusMessageIter it, relations;
          if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
              dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) {
            return;
          }
          dbus_message_iter_recurse(&it, &relations);
          ObjectRef target;
          for (; dbus_message_iter_get_arg_type(&relations) == DBUS_TYPE_STRUCT && target.IsNull();
               dbus_message_iter_next(&relations)) {
            DBusMessageIter relation, targets;
            dbus_message_iter_recurse(&relations, &relation);
            uint32_t type = 0;
            if (!ReadUint32(&relation, &type) || type != kRelationLabelledBy ||
                dbus_message_iter_get_arg_type(&relation) != DBUS_TYPE_ARRAY) {
              continue;
            }
            dbus_message_iter_recurse(&relation, &targets);
            if (dbus_message_iter_get_arg_type(&targets) != DBUS_TYPE_STRUCT ||
                !ReadObjectRef(&targets, &target)) {
              target = ObjectRef{};
            }
          }
          if (target.IsNull() || target == nodes_[idx].ref) return;
          if (target.bus.empty()) target.bus = nodes_[idx].ref.bus;
          if (auto known = index_.find(target); known != index_.end()) {
            nodes_[idx].label_node = known->second;
            return;
          }
          pipeline_.Add(PropertyGet(target, kAccessibleIface, "Name"), [this, idx](DBusMessage* r) {
            DBusMessageIter it;
            std::string name;
            if (!IsReturn(r) || !dbus_message_iter_init(r, &it) || !ReadVariantString(&it, &name)) {
              return;
            }
            NormaliseSpace(&name);
            cut_text_ += CutUtf8(&name, kMaxTextChars);
            bytes_ += name.size();
            nodes_[idx].label_name = std::move(name);
          });
        });
  }

  // Where the node's parent lets it be seen: the parent's clip, or the
  // screen for the items of a menu.
  Rect ParentClip(const RawNode& n) const {
    if (n.parent < 0) return screen_;
    // The items of an open menu lie in a popup window of their own, outside
    // the boxes of the menu bar and of any viewport around it (LibreOffice
    // 7.4's gtk3 menu bar sits in a scroll pane's viewport one row high:
    // its open menus were pruned whole as scrolled out): only the screen
    // clips them. GTK 4's window-relative boxes keep their window's clip.
    if (!quirks_.gtk4 && RoleName(nodes_[n.parent].role) == "menu") return screen_;
    return nodes_[n.parent].clip;
  }

  // A viewport or scroll pane shows its children within its own box.
  static void ClipChildren(RawNode& n, const Rect& parent_clip) {
    if (ClipsChildren(RoleName(n.role)) && n.has_extents && !n.extents.Empty()) {
      n.clip = Intersect(parent_clip, n.extents);
    }
  }

  // Qt's plain fillers clip what overflows them (see ApplyQtQuirks).
  static void ClipToFiller(RawNode& n, const RawNode& parent) {
    if (RoleName(parent.role) == "filler" && parent.has_extents && !parent.extents.Empty() &&
        n.has_extents && Placed(n.extents) && Intersect(n.extents, parent.extents) != n.extents) {
      n.clip = Intersect(n.clip, parent.extents);
    }
  }

  // GTK 2 (gailwidget.c, 2.24) marks the items of an open menu "visible"
  // and never "showing", and they keep that state and their extents once
  // the menu closes: GIMP 2.10's open menus were pruned whole. A menu is an
  // override-redirect popup window; an item that lies inside an open one is
  // showing.
  bool InOpenPopup(const RawNode& n) const {
    if (n.states.Has(State::kShowing) || !n.states.Has(State::kVisible) || !n.has_extents ||
        n.extents.Empty() || !Placed(n.extents)) {
      return false;
    }
    return std::any_of(popups_.begin(), popups_.end(),
                       [&](const Rect& popup) { return popup.Contains(n.extents); });
  }

  // Qt 5 Widgets (qaccessiblewidgets / complexwidgets, 5.15):
  // - QAccessibleTabButton copies the tab bar's states and sets "focused"
  //   on the current tab, never "selected": the current tab is selected, and
  //   a tab has the keyboard focus when its tab bar has it.
  // - A menu-bar title ("File") is a "menu item" whose child is its popup
  //   menu; GTK, ATK and ARIA call an item that opens a submenu a menu.
  // - QScrollArea and its viewport are plain fillers, and Qt reports every
  //   visible widget as showing, scrolled out or not. A child widget is
  //   clipped by its parent widget, so a node that overflows a plain filler
  //   is scrolled content whose visible part is the filler's extents. (Only
  //   fillers: a menu's or a combo box's popup is a window of its own,
  //   outside its parent's box, and must not be clipped by it.)
  void ApplyQtQuirks(RawNode& n, const RawNode& parent) {
    std::string_view role = RoleName(n.role);
    if (role == "page tab") {
      n.states.Set(State::kSelected, n.states.Has(State::kFocused));
      n.states.Set(State::kFocused, parent.states.Has(State::kFocused));
    } else if (role == "menu item" && n.child_count > 0) {
      n.normalised = Role::kMenu;
    }
    ClipToFiller(n, parent);
  }

  // GTK 4 (gtkatspicontext.c, 4.8):
  // - Only windows are "showing"; the widgets in them are "visible" when
  //   mapped. A visible widget with an allocation is taken as showing, and
  //   the geometry checks prune what is scrolled out.
  // - A widget without a label is named after its type ("GtkScrollbar",
  //   "GtkBuiltinIcon", libadwaita's "AdwLeaflet", an app's own class:
  //   gnome-calculator's "HistoryView"): that is no name. Any "Gtk"/"Adw"
  //   type; for other names only on a generic container, and only a
  //   CamelCase word of two humps or more (a real panel title has spaces
  //   or is one plain word).
  // - Extents are window-relative, so a window clips its content to its own
  //   window-relative box rather than to the screen.
  // - Buttons and check boxes expose their inner parts as children: the
  //   label, which repeats the control's name, and the check indicator (an
  //   unnamed filler). They are dropped (returns true) as GTK 3 and Qt never
  //   show them.
  bool ApplyGtk4Quirks(RawNode& n) {
    if (!n.states.Has(State::kShowing) && n.states.Has(State::kVisible) && n.has_extents &&
        !n.extents.Empty()) {
      n.states.Set(State::kShowing);
    }
    // GtkNotebook labels its tabs, their list and its pages "Tab" and
    // "Tab list" (4.8); a tab's text is in its label child (see BuildNode).
    const std::string_view atspi_role = RoleName(n.role);
    if ((n.name == "Tab" && (atspi_role == "page tab" || atspi_role == "panel")) ||
        (n.name == "Tab list" && atspi_role == "page tab list")) {
      n.name.clear();
    }
    if (IsGtkTypeName(n.name) || (n.normalised == Role::kPanel && IsCamelCaseWord(n.name))) {
      n.name.clear();
    }
    if (n.depth == 1 && n.has_extents && !n.extents.Empty()) n.clip = n.extents;
    const RawNode& parent = nodes_[n.parent];
    const bool in_control =
        parent.normalised == Role::kButton || parent.normalised == Role::kToggleButton ||
        parent.normalised == Role::kCheckBox || parent.normalised == Role::kRadioButton;
    return in_control && ((n.normalised == Role::kLabel && n.name == parent.name) ||
                          (n.normalised == Role::kPanel && n.name.empty() && n.child_count == 0));
  }

  // Chromium (ax_platform_node_auralinux.cc):
  // - ARIA tab panels are exposed as "scroll pane"s; in a web document the
  //   normalised role is tab_panel.
  // - The browser's views (title bar, toolbar, bubbles) leave unnamed,
  //   childless panels of zero size that are "showing": dropped (returns
  //   true), they hold nothing to see or act on.
  bool ApplyChromiumQuirks(RawNode& n, const RawNode& parent) {
    n.in_document = parent.in_document || RoleName(parent.role) == "document web";
    if (n.in_document && n.normalised == Role::kScrollPane) n.normalised = Role::kTabPanel;
    return n.normalised == Role::kPanel && n.name.empty() && n.child_count == 0 &&
           (!n.has_extents || n.extents.Empty());
  }

  // GTK 4.8 never says which child of a stack (a notebook's pages) shows:
  // every page the stack has shown keeps "visible" and the stack's whole
  // box. The stack itself knows: GetAccessibleAtPoint picks through mapped
  // widgets only. A child that fills its parent's box exactly, next to
  // siblings, makes the walk ask the parent once which object is at its
  // centre; BuildNode keeps the filling child that holds it.
  void ProbeStack(int parent_idx) {
    RawNode& parent = nodes_[parent_idx];
    if (parent.probe_sent) return;
    parent.probe_sent = true;
    const ObjectRef& ref = parent.ref;
    MessagePtr m = NewMethodCall(ref.bus, ref.path, kComponentIface, "GetAccessibleAtPoint");
    int32_t x = parent.extents.x + parent.extents.w / 2;
    int32_t y = parent.extents.y + parent.extents.h / 2;
    uint32_t coord = static_cast<uint32_t>(CoordType::kWindow);
    dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &x, DBUS_TYPE_INT32, &y, DBUS_TYPE_UINT32,
                             &coord, DBUS_TYPE_INVALID);
    pipeline_.Add(std::move(m), [this, parent_idx](DBusMessage* r) {
      DBusMessageIter it;
      if (IsReturn(r) && dbus_message_iter_init(r, &it)) {
        ReadObjectRef(&it, &nodes_[parent_idx].hit);
      }
    });
  }

  // The child of `parent` (among those filling its box) whose subtree holds
  // the object the stack reported at its centre; -1 when unknown.
  int ShownStackChild(const RawNode& parent) const {
    if (parent.hit.IsNull()) return -1;
    auto found = index_.find(parent.hit);
    if (found == index_.end()) return -1;
    for (int i = found->second; i >= 0; i = nodes_[i].parent) {
      if (nodes_[i].parent >= 0 && &nodes_[nodes_[i].parent] == &parent) return i;
    }
    return -1;
  }

  // Whether the node's value is its Text (cut at kMaxTextChars; the walk
  // stops growing past kMaxTreeBytes of text in all).
  static bool ReadsText(const RawNode& n) {
    const std::string_view role = RoleName(n.role);
    return WantsText(role) || n.cell_row >= 0 ||
           (n.name.empty() && n.child_count == 0 && MayHoldText(role));
  }

  void RequestActions(int idx) {
    const ObjectRef& ref = nodes_[idx].ref;
    pipeline_.Add(NewMethodCall(ref.bus, ref.path, kActionIface, "GetActions"),
                  [this, idx](DBusMessage* r) { ParseActions(idx, r); });
  }

  void RequestValue(int idx, bool has_value, bool has_text) {
    const ObjectRef& ref = nodes_[idx].ref;
    std::string_view role = RoleName(nodes_[idx].role);
    if (WantsNumericValue(role) && has_value) {
      pipeline_.Add(PropertyGet(ref, kValueIface, "CurrentValue"), [this, idx](DBusMessage* r) {
        DBusMessageIter it;
        double v = NAN;
        if (IsReturn(r) && dbus_message_iter_init(r, &it) && ReadVariantDouble(&it, &v)) {
          nodes_[idx].value = FormatNumber(v);
        }
      });
    } else if (ReadsText(nodes_[idx]) && has_text) {
      RequestText(idx, kMaxTextChars, true);
    }
  }

  // The text by its length first: CharacterCount, then GetText(0, count) when
  // there is any (up to kMaxTextChars; longer is counted as cut).
  void RequestTextByLength(int idx) {
    pipeline_.Add(PropertyGet(nodes_[idx].ref, kTextIface, "CharacterCount"),
                  [this, idx](DBusMessage* r) {
                    DBusMessageIter it;
                    int32_t count = 0;
                    if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
                        !ReadVariantInt32(&it, &count) || count <= 0) {
                      return;
                    }
                    if (count > kMaxTextChars) ++cut_values_;
                    RequestText(idx, std::min(count, kMaxTextChars), false);
                  });
  }

  // Text.GetText(0, end). LibreOffice (7.4) answers a range past the end of
  // the text with "" (a cell holding "120" asked for 0..4000): an empty
  // answer makes the walk ask the text's length and then for exactly that
  // much, up to kMaxTextChars.
  void RequestText(int idx, int32_t end, bool retry_with_length) {
    const ObjectRef& ref = nodes_[idx].ref;
    MessagePtr m = NewMethodCall(ref.bus, ref.path, kTextIface, "GetText");
    int32_t start = 0;
    dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &start, DBUS_TYPE_INT32, &end,
                             DBUS_TYPE_INVALID);
    pipeline_.Add(std::move(m), [this, idx, end, retry_with_length](DBusMessage* r) {
      DBusMessageIter it;
      std::string text;
      if (!IsReturn(r) || !dbus_message_iter_init(r, &it) || !ReadString(&it, &text)) return;
      // A text as long as the range asked for is longer, most likely: the
      // walk says how many it cut.
      if (end == kMaxTextChars && CodePoints(text) >= static_cast<size_t>(kMaxTextChars)) {
        ++cut_values_;
      }
      if (text.empty() && retry_with_length) {
        pipeline_.Add(PropertyGet(nodes_[idx].ref, kTextIface, "CharacterCount"),
                      [this, idx](DBusMessage* r2) {
                        DBusMessageIter it2;
                        int32_t count = 0;
                        if (IsReturn(r2) && dbus_message_iter_init(r2, &it2) &&
                            ReadVariantInt32(&it2, &count) && count > 0) {
                          RequestText(idx, std::min(count, kMaxTextChars), false);
                        }
                      });
        return;
      }
      // Chromium's <select> (a "combo box") holds one embedded object, its
      // list of options: the value is the option chosen in that list.
      const bool embedded = text.find(kEmbeddedObject) != std::string::npos;
      if (embedded) text = WithoutEmbeddedObjects(std::move(text));
      if (embedded && text.empty() && RoleName(nodes_[idx].role) == "combo box") {
        RequestChosenOption(idx);
        return;
      }
      // Labels and headings already carry their text as the name.
      if (text != nodes_[idx].name) {
        bytes_ += text.size();
        nodes_[idx].value = std::move(text);
      }
    });
  }

  // The name of the option selected in a combo box's list (its first child,
  // through the list's Selection): Chromium's collapsed <select> keeps its
  // list and all options but the chosen one unshown, so the walk never
  // reaches it.
  void RequestChosenOption(int idx) {
    const ObjectRef& ref = nodes_[idx].ref;
    MessagePtr m = NewMethodCall(ref.bus, ref.path, kAccessibleIface, "GetChildAtIndex");
    int32_t first = 0;
    dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &first, DBUS_TYPE_INVALID);
    pipeline_.Add(std::move(m), [this, idx](DBusMessage* r) {
      DBusMessageIter it;
      ObjectRef list;
      if (!IsReturn(r) || !dbus_message_iter_init(r, &it) || !ReadObjectRef(&it, &list) ||
          list.IsNull()) {
        return;
      }
      MessagePtr m2 = NewMethodCall(list.bus, list.path, kSelectionIface, "GetSelectedChild");
      int32_t index = 0;
      dbus_message_append_args(m2.get(), DBUS_TYPE_INT32, &index, DBUS_TYPE_INVALID);
      pipeline_.Add(std::move(m2), [this, idx](DBusMessage* r2) {
        DBusMessageIter it2;
        ObjectRef option;
        if (!IsReturn(r2) || !dbus_message_iter_init(r2, &it2) || !ReadObjectRef(&it2, &option) ||
            option.IsNull()) {
          return;
        }
        MessagePtr get_name = PropertyGet(option, kAccessibleIface, "Name");
        pipeline_.Add(std::move(get_name), [this, idx](DBusMessage* r3) {
          DBusMessageIter it3;
          std::string name;
          if (!IsReturn(r3) || !dbus_message_iter_init(r3, &it3) ||
              !ReadVariantString(&it3, &name)) {
            return;
          }
          CutUtf8(&name, kMaxTextChars);
          bytes_ += name.size();
          nodes_[idx].value = std::move(name);
        });
      });
    });
  }

  void OnChildren(int idx, DBusMessage* r) {
    DBusMessageIter it, arr;
    if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
        dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) {
      return;
    }
    dbus_message_iter_recurse(&it, &arr);
    std::vector<ObjectRef> children;
    ObjectRef child;
    const ObjectRef self = nodes_[idx].ref;
    while (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT) {
      if (!ReadObjectRef(&arr, &child)) break;
      if (child.IsNull() || child == self) continue;  // self-parent: untrusted data
      children.push_back(std::move(child));
    }
    int depth = nodes_[idx].depth + 1;
    if (children.size() <= kLargeChildList || request_.include_hidden) {
      for (size_t i = 0; i < children.size() && !capped_; ++i) {
        Discover(children[i], idx, depth, static_cast<int>(i));
      }
      return;
    }
    const RawNode& parent = nodes_[idx];
    Rect area = parent.has_extents ? Intersect(parent.extents, parent.clip) : Rect{};
    if (area.w > 2 && area.h > 2) {
      ScreenByBisection(idx, std::move(children), area);
    } else {
      ScreenByExtents(idx, std::move(children));
    }
  }

  // What ReadInView learns of a container, shared by its in-flight requests.
  struct InView {
    bool manages = false;
    Rect area;          // visible part of the container; empty: unknown
    int32_t rows = -1;  // Table.NRows / NColumns
    int32_t cols = -1;
    ObjectRef corner[2];  // the objects at the top-left and bottom-right of `area`
    int32_t index[2] = {-1, -1};
    int32_t row[2] = {-1, -1};
    int32_t col[2] = {-1, -1};
    int pending = 0;
  };

  // A container too large to list (kManagedListing, kMaxChildListing): the
  // cells in view through its Table interface, else its children in view by
  // index. Never GetChildren.
  void ReadInView(int idx, bool manages) {
    auto view = std::make_shared<InView>();
    view->manages = manages;
    const RawNode& n = nodes_[idx];
    if (n.has_extents && Placed(n.extents)) view->area = Intersect(n.extents, n.clip);
    const ObjectRef ref = n.ref;
    pipeline_.Add(NewMethodCall(ref.bus, ref.path, kAccessibleIface, "GetInterfaces"),
                  [this, idx, view](DBusMessage* r) {
                    if (r == nullptr) return;
                    std::vector<std::string> ifaces;
                    DBusMessageIter it;
                    if (IsReturn(r) && dbus_message_iter_init(r, &it)) {
                      ReadStringArray(&it, &ifaces);
                    }
                    bool table =
                        std::find(ifaces.begin(), ifaces.end(), kTableIface) != ifaces.end();
                    ProbeCorners(idx, view, table);
                  });
  }

  // Asks which objects lie at the inner top-left and bottom-right corners of
  // the visible area, their indices and, for a table, their rows and
  // columns (and the table's size); then reads the range between them.
  void ProbeCorners(int idx, std::shared_ptr<InView> view, bool table) {
    const ObjectRef ref = nodes_[idx].ref;
    auto done = [this, idx, view, table] {
      if (--view->pending != 0) return;
      if (table) {
        ReadTableRange(idx, *view);
      } else {
        ReadIndexRange(idx, *view);
      }
    };
    view->pending = 1;  // released below, once everything is queued
    if (table) {
      for (const char* prop : {"NRows", "NColumns"}) {
        ++view->pending;
        pipeline_.Add(PropertyGet(ref, kTableIface, prop), [view, prop, done](DBusMessage* r) {
          DBusMessageIter it;
          int32_t v = -1;
          if (IsReturn(r) && dbus_message_iter_init(r, &it)) ReadVariantInt32(&it, &v);
          (std::string_view(prop) == "NRows" ? view->rows : view->cols) = v;
          done();
        });
      }
    }
    const Rect& a = view->area;
    const int corners = a.w > 2 && a.h > 2 ? (table ? 2 : 1) : 0;
    for (int k = 0; k < corners; ++k) {
      MessagePtr m = NewMethodCall(ref.bus, ref.path, kComponentIface, "GetAccessibleAtPoint");
      int32_t x = k == 0 ? a.x + 1 : a.Right() - 2;
      int32_t y = k == 0 ? a.y + 1 : a.Bottom() - 2;
      uint32_t coord =
          static_cast<uint32_t>(quirks_.gtk4 ? CoordType::kWindow : CoordType::kScreen);
      dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &x, DBUS_TYPE_INT32, &y, DBUS_TYPE_UINT32,
                               &coord, DBUS_TYPE_INVALID);
      ++view->pending;
      pipeline_.Add(std::move(m), [this, idx, view, k, table, done](DBusMessage* r) {
        DBusMessageIter it;
        if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
            !ReadObjectRef(&it, &view->corner[k]) || view->corner[k].IsNull()) {
          done();
          return;
        }
        const ObjectRef& hit = view->corner[k];
        pipeline_.Add(
            NewMethodCall(hit.bus, hit.path, kAccessibleIface, "GetIndexInParent"),
            [this, idx, view, k, table, done](DBusMessage* r2) {
              DBusMessageIter it2;
              if (!IsReturn(r2) || !dbus_message_iter_init(r2, &it2) ||
                  !ReadInt32(&it2, &view->index[k]) || view->index[k] < 0 || !table) {
                done();
                return;
              }
              // Row and column of the index, asked of the table.
              const ObjectRef& tref = nodes_[idx].ref;
              for (const char* method : {"GetRowAtIndex", "GetColumnAtIndex"}) {
                MessagePtr q = NewMethodCall(tref.bus, tref.path, kTableIface, method);
                int32_t index = view->index[k];
                dbus_message_append_args(q.get(), DBUS_TYPE_INT32, &index, DBUS_TYPE_INVALID);
                ++view->pending;
                pipeline_.Add(std::move(q), [view, k, method, done](DBusMessage* r3) {
                  DBusMessageIter it3;
                  int32_t v = -1;
                  if (IsReturn(r3) && dbus_message_iter_init(r3, &it3)) ReadInt32(&it3, &v);
                  (std::string_view(method) == "GetRowAtIndex" ? view->row[k] : view->col[k]) = v;
                  done();
                });
              }
              done();
            });
      });
    }
    done();
  }

  std::string Described(int idx, const InView& view) const {
    const RawNode& n = nodes_[idx];
    std::string what = std::string(RoleName(n.role));
    if (!n.name.empty()) what += " \"" + n.name + "\"";
    return what + " claims " + std::to_string(n.child_count) + " children" +
           (view.manages ? " and manages its descendants" : "") + ": ";
  }

  // The cells of a table between its visible corners (each corner's row and
  // column; a missing corner: the table's first cell, or a span of rows and
  // columns that the visible area prunes), at most kMaxVisibleCells.
  void ReadTableRange(int idx, const InView& view) {
    if (view.rows <= 0 || view.cols <= 0) {
      notes_.push_back(Described(idx, view) + "its cells were not read (it gives no row count)");
      return;
    }
    auto valid = [&](int k) {
      return view.row[k] >= 0 && view.row[k] < view.rows && view.col[k] >= 0 &&
             view.col[k] < view.cols;
    };
    const bool found = valid(0) && valid(1);
    int32_t r0 = valid(0) ? view.row[0] : 0;
    int32_t c0 = valid(0) ? view.col[0] : 0;
    int32_t r1 = valid(1) && view.row[1] >= r0 ? view.row[1] : std::min(view.rows - 1, r0 + 59);
    int32_t c1 = valid(1) && view.col[1] >= c0 ? view.col[1] : std::min(view.cols - 1, c0 + 29);
    const std::string range = CellAddress(r0, c0) + ":" + CellAddress(r1, c1);
    // Whole rows from the top of the view, as many as the cap allows.
    const int32_t ncols = std::min(c1 - c0 + 1, kMaxVisibleCells);
    const bool cut = ncols < c1 - c0 + 1 || int64_t{r1 - r0 + 1} * ncols > kMaxVisibleCells;
    c1 = c0 + ncols - 1;
    if (int64_t{r1 - r0 + 1} * ncols > kMaxVisibleCells) r1 = r0 + kMaxVisibleCells / ncols - 1;
    const std::string read = CellAddress(r0, c0) + ":" + CellAddress(r1, c1);
    std::string note = Described(idx, view) + "read only the cells " + read;
    if (cut) {
      note += " of " + range + (found ? " in view" : "") + " (at most " +
              std::to_string(kMaxVisibleCells) + " cells: scroll to read others)";
    } else {
      note += found ? " in view" : " from its first visible";
    }
    notes_.push_back(note + "; it has " + std::to_string(view.rows) + " rows x " +
                     std::to_string(view.cols) + " columns");
    const ObjectRef tref = nodes_[idx].ref;
    const int depth = nodes_[idx].depth + 1;
    for (int32_t r = r0; r <= r1; ++r) {
      for (int32_t c = c0; c <= c1; ++c) {
        MessagePtr m = NewMethodCall(tref.bus, tref.path, kTableIface, "GetAccessibleAt");
        dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &r, DBUS_TYPE_INT32, &c,
                                 DBUS_TYPE_INVALID);
        const int ordinal = (r - r0) * ncols + (c - c0);
        pipeline_.Add(std::move(m), [this, idx, depth, ordinal, r, c](DBusMessage* reply) {
          DBusMessageIter it;
          ObjectRef cell;
          if (capped_ || !IsReturn(reply) || !dbus_message_iter_init(reply, &it) ||
              !ReadObjectRef(&it, &cell) || cell.IsNull()) {
            return;
          }
          const CellAt at{r, c};
          Discover(cell, idx, depth, ordinal, nullptr, &at);
        });
      }
    }
  }

  // Children by index from the one at the visible top-left corner (or the
  // first), at most kIndexWindow; stage 1 prunes those out of view.
  void ReadIndexRange(int idx, const InView& view) {
    const int32_t count = nodes_[idx].child_count;
    int32_t first =
        view.index[0] >= 0 && view.index[0] < count ? std::max(0, view.index[0] - 1) : 0;
    int32_t last =
        static_cast<int32_t>(std::min<int64_t>(count, int64_t{first} + kIndexWindow)) - 1;
    notes_.push_back(Described(idx, view) + "read only children " + std::to_string(first + 1) +
                     " to " + std::to_string(last + 1) +
                     (view.index[0] >= 0 ? ", from the first in view" : ""));
    const ObjectRef ref = nodes_[idx].ref;
    const int depth = nodes_[idx].depth + 1;
    for (int32_t i = first; i <= last; ++i) {
      MessagePtr m = NewMethodCall(ref.bus, ref.path, kAccessibleIface, "GetChildAtIndex");
      dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID);
      pipeline_.Add(std::move(m), [this, idx, depth, i](DBusMessage* reply) {
        DBusMessageIter it;
        ObjectRef child;
        if (capped_ || !IsReturn(reply) || !dbus_message_iter_init(reply, &it) ||
            !ReadObjectRef(&it, &child) || child.IsNull() || child == nodes_[idx].ref) {
          return;
        }
        Discover(child, idx, depth, i);
      });
    }
  }

  // State of ScreenByBisection, shared by its in-flight requests.
  struct ListSearch {
    std::vector<ObjectRef> children;
    Rect area;  // visible part of the list, screen pixels
    Rect ends[2];
    bool have_ends[2] = {false, false};
    int ends_pending = 2;
    bool vertical = true;
    int result[2] = {0, 0};
    int searches_pending = 2;
  };

  // Finds the visible slice of a long child list by binary search on the
  // children's extents: lists, grids and flow boxes keep their children in
  // reading order, so the visible ones form one run of indices. One round
  // asks the first and last child (which axis the list runs along), then two
  // searches in parallel find the first child that ends after the visible
  // area starts and the last that starts before it ends: ~2 log2(n)
  // requests instead of n. One child of margin on each side; stage 1 prunes
  // what is not visible after all. A list whose ends do not reveal an axis
  // falls back to screening every child.
  void ScreenByBisection(int idx, std::vector<ObjectRef> children, Rect area) {
    auto search = std::make_shared<ListSearch>();
    search->children = std::move(children);
    search->area = area;
    const int n = static_cast<int>(search->children.size());
    for (int k = 0; k < 2; ++k) {
      pipeline_.Add(ExtentsCall(search->children[k == 0 ? 0 : n - 1]), [this, idx, search,
                                                                        k](DBusMessage* r) {
        ReadExtents(r, &search->ends[k], &search->have_ends[k]);
        if (--search->ends_pending != 0 || r == nullptr) return;
        const Rect& first = search->ends[0];
        const Rect& last = search->ends[1];
        if (!search->have_ends[0] || !search->have_ends[1] || !Placed(first) || !Placed(last)) {
          ScreenByExtents(idx, std::move(search->children));
          return;
        }
        if (last.y > first.y) {
          search->vertical = true;
        } else if (last.x > first.x) {
          search->vertical = false;
        } else {
          ScreenByExtents(idx, std::move(search->children));
          return;
        }
        BisectStep(idx, search, 0, 0, static_cast<int>(search->children.size()));
        BisectStep(idx, search, 1, 0, static_cast<int>(search->children.size()));
      });
    }
  }

  // One step of the search `which` (0: first child whose far edge is past
  // the area's start; 1: first child whose near edge is at or past the
  // area's end) over the index range [lo, hi).
  void BisectStep(int idx, std::shared_ptr<ListSearch> search, int which, int lo, int hi) {
    if (lo >= hi) {
      search->result[which] = lo;
      if (--search->searches_pending != 0) return;
      int n = static_cast<int>(search->children.size());
      int first = std::max(0, search->result[0] - 1);
      int last = std::min(n - 1, search->result[1]);  // result[1] is one past the last visible
      int depth = nodes_[idx].depth + 1;
      for (int i = first; i <= last && !capped_; ++i) Discover(search->children[i], idx, depth, i);
      return;
    }
    int mid = lo + (hi - lo) / 2;
    pipeline_.Add(ExtentsCall(search->children[mid]),
                  [this, idx, search, which, lo, hi, mid](DBusMessage* r) {
                    if (r == nullptr) return;
                    Rect e;
                    bool has = false;
                    ReadExtents(r, &e, &has);
                    const Rect& a = search->area;
                    bool go_left;
                    if (!has || !Placed(e)) {
                      go_left = which == 0;  // unknown: keep it inside the range
                    } else if (which == 0) {
                      go_left = search->vertical ? e.Bottom() > a.y : e.Right() > a.x;
                    } else {
                      go_left = search->vertical ? e.y >= a.Bottom() : e.x >= a.Right();
                    }
                    if (go_left) {
                      BisectStep(idx, search, which, lo, mid);
                    } else {
                      BisectStep(idx, search, which, mid + 1, hi);
                    }
                  });
  }

  // Asks each child for its extents only (one request instead of four) and
  // walks the ones that intersect the visible area.
  void ScreenByExtents(int idx, std::vector<ObjectRef> children) {
    int depth = nodes_[idx].depth + 1;
    for (size_t i = 0; i < children.size(); ++i) {
      pipeline_.Add(ExtentsCall(children[i]),
                    [this, idx, depth, i, ref = children[i]](DBusMessage* r) {
                      Rect extents;
                      bool has = false;
                      ReadExtents(r, &extents, &has);
                      if (r == nullptr || capped_) return;
                      if (has && !extents.Empty() && Intersect(extents, nodes_[idx].clip).Empty()) {
                        return;  // scrolled out of view
                      }
                      Discover(ref, idx, depth, static_cast<int>(i), has ? &extents : nullptr);
                    });
    }
  }

  // GetActions answers with localised names; an empty one (Chromium
  // localises none) is asked again by index with GetName, the action's own
  // name. Unnamed actions are dropped in BuildNode.
  void ParseActions(int idx, DBusMessage* r) {
    DBusMessageIter it, arr;
    if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
        dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) {
      return;
    }
    dbus_message_iter_recurse(&it, &arr);
    std::vector<std::string>& actions = nodes_[idx].actions;
    while (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT) {
      DBusMessageIter st;
      dbus_message_iter_recurse(&arr, &st);
      // (name, description, key binding): menu items give their mnemonic,
      // full path and accelerator in the third ("n;<Alt>f:n;<Primary>n").
      std::string name, description, binding;
      ReadString(&st, &name);
      if (ReadString(&st, &description) && ReadString(&st, &binding) &&
          nodes_[idx].key_binding.empty()) {
        nodes_[idx].key_binding = std::move(binding);
      }
      actions.push_back(AsciiLower(name));
      dbus_message_iter_next(&arr);
    }
    const ObjectRef& ref = nodes_[idx].ref;
    // Qt 5 (atspiadaptor.cpp, 5.15) fills GetActions' key binding from the
    // action interface only, which its menu items lack: their accelerator
    // ("Ctrl+N") comes from GetKeyBinding, which falls back to the item's
    // Accelerator text. One more request, for menu items only.
    if (quirks_.qt && nodes_[idx].key_binding.empty() && !actions.empty() &&
        (nodes_[idx].normalised == Role::kMenuItem ||
         nodes_[idx].normalised == Role::kCheckMenuItem ||
         nodes_[idx].normalised == Role::kRadioMenuItem)) {
      MessagePtr m = NewMethodCall(ref.bus, ref.path, kActionIface, "GetKeyBinding");
      int32_t first = 0;
      dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &first, DBUS_TYPE_INVALID);
      pipeline_.Add(std::move(m), [this, idx](DBusMessage* reply) {
        DBusMessageIter rit;
        std::string binding;
        if (IsReturn(reply) && dbus_message_iter_init(reply, &rit) && ReadString(&rit, &binding)) {
          nodes_[idx].key_binding = std::move(binding);
        }
      });
    }
    for (size_t i = 0; i < actions.size(); ++i) {
      if (!actions[i].empty()) continue;
      MessagePtr m = NewMethodCall(ref.bus, ref.path, kActionIface, "GetName");
      int32_t index = static_cast<int32_t>(i);
      dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &index, DBUS_TYPE_INVALID);
      pipeline_.Add(std::move(m), [this, idx, i](DBusMessage* reply) {
        DBusMessageIter rit;
        std::string name;
        if (IsReturn(reply) && dbus_message_iter_init(reply, &rit) && ReadString(&rit, &name)) {
          nodes_[idx].actions[i] = AsciiLower(name);
        }
      });
    }
  }

  Node BuildNode(int idx, const AppInfo& app) const {
    const RawNode& raw = nodes_[idx];
    Node node;
    node.role = raw.normalised;
    node.toolkit_role = std::string(RoleName(raw.role));
    node.name = raw.name;
    // A cell read through its table is named by its address when the app
    // gives it no name (Calc names its cells so already: "B2").
    if (node.name.empty() && raw.cell_row >= 0) node.name = CellAddress(raw.cell_row, raw.cell_col);
    const std::string& label_name =
        raw.label_node >= 0 && ReadWhole(raw.label_node) ? nodes_[raw.label_node].name
                                                          : raw.label_name;
    if (node.name.empty() && !label_name.empty()) {
      node.name = NameFromLabelText(label_name);
      if (!node.name.empty()) node.name_from = NameFrom::kLabel;
    }
    node.description = raw.description;
    if (!raw.states.Has(State::kPassword)) node.value = raw.value;
    node.states = raw.states;
    if (idx != 0 && raw.has_extents && !raw.extents.Empty() && Placed(raw.extents)) {
      node.bounds = raw.extents;
    }
    for (const std::string& action : raw.actions) {
      if (!action.empty()) node.actions.push_back(action);
    }
    node.key_binding = raw.key_binding;
    node.ref = BackendRef{raw.ref.bus, raw.ref.path};
    node.app = app.name;
    node.pid = app.pid;
    // GTK 4 stacks: of the children filling this node's box, the shown one
    // (ProbeStack); the others are pages not shown.
    const int shown = quirks_.gtk4 ? ShownStackChild(raw) : -1;
    auto hidden_stack_child = [&](int c) {
      return shown >= 0 && c != shown && nodes_[c].has_extents && nodes_[c].extents == raw.extents;
    };
    // Screened children are discovered in reply order; restore list order.
    std::vector<int> order = raw.children;
    std::stable_sort(order.begin(), order.end(),
                     [this](int a, int b) { return nodes_[a].ordinal < nodes_[b].ordinal; });
    for (int c : order) {
      const RawNode& child = nodes_[c];
      if (child.dead || child.pruned || child.stage1_pending != 0) continue;
      if (hidden_stack_child(c)) continue;
      Node built = BuildNode(c, app);
      // Chromium's views: a sizeless, unnamed panel whose content was all
      // pruned is as empty as the childless ones ApplyChromiumQuirks drops.
      if (quirks_.chromium && built.role == Role::kPanel && built.name.empty() &&
          built.children.empty() && !built.bounds) {
        continue;
      }
      node.children.push_back(std::move(built));
    }
    // Chromium puts a <label>'s text in a child text leaf, GTK 4 a tab's in
    // a child label: the label or tab is named by it, as in other toolkits.
    const bool text_child = (quirks_.chromium && node.role == Role::kLabel &&
                             !node.children.empty() && node.children[0].toolkit_role == "static") ||
                            (quirks_.gtk4 && node.role == Role::kTab && !node.children.empty() &&
                             node.children[0].role == Role::kLabel);
    if (text_child && node.name.empty() && node.children.size() == 1 &&
        node.children[0].children.empty()) {
      node.name = std::move(node.children[0].name);
      node.children.clear();
    }
    FoldRepeatedLabel(node);
    // Reading order: GTK 3 grids list their children last-attached first,
    // so a form would read bottom-up. When every sibling is placed, order
    // them top to bottom, then left to right (stable: stacked pages keep
    // the toolkit's order). Chromium's DOM order is the reading order
    // already; by position, an "Open" button 2 px taller than the row label
    // beside it would be read first.
    bool all_placed = std::all_of(node.children.begin(), node.children.end(),
                                  [](const Node& c) { return c.bounds.has_value(); });
    if (all_placed && node.children.size() > 1 && !quirks_.chromium) {
      std::stable_sort(node.children.begin(), node.children.end(),
                       [](const Node& a, const Node& b) {
                         if (a.bounds->y != b.bounds->y) return a.bounds->y < b.bounds->y;
                         return a.bounds->x < b.bounds->x;
                       });
    }
    return node;
  }

  DbusConnection::Pipeline pipeline_;
  const TreeRequest& request_;
  Rect screen_;
  ToolkitQuirks quirks_;
  std::vector<Rect> popups_;
  std::vector<RawNode> nodes_;
  std::unordered_set<ObjectRef, ObjectRefHash> seen_;
  std::unordered_map<ObjectRef, int, ObjectRefHash> index_;  // node of each object
  bool capped_ = false;
  bool app_gone_ = false;
  bool cut_nodes_ = false, cut_depth_ = false, cut_bytes_ = false, cut_time_ = false;
  int cut_text_ = 0;
  int cut_values_ = 0;  // Text values that filled the kMaxTextChars asked for
  size_t bytes_ = 0;
  Clock::time_point grow_until_ = Clock::time_point::max();
  std::vector<std::string> notes_;  // containers read by what is in view
  int revisits_ = 0;
};

// A refresh in part (issue 16): the objects that an application's events
// named since its stored walk are read again into a copy of the stored tree,
// so that an observation after one click costs a few requests, not a walk.
// `dirty`: MirrorBook::Dirty's objects. Each is found in the stored tree by
// its path and read again with its subtree (QueueSubtree) in the context a
// walk gives it; an object that only moved (kBounds) has its box asked
// first, and is read again only when the box changed. The copy is returned
// only when the result is what a full walk would give; nullopt (the caller
// walks) when that cannot be vouched for:
// - an object is not in the stored tree (it was pruned, folded into its
//   parent, or is new and its parent's event was not seen), or it is the
//   application or a window (reading it again is a walk);
// - a scroll bar's value changed: what it scrolls moved and no event says so;
// - an object's box changed on a toolkit that sends no BoundsChanged (Qt 5,
//   Chromium): what lies around it may have moved with no event at all.
//   GTK 3 names every widget whose allocation changed, so there a moved
//   object is simply read again. (A window moved or resized changes the
//   tree's key: MirrorKeyFor.)
// - the parent's own post-processing in BuildNode may read the object:
//   a control named by the label inside it (FoldRepeatedLabel), Chromium's
//   label named by its text leaf, a sibling order by position that the new
//   box would change;
// - the read was cut in any way (a cap, the deadline, a huge container read
//   by what is in view, a cycle), an object is dead, or of another app.
// `requests` counts what was sent.
std::optional<Node> RefreshStored(DbusConnection& conn, const TreeRequest& request,
                                  const Rect& screen, const ToolkitQuirks& quirks,
                                  const AppInfo& app, const Node& stored,
                                  const std::vector<MirrorBook::DirtyObject>& dirty,
                                  bool sends_bounds_events, Clock::time_point deadline,
                                  int* requests) {
  struct Entry {
    const Node* node;
    int parent;
  };
  std::vector<Entry> entries;
  std::unordered_map<std::string, int> by_path;
  std::function<void(const Node&, int)> index = [&](const Node& n, int parent) {
    const int at = static_cast<int>(entries.size());
    entries.push_back({&n, parent});
    by_path.emplace(n.ref.path, at);
    for (const Node& c : n.children) index(c, at);
  };
  index(stored, -1);
  if (static_cast<int>(entries.size()) * 2 > request.max_nodes) return std::nullopt;
  auto depth_of = [&](int at) {
    int depth = 0;
    for (int i = entries[at].parent; i >= 0; i = entries[i].parent) ++depth;
    return depth;
  };
  auto path_to = [&](int at) {
    std::vector<const Node*> path;
    for (int i = at; i >= 0; i = entries[i].parent) path.push_back(entries[i].node);
    std::reverse(path.begin(), path.end());
    return path;
  };
  std::vector<int> subtrees;  // entries read again with their subtree
  std::vector<int> boxes;     // entries whose box is asked first
  for (const MirrorBook::DirtyObject& d : dirty) {
    auto found = by_path.find(d.path);
    // The application or a window: reading it again is a walk (its box
    // may be asked: a window's BoundsChanged, unchanged, costs one request).
    if (found == by_path.end() ||
        (depth_of(found->second) <= 1 && d.change != EventChange::kBounds)) {
      return std::nullopt;
    }
    const Node& n = *entries[found->second].node;
    if (n.role == Role::kScrollBar && d.change != EventChange::kBounds) return std::nullopt;
    (d.change == EventChange::kBounds ? boxes : subtrees).push_back(found->second);
  }
  const std::string& bus = stored.ref.owner;
  if (!boxes.empty()) {
    Walker asker(conn, request, screen, quirks);
    bool unanswered = false;
    std::vector<int> moved;
    for (int at : boxes) {
      const Node& n = *entries[at].node;
      asker.QueueBox(ObjectRef{bus, n.ref.path}, [&, at](bool answered, std::optional<Rect> box) {
        if (!answered) unanswered = true;
        if (answered && box != entries[at].node->bounds) moved.push_back(at);
      });
    }
    Status status = asker.RunQueued(deadline);
    *requests += static_cast<int>(asker.requests());
    if (!status.ok() || unanswered) return std::nullopt;
    for (int at : moved) {
      if (depth_of(at) <= 1) return std::nullopt;
      subtrees.push_back(at);
    }
  }
  // Only the topmost of nested objects is read again: it holds the others.
  std::vector<int> roots;
  for (int at : subtrees) {
    const bool nested = std::any_of(subtrees.begin(), subtrees.end(), [&](int other) {
      if (other == at) return false;
      for (int i = entries[at].parent; i >= 0; i = entries[i].parent) {
        if (i == other) return true;
      }
      return false;
    });
    if (!nested && std::find(roots.begin(), roots.end(), at) == roots.end()) roots.push_back(at);
  }
  if (roots.empty()) return stored;
  Walker reader(conn, request, screen, quirks);
  std::vector<int> read;  // the walker's index of each root
  for (int at : roots) {
    const int idx = reader.QueueSubtree(path_to(at));
    if (idx < 0) return std::nullopt;
    read.push_back(idx);
  }
  Status status = reader.RunQueued(deadline);
  *requests += static_cast<int>(reader.requests());
  if (!status.ok() || reader.app_gone() || reader.capped() || reader.revisits() > 0 ||
      !reader.Cuts().empty()) {
    return std::nullopt;
  }
  std::vector<Reread> reads;
  for (size_t k = 0; k < roots.size(); ++k) {
    if (!reader.ReadWhole(read[k])) return std::nullopt;
    Reread r{entries[roots[k]].node->ref.path, std::nullopt};
    if (!reader.Pruned(read[k])) r.node = reader.BuildAt(read[k], app);
    reads.push_back(std::move(r));
  }
  return MergeRereads(
      stored, std::move(reads),
      MergeRules{.sends_bounds_events = sends_bounds_events, .chromium = quirks.chromium});
}

// GTK 4 has no screen coordinates: its Component extents (asked for as
// window coordinates, see Walker::ExtentsCall) are relative to the toplevel.
// Shift each window's subtree by the X origin of the window with the same
// pid and title.
void FixWindowRelativeExtents(Node& app, const std::vector<WindowInfo>& toplevels) {
  for (Node& window : app.children) {
    const WindowInfo* match = nullptr;
    for (const auto& t : toplevels) {
      if ((t.pid == app.pid || app.pid == 0) && t.title == window.name) {
        match = &t;
        break;
      }
    }
    if (match == nullptr) continue;
    ForEachNodeMutable(window.children, [&](Node& n, int) {
      if (n.bounds) *n.bounds = n.bounds->Translated(match->bounds.x, match->bounds.y);
    });
    if (window.bounds) window.bounds = match->bounds;
  }
}

// LibreOffice's gtk3 VCL places its own widgets, until its window is first
// re-laid out, as if its native menu bar took no room: its root pane (named
// as the window) has the size of the GTK box holding it but the box's origin
// less the menu bar, and everything VCL draws in it is reported that much too
// high (7.4: a click on Calc's B2 by ID selected B1). Native widgets inside
// (the Name Box) are placed right. Cells have no action and are clicked at
// their bounds: shift each table under such a root pane, with its cells, to
// where the box puts the pane.
void FixVclTablesInDisplacedPane(Node& app) {
  constexpr int kMaxShift = 100;  // more than a menu bar is not this fault
  auto shift_tables = [](std::vector<Node>& roots, int dx, int dy) {
    auto shift = [dx, dy](Node& n, int) {
      if (n.bounds) *n.bounds = n.bounds->Translated(dx, dy);
    };
    std::function<void(std::vector<Node>&)> visit = [&](std::vector<Node>& nodes) {
      for (Node& n : nodes) {
        if (n.role != Role::kTable) {
          visit(n.children);
          continue;
        }
        shift(n, 0);
        ForEachNodeMutable(n.children, shift);
      }
    };
    visit(roots);
  };
  for (Node& window : app.children) {
    ForEachNodeMutable(window.children, [&](Node& box, int) {
      if (box.children.size() != 1 || !box.bounds) return;
      const Node& pane = box.children[0];
      if (pane.role != Role::kPanel || pane.name.empty() || pane.name != window.name ||
          !pane.bounds || pane.bounds->w != box.bounds->w || pane.bounds->h != box.bounds->h) {
        return;
      }
      const int dx = box.bounds->x - pane.bounds->x;
      const int dy = box.bounds->y - pane.bounds->y;
      if ((dx == 0 && dy == 0) || std::abs(dx) > kMaxShift || std::abs(dy) > kMaxShift) return;
      shift_tables(box.children[0].children, dx, dy);
    });
  }
}

bool IsGtk4(const AppInfo& app) {
  return AsciiLower(app.toolkit) == "gtk" && !app.toolkit_version.empty() &&
         app.toolkit_version[0] == '4';
}

// GTK 2's accessibility is GAIL's: its apps name their toolkit "GAIL"
// (GIMP 2.10); GTK 3's name "GTK" or "gtk".
bool IsGtk2(const AppInfo& app) { return AsciiLower(app.toolkit) == "gail"; }

ToolkitQuirks Quirks(const AppInfo& app) {
  const std::string toolkit = AsciiLower(app.toolkit);
  ToolkitQuirks q;
  q.qt = toolkit == "qt";
  // Qt 5's bridge must not be asked Properties.GetAll: its
  // AtSpiAdaptor::handleMessage reads a second argument (the property name)
  // of every Properties call, GetAll has one, and the app crashes (segfault
  // in QVariant::toString, Qt 5.15.8). An app whose toolkit is not known yet
  // (its name did not answer) is asked property by property too.
  q.get_all = !toolkit.empty() && !q.qt;
  q.gtk4 = IsGtk4(app);
  q.chromium = toolkit == "chromium";
  q.gtk2 = IsGtk2(app);
  q.libreoffice = ToolkitLabel(app) == "libreoffice-vcl";
  return q;
}

// How long the mirror's barrier (EventWatcher::Sync) waits for the
// applications' answers: they answer from their main loop, within
// milliseconds when it runs; one that does not is walked (and the walk has
// its own deadline).
constexpr auto kMirrorSyncWait = std::chrono::milliseconds(250);

// What shaped an application's walk besides its own objects: the request's
// limits, the screen, and where its X11 windows are (a moved or resized
// window moves its content without an event in most toolkits: GTK 3 and Qt
// report screen extents, GTK 4's are shifted by the window's origin). Equal
// keys: a stored tree still applies. "" = the walk must not be stored: an app
// whose windows cannot be told (no pid); GTK 2, whose menus are told by the X
// server's popups, not by events; and GTK 4, which does not report every
// change (4.8: a row inserted at the top of a GtkListBox sends no event at
// all, children-changed or other; found by atspi_mirror_desktop_test), so
// its trees cannot be vouched for and it is walked every time.
std::string MirrorKeyFor(const TreeRequest& request, const AppInfo& app, const Rect& screen,
                         const std::vector<WindowInfo>& toplevels) {
  if (app.pid <= 0 || IsGtk2(app) || IsGtk4(app)) return "";
  std::string key = std::to_string(request.include_hidden) + "," +
                    std::to_string(request.max_depth) + "," + std::to_string(request.max_nodes) +
                    "," + std::to_string(request.fetch_actions) + "," +
                    std::to_string(request.fetch_values) + "|" + std::to_string(screen.w) + "x" +
                    std::to_string(screen.h);
  // By window, not in stacking order: raising a window changes no tree.
  std::vector<std::string> windows;
  for (const WindowInfo& t : toplevels) {
    if (t.pid != app.pid) continue;
    windows.push_back(std::to_string(t.id) + ":" + t.title + "@" + std::to_string(t.bounds.x) +
                      "," + std::to_string(t.bounds.y) + "," + std::to_string(t.bounds.w) + "," +
                      std::to_string(t.bounds.h));
  }
  std::sort(windows.begin(), windows.end());
  for (const std::string& w : windows) key += "|" + w;
  return key;
}

// Toolkits whose bridge sends an event for every change of what a walk reads
// once a listener registered, so that an app of theirs at rest (which sends
// nothing) may be served from the mirror before its first event: GTK 3
// through at-spi2-atk (which LibreOffice's VCL gtk3 plugin and Inkscape use:
// an edit typed into Calc by another client sends text-changed,
// children-changed and active-descendant events), Qt 5's own bridge (kcalc:
// 25 keys typed by another client, 0 differences from a fresh walk) and
// Chromium's (Electron's too); the property test of
// atspi_mirror_desktop_test checks the three against fresh walks. Others
// (an unknown bridge, Qt 6 unchecked) are served only once their stream has
// carried an event; GTK 2 and GTK 4 are not stored at all (MirrorKeyFor).
// `label`: the app's ToolkitLabel.
// Toolkits whose bridge sends BoundsChanged for every object whose box
// changed (GTK 3: gtkwidgetaccessible's size-allocate handler), so that a
// refresh in part may take an object's new box without walking what lies
// around it (RefreshStored). `label`: the app's ToolkitLabel.
bool SendsBoundsEvents(std::string_view label) { return label == "gtk3"; }

StreamTrust StreamTrustOf(std::string_view label) {
  for (std::string_view trusted : {"gtk3", "qt5", "chromium", "electron", "libreoffice-vcl"}) {
    if (label == trusted) return StreamTrust::kToolkit;
  }
  return StreamTrust::kOnceAnEventCame;
}
}  // namespace

Result<std::string> FindAccessibilityBus(const AtspiOptions& options) {
  if (const char* env = std::getenv("AT_SPI_BUS_ADDRESS"); env && *env) return std::string(env);

  std::string session = options.session_bus_address;
  const char* env_display = std::getenv("DISPLAY");
  bool other_display =
      !options.display.empty() && (env_display == nullptr || options.display != env_display);
  // The environment's session bus belongs to $DISPLAY, not to another display.
  if (session.empty() && !other_display) {
    if (const char* env = std::getenv("DBUS_SESSION_BUS_ADDRESS"); env && *env) session = env;
  }
  std::string session_error;
  if (!session.empty()) {
    auto bus = DbusConnection::Open(session, options.connect_timeout);
    if (bus.ok()) {
      // Switch accessibility on for toolkits that wait for it (Qt, GTK 4,
      // Chromium read org.a11y.Status.IsEnabled), as a screen reader does.
      MessagePtr set = NewMethodCall("org.a11y.Bus", "/org/a11y/bus", kPropertiesIface, "Set");
      {
        const char* iface = "org.a11y.Status";
        const char* prop = "IsEnabled";
        DBusMessageIter it, var;
        dbus_message_iter_init_append(set.get(), &it);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &iface);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &prop);
        dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "b", &var);
        dbus_bool_t on = TRUE;
        dbus_message_iter_append_basic(&var, DBUS_TYPE_BOOLEAN, &on);
        dbus_message_iter_close_container(&it, &var);
      }
      auto reply =
          (*bus)->Call(NewMethodCall("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress"),
                       options.connect_timeout);
      (void)(*bus)->Call(std::move(set), options.connect_timeout);
      const char* addr = nullptr;
      if (reply.ok() &&
          dbus_message_get_args(reply->get(), nullptr, DBUS_TYPE_STRING, &addr,
                                DBUS_TYPE_INVALID) &&
          addr && *addr) {
        return std::string(addr);
      }
      session_error = reply.ok() ? "org.a11y.Bus returned no address" : reply.error().message;
    } else {
      session_error = bus.error().message;
    }
  }

  // at-spi-bus-launcher also publishes the address on the X root window.
  auto display = x11::X11Display::Open(options.display);
  if (display.ok()) {
    if (auto prop = (*display)->RootStringProperty("AT_SPI_BUS"); prop && !prop->empty()) {
      return *prop;
    }
  }
  if (session.empty() && !display.ok()) {
    return MakeError(ErrorCode::kUnavailable,
                     "no desktop session: neither DBUS_SESSION_BUS_ADDRESS nor DISPLAY is set. "
                     "Start a headless desktop with `uiscope session start` and export what it "
                     "prints, or pass --display :N");
  }
  return MakeError(ErrorCode::kUnavailable,
                   "the accessibility bus is unreachable" +
                       (session_error.empty() ? std::string() : " (" + session_error + ")") +
                       ": is at-spi2-core installed and the session's D-Bus running? "
                       "(`uiscope session start` starts both)");
}

Result<std::unique_ptr<AtspiAccessibility>> AtspiAccessibility::Connect(
    const AtspiOptions& options) {
  auto address = FindAccessibilityBus(options);
  if (!address.ok()) return address.error();
  auto bus = DbusConnection::Open(*address, options.connect_timeout);
  if (!bus.ok()) {
    return MakeError(ErrorCode::kUnavailable,
                     "the accessibility bus is unreachable: " + bus.error().message);
  }
  return std::unique_ptr<AtspiAccessibility>(
      new AtspiAccessibility(options, std::move(bus).value(), *address));
}

Result<std::vector<AtspiAccessibility::AppHandle>> AtspiAccessibility::ListAppHandles(
    Clock::time_point deadline, int only_pid, const std::vector<std::string>& skip_buses) {
  auto reply = bus_->Call(NewMethodCall(kRegistry, kRootPath, kAccessibleIface, "GetChildren"),
                          std::chrono::milliseconds(std::max(1, RemainingMs(deadline))));
  if (!reply.ok()) {
    return MakeError(
        reply.error().code == ErrorCode::kNotFound ? ErrorCode::kUnavailable : reply.error().code,
        "the AT-SPI registry did not answer: " + reply.error().message);
  }
  std::vector<AppHandle> apps;
  DBusMessageIter it, arr;
  if (dbus_message_iter_init(reply->get(), &it) &&
      dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_ARRAY) {
    dbus_message_iter_recurse(&it, &arr);
    ObjectRef ref;
    while (ReadObjectRef(&arr, &ref)) {
      if (ref.IsNull() || ref.bus == bus_->unique_name()) continue;
      AppHandle h;
      h.root = ref;
      h.info.bus_name = ref.bus;
      apps.push_back(std::move(h));
    }
  }

  // A unique bus name belongs to one process for its whole life, and an
  // app's name and toolkit do not change: what was learnt once is reused, so
  // a repeated observation asks only the registry. Apps that left are forgotten.
  std::unordered_set<std::string> present;
  for (const AppHandle& h : apps) present.insert(h.root.bus);
  for (const auto& [bus, info] : known_apps_) {
    if (!present.count(bus)) NoteExited(info);
  }
  std::erase_if(known_apps_, [&](const auto& kv) { return !present.count(kv.first); });
  std::erase_if(unresponsive_, [&](const std::string& bus) { return !present.count(bus); });
  std::erase_if(peers_, [&](const auto& kv) { return !present.count(kv.first); });
  // Known not to answer (the caller's circuit breaker): asking its name
  // would only wait out the deadline again.
  std::erase_if(apps, [&](const AppHandle& h) {
    return std::find(skip_buses.begin(), skip_buses.end(), h.root.bus) != skip_buses.end();
  });

  std::vector<size_t> unknown;
  for (size_t i = 0; i < apps.size(); ++i) {
    if (auto known = known_apps_.find(apps[i].root.bus); known != known_apps_.end()) {
      apps[i].info = known->second;
    } else {
      unknown.push_back(i);
    }
  }

  // Pids first: the bus daemon answers them, so a hung app cannot delay this.
  std::vector<bool> alive(apps.size(), true);
  {
    DbusConnection::Pipeline pipeline(*bus_);
    for (size_t i : unknown) {
      MessagePtr m = NewMethodCall("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus", "GetConnectionUnixProcessID");
      const char* name = apps[i].root.bus.c_str();
      dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
      pipeline.Add(std::move(m), [&, i](DBusMessage* r) {
        uint32_t pid = 0;
        if (IsReturn(r) &&
            dbus_message_get_args(r, nullptr, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID)) {
          apps[i].info.pid = static_cast<int>(pid);
        } else if (r != nullptr) {
          alive[i] = false;  // the name has no owner: the app is gone
        }
      });
    }
    (void)pipeline.Run(deadline);
  }

  // Then name and toolkit, from the apps themselves, all in one round. An
  // app that does not answer keeps an empty name, is still listed, and is
  // asked again next time.
  std::vector<bool> named(apps.size(), false);
  DbusConnection::Pipeline pipeline(*bus_);
  for (size_t i : unknown) {
    if (!alive[i] || (only_pid != 0 && apps[i].info.pid != only_pid)) continue;
    const ObjectRef& ref = apps[i].root;
    pipeline.Add(PropertyGet(ref, kAccessibleIface, "Name"), [&, i](DBusMessage* r) {
      DBusMessageIter it2;
      if (IsReturn(r) && dbus_message_iter_init(r, &it2)) {
        named[i] = ReadVariantString(&it2, &apps[i].info.name);
      } else if (IsDeadObjectError(r)) {
        alive[i] = false;
      } else if (r == nullptr) {
        apps[i].answered = false;
      }
    });
    pipeline.Add(PropertyGet(ref, kApplicationIface, "ToolkitName"), [&, i](DBusMessage* r) {
      DBusMessageIter it2;
      if (IsReturn(r) && dbus_message_iter_init(r, &it2)) {
        ReadVariantString(&it2, &apps[i].info.toolkit);
      }
    });
    pipeline.Add(PropertyGet(ref, kApplicationIface, "Version"), [&, i](DBusMessage* r) {
      DBusMessageIter it2;
      if (IsReturn(r) && dbus_message_iter_init(r, &it2)) {
        ReadVariantString(&it2, &apps[i].info.toolkit_version);
      }
    });
  }
  (void)pipeline.Run(deadline);
  std::vector<AppHandle> live;
  for (size_t i = 0; i < apps.size(); ++i) {
    if (!alive[i]) continue;
    if (named[i] && apps[i].info.pid != 0) known_apps_[apps[i].root.bus] = apps[i].info;
    live.push_back(std::move(apps[i]));
  }
  return live;
}

Result<std::vector<AppInfo>> AtspiAccessibility::ListApps() {
  auto handles = ListAppHandles(Clock::now() + options_.connect_timeout, 0);
  if (!handles.ok()) return handles.error();
  std::vector<AppInfo> out;
  for (auto& h : *handles) out.push_back(std::move(h.info));
  return out;
}

std::vector<Accessibility::Liveness> AtspiAccessibility::Probe(const std::vector<AppInfo>& apps,
                                                               std::chrono::milliseconds timeout) {
  // The app's own name: answered from its main loop, so a stopped or busy
  // app stays silent, and cheap for one that runs. All apps in one round.
  std::vector<Liveness> out(apps.size(), Liveness::kSilent);
  DbusConnection::Pipeline pipeline(*bus_);
  for (size_t i = 0; i < apps.size(); ++i) {
    if (apps[i].bus_name.empty()) continue;
    ObjectRef ref;
    ref.bus = apps[i].bus_name;
    ref.path = kRootPath;
    pipeline.Add(PropertyGet(ref, kAccessibleIface, "Name"), [&out, i](DBusMessage* r) {
      if (r == nullptr) return;  // no reply in time
      out[i] = IsAppGoneError(r) ? Liveness::kGone : Liveness::kAnswers;
    });
  }
  (void)pipeline.Run(Clock::now() + timeout);
  for (size_t i = 0; i < apps.size(); ++i) {
    if (out[i] == Liveness::kAnswers) unresponsive_.erase(apps[i].bus_name);
  }
  return out;
}

void AtspiAccessibility::NoteExited(const AppInfo& app) {
  if (app.pid <= 0) return;
  std::erase_if(exited_, [&](const AppInfo& a) { return a.pid == app.pid; });
  if (exited_.size() >= 32) exited_.erase(exited_.begin());
  exited_.push_back(app);
}

const AppInfo* AtspiAccessibility::FindExited(const std::string& name_lower, int pid) const {
  for (auto it = exited_.rbegin(); it != exited_.rend(); ++it) {
    if ((pid != 0 && it->pid == pid) || AppNameMatches(name_lower, it->name)) {
      return &*it;
    }
  }
  return nullptr;
}

DbusConnection& AtspiAccessibility::ConnectionFor(const AppHandle& app,
                                                  Clock::time_point deadline) {
  if (!options_.peer_to_peer) return *bus_;
  auto it = peers_.find(app.info.bus_name);
  if (it == peers_.end()) {
    std::unique_ptr<DbusConnection> peer;
    // Within the caller's deadline: a hung app must not cost more than that.
    auto reply = bus_->Call(
        NewMethodCall(app.root.bus, app.root.path, kApplicationIface, "GetApplicationBusAddress"),
        std::chrono::milliseconds(std::clamp(RemainingMs(deadline), 1, 500)));
    // No answer says nothing about the socket: ask again next time.
    if (!reply.ok() && reply.error().code == ErrorCode::kTimeout) return *bus_;
    const char* addr = nullptr;
    if (reply.ok() &&
        dbus_message_get_args(reply->get(), nullptr, DBUS_TYPE_STRING, &addr, DBUS_TYPE_INVALID) &&
        addr && *addr) {
      auto opened = DbusConnection::OpenPeer(addr);
      if (opened.ok()) peer = std::move(opened).value();
    }
    it = peers_.emplace(app.info.bus_name, std::move(peer)).first;
  }
  if (it->second && dbus_connection_get_is_connected(it->second->raw())) return *it->second;
  return *bus_;
}

std::vector<WindowInfo> AtspiAccessibility::ListTopLevelsNow() {
  if (!display_ || display_->broken()) {
    display_.reset();
    if (auto display = x11::X11Display::Open(options_.display); display.ok()) {
      display_ = std::move(display).value();
    }
  }
  if (!display_) return {};
  auto listed = x11::ListClientWindows(*display_);
  return listed.ok() ? std::move(listed).value() : std::vector<WindowInfo>{};
}

bool AtspiAccessibility::EnsureEventWatcher() {
  if (!options_.mirror) return false;
  if (!book_) book_ = std::make_unique<MirrorBook>();
  if (events_ && events_->alive()) return true;
  // A watcher whose connection dropped told the book (OnStreamLost): the
  // trees it held are gone, and a new watcher starts from nothing.
  events_.reset();
  auto watcher = EventWatcher::Start(bus_address_, *book_, options_.connect_timeout);
  if (!watcher.ok()) return false;
  events_ = std::move(watcher).value();
  return true;
}

void AtspiAccessibility::NoteActedOn(const Node& node) {
  if (book_) book_->NoteActed(node.ref.owner);
}

void AtspiAccessibility::NoteActed(int pid) {
  if (!book_) return;
  // Apps are stored only once their pid is known (MirrorKeyFor), and then
  // they are in known_apps_.
  for (const auto& [bus, info] : known_apps_) {
    if (pid == 0 || info.pid == pid) book_->NoteActed(bus);
  }
}

Result<TreeResult> AtspiAccessibility::Tree(const TreeRequest& request) {
  // A request for one app shares one deadline between listing and walking:
  // an app that stops answering costs `timeout`, not a multiple of it. No
  // wait of any kind goes past the call's deadline.
  const auto start = Clock::now();
  const auto call_deadline = request.deadline.value_or(Clock::time_point::max());
  const auto deadline = std::min(start + request.timeout, call_deadline);
  auto handles = ListAppHandles(deadline, request.pid, request.skip_buses);
  if (!handles.ok()) return handles.error();

  std::vector<AppHandle*> selected;
  std::string wanted = AsciiLower(request.app_name);
  auto skipped = [&](const AppHandle& h) {
    return request.skip_app && request.skip_app(h.info.name);
  };
  // An app is known by its accessible name; when no app on the bus has that
  // name, by its process (the name people launch it by: "libreoffice" for
  // soffice, "firefox-esr" for Firefox, "python3" or "java" for an app
  // named after itself), then by its parent (a launcher), then by one of its
  // X windows: its title, or its WM_CLASS as the engine names windows
  // without accessibility (x11_windows_nodes.cpp), so that an app on the bus
  // is never shown as one without. The first way that names any app decides.
  std::optional<std::vector<WindowInfo>> titled;
  const std::vector<std::function<bool(const AppHandle&)>> ways = {
      [&](const AppHandle& h) { return AppNameMatches(wanted, h.info.name); },
      [&](const AppHandle& h) { return ProcessAnswersTo(wanted, h.info.pid); },
      [&](const AppHandle& h) { return ParentAnswersTo(wanted, h.info.pid); },
      [&](const AppHandle& h) {
        if (!titled) titled = ListTopLevelsNow();
        return h.info.pid > 0 &&
               std::any_of(titled->begin(), titled->end(), [&](const WindowInfo& w) {
                 return w.pid == h.info.pid && (EqualsIgnoringCase(w.title, wanted) ||
                                                AppNameMatches(wanted, w.app_instance) ||
                                                AppNameMatches(wanted, w.app_class));
               });
      }};
  size_t way = 0;
  while (!wanted.empty() && way + 1 < ways.size() &&
         std::none_of(handles->begin(), handles->end(), [&](const AppHandle& h) {
           return (request.pid == 0 || h.info.pid == request.pid) && ways[way](h);
         })) {
    ++way;
  }
  for (auto& h : *handles) {
    if (request.pid != 0 && h.info.pid != request.pid) continue;
    if (!wanted.empty() && !ways[way](h)) continue;
    if (skipped(h)) {
      if (request.pid != 0 || !wanted.empty()) {
        return MakeError(ErrorCode::kDenied,
                         "application \"" + h.info.name +
                             "\" is on the safety policy's deny list: uiscope does not observe it");
      }
      continue;
    }
    selected.push_back(&h);
  }
  if (selected.empty() && (request.pid != 0 || !wanted.empty())) {
    // An app seen before and gone now has exited: say so, not "no such app".
    if (const AppInfo* gone = FindExited(wanted, request.pid)) {
      return MakeError(ErrorCode::kStale, "application " + AppLabel(*gone) +
                                              " has exited: its elements are gone. Launch it "
                                              "again (app_launch) or observe the desktop");
    }
    std::string present;
    for (const auto& h : *handles) {
      if (skipped(h)) continue;
      if (!present.empty()) present += ", ";
      present += (h.info.name.empty() ? "(no name)" : EscapeForDisplay(h.info.name, 60)) +
                 " (pid " +
                 std::to_string(h.info.pid) + ")";
    }
    std::string what = !wanted.empty() ? "application " + QuoteForDisplay(request.app_name, 80)
                                       : "process " + std::to_string(request.pid);
    return MakeError(ErrorCode::kNotFound, "no accessible " + what + ". Applications present: " +
                                               (present.empty() ? "none" : present));
  }

  const bool mirror = EnsureEventWatcher();
  // The screen bounds what can be seen; without an X display (a bus reached
  // through AT_SPI_BUS_ADDRESS alone) nothing is clipped by it.
  Rect screen{0, 0, 1 << 20, 1 << 20};
  std::vector<WindowInfo> toplevels;
  bool toplevels_listed = false;
  std::vector<Rect> popups;
  if (!display_ || display_->broken()) {
    display_.reset();
    if (auto display = x11::X11Display::Open(options_.display); display.ok()) {
      display_ = std::move(display).value();
    }
  }
  if (display_) {
    screen = Rect{0, 0, display_->width(), display_->height()};
    bool need_toplevels = mirror || std::any_of(selected.begin(), selected.end(),
                                                [](const AppHandle* h) { return IsGtk4(h->info); });
    if (need_toplevels) {
      if (auto listed = x11::ListClientWindows(*display_); listed.ok()) {
        toplevels = std::move(listed).value();
      }
      toplevels_listed = true;
    }
    if (std::any_of(selected.begin(), selected.end(),
                    [](const AppHandle* h) { return IsGtk2(h->info); })) {
      popups = display_->MappedPopups();
    }
  }

  const bool single = selected.size() == 1 && (request.pid != 0 || !wanted.empty());
  // The mirror's barrier: once an app has answered it, every event it sent
  // before is in the book, so its stored tree can be judged (and a walk
  // begun after it, stored). Apps that do not answer in time are walked.
  std::unordered_set<std::string> synced;
  if (mirror) {
    std::vector<std::string> buses;
    for (const AppHandle* h : selected) {
      if (h->answered && !unresponsive_.count(h->info.bus_name)) buses.push_back(h->root.bus);
    }
    synced = events_->Sync(buses, std::min(deadline, Clock::now() + kMirrorSyncWait));
  }
  int hits = 0;
  int refreshes = 0;  // served by a refresh in part
  int walks = 0;
  // Apps that did not answer last time go last: a hung app must not use up
  // the time of those that answer.
  std::stable_partition(selected.begin(), selected.end(), [&](const AppHandle* h) {
    return h->answered && !unresponsive_.count(h->info.bus_name);
  });
  TreeResult result;
  auto not_answering = [&](const AppHandle& app, Clock::time_point since) {
    unresponsive_.insert(app.info.bus_name);
    result.unanswered.push_back(app.info);
    auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since);
    return "is not answering (no reply in " + std::to_string(waited.count()) +
           " ms): it is busy or hung. Wait and retry, or close it (app_close)";
  };
  // Walks one app; `probe`: give up early (true is returned) when the app
  // answers nothing within kFirstReplyProbe, to walk it after the others.
  // An error only for a single-app request.
  auto walk = [&](AppHandle& app, Clock::time_point since, Clock::time_point app_deadline,
                  bool probe) -> Result<bool> {
    const std::string label = AppLabel(app.info, app.root.bus);
    if (!app.answered || Clock::now() >= app_deadline) {
      std::string why = not_answering(app, app.answered ? since : start);
      if (single && request.unanswered_is_error) {
        return MakeError(ErrorCode::kTimeout, "application " + label + " " + why);
      }
      result.warnings.push_back("skipped " + label + ": it " + why);
      return false;
    }
    std::string key;
    MirrorBook::Mark mark;
    if (mirror && synced.count(app.root.bus)) {
      key = MirrorKeyFor(request, app.info, screen, toplevels);
      if (!key.empty() && !request.fresh) {
        if (std::optional<MirrorBook::Kept> kept = book_->Lookup(app.root.bus, key)) {
          result.warnings.insert(result.warnings.end(), kept->warnings.begin(),
                                 kept->warnings.end());
          result.apps.push_back(std::move(kept->tree));
          ++hits;
          return false;
        }
      }
      mark = book_->MarkOf(app.root.bus);
      // Events came since the stored walk: read again only the objects they
      // named, when that gives what a walk would (RefreshStored). A tree
      // that said where it was cut is walked: a cut depends on the whole.
      std::optional<MirrorBook::Refreshable> stale;
      if (!key.empty() && !request.fresh && app.info.name != "soffice") {
        stale = book_->ForRefresh(app.root.bus, key);
      }
      if (stale && !stale->dirty.empty() && stale->kept.warnings.empty()) {
        DbusConnection& conn = ConnectionFor(app, app_deadline);
        int sent = 0;
        std::optional<Node> refreshed = RefreshStored(
            conn, request, screen, Quirks(app.info), app.info, stale->kept.tree, stale->dirty,
            SendsBoundsEvents(stale->kept.tree.toolkit), app_deadline, &sent);
        result.requests += sent;
        if (refreshed) {
          book_->Store(app.root.bus, key, mark, *refreshed, StreamTrustOf(refreshed->toolkit));
          result.apps.push_back(std::move(*refreshed));
          ++refreshes;
          return false;
        }
      }
    }
    // Whatever the walk gives (a timeout, a cut tree, an app gone), the tree
    // from before it is not served again: only a complete walk is stored.
    if (mirror) book_->Drop(app.root.bus);
    DbusConnection& conn = ConnectionFor(app, app_deadline);
    Walker walker(conn, request, screen, Quirks(app.info), popups);
    const auto first_reply_by =
        probe ? std::min(Clock::now() + kFirstReplyProbe, app_deadline) : Clock::time_point::max();
    Status status = walker.Run(app.root, app_deadline, first_reply_by);
    result.requests += static_cast<int>(walker.requests());
    if (walker.root_dead() || walker.app_gone()) {
      // Its socket closed or the bus answered for it: the process is gone
      // (not the bus: that is only when the bus connection itself drops).
      unresponsive_.erase(app.info.bus_name);
      NoteExited(app.info);
      result.exited.push_back(app.info);
      if (single) {
        return MakeError(ErrorCode::kStale, "application " + label +
                                                " exited while it was being observed: its "
                                                "elements are gone. Launch it again (app_launch) "
                                                "or observe the desktop");
      }
      result.warnings.push_back("skipped " + label + ": it exited");
      return false;
    }
    if (probe && walker.silent() && Clock::now() < app_deadline) return true;
    if (!status.ok() || !walker.root_answered()) {
      // A partial tree would silently miss elements: for one app that is an
      // error; among several, the app is left out and named in a warning.
      // An app that answered part of its walk is slow, not hung.
      std::string why;
      const bool failed = !status.ok() && status.error().code != ErrorCode::kTimeout;
      if (failed) {
        why = "could not be read: " + status.error().message;
      } else if (walker.silent()) {
        why = not_answering(app, since);
      } else {
        why = "was too slow: its tree was not read within " +
              std::to_string(
                  std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since)
                      .count()) +
              " ms (" + std::to_string(walker.requests()) +
              " requests). Retry with a longer timeout_ms";
      }
      if (single && (request.unanswered_is_error || failed || !walker.silent())) {
        return MakeError(status.ok() ? ErrorCode::kTimeout : status.error().code,
                         "application " + label + " " + why);
      }
      result.warnings.push_back("skipped " + label + ": it " + why);
      return false;
    }
    unresponsive_.erase(app.info.bus_name);
    ++walks;
    // What the walk says of its tree (where it was cut, a cycle) is stored
    // with it and said again whenever the tree is served; a walk stopped by
    // its deadline is not stored.
    const bool storable = !key.empty() && !walker.cut_short();
    std::vector<std::string> said;
    if (walker.revisits() > 0) {
      said.push_back(label + ": " + std::to_string(walker.revisits()) +
                     " objects were reached twice (a cycle or a shared child) and listed once");
    }
    for (const std::string& cut : walker.Cuts()) said.push_back(label + ": " + cut);
    result.warnings.insert(result.warnings.end(), said.begin(), said.end());
    Node node = walker.Build(app.info);
    node.toolkit = ToolkitLabel(app.info);
    if (node.name.empty()) node.name = app.info.name;
    if (IsGtk4(app.info)) FixWindowRelativeExtents(node, toplevels);
    if (app.info.name == "soffice") FixVclTablesInDisplacedPane(node);
    // Objects of another application embedded in this one (an AT-SPI
    // socket/plug) change with that application's events, not this one's:
    // such a tree cannot be vouched for by this app's events alone.
    bool own = true;
    std::function<void(const Node&)> check = [&](const Node& n) {
      if (!n.ref.owner.empty() && n.ref.owner != app.root.bus) own = false;
      for (const Node& c : n.children) {
        if (!own) return;
        check(c);
      }
    };
    if (storable) check(node);
    if (storable && own) {
      book_->Store(app.root.bus, key, mark, node, StreamTrustOf(node.toolkit), std::move(said));
    }
    result.apps.push_back(std::move(node));
    return false;
  };

  // Each app has `timeout` from the start of its walk, within the call's
  // deadline; one set aside by the probe keeps its start.
  struct Deferred {
    AppHandle* app;
    Clock::time_point since;
    Clock::time_point deadline;
  };
  std::vector<Deferred> deferred;
  const bool probe = !single && selected.size() > 1;
  for (AppHandle* app : selected) {
    const auto since = single ? start : Clock::now();
    const auto app_deadline = single ? deadline : std::min(call_deadline, since + request.timeout);
    auto walked = walk(*app, since, app_deadline, probe);
    if (!walked.ok()) return walked.error();
    if (*walked) deferred.push_back({app, since, app_deadline});
  }
  for (const Deferred& d : deferred) {
    auto walked = walk(*d.app, d.since, d.deadline, false);
    if (!walked.ok()) return walked.error();
  }
  // "partial": some of it was walked or read again, some served as stored.
  if (mirror) {
    result.cache = walks == 0 && refreshes == 0 && hits > 0 ? "hit"
                   : hits == 0 && refreshes == 0            ? "miss"
                                                            : "partial";
  }
  // What is read from a tree as a whole, on what is returned and never on
  // what the mirror stores (a refresh in part reads the raw tree again):
  // the roles of the top levels, with the X server's word on which windows
  // are dialogs (listed once, when a top level needs it), and the names of
  // fields that only a label beside them names.
  auto x_kind = [&](const Node& app, const Node& top) {
    if (!toplevels_listed && display_) {
      if (auto listed = x11::ListClientWindows(*display_); listed.ok()) {
        toplevels = std::move(listed).value();
      }
      toplevels_listed = true;
    }
    for (const WindowInfo& w : toplevels) {
      if ((w.pid == app.pid || app.pid == 0) && !top.name.empty() && w.title == top.name) {
        return w.dialog ? XWindowKind::kDialog : XWindowKind::kNormal;
      }
    }
    return XWindowKind::kUnknown;
  };
  for (Node& app : result.apps) {
    NormaliseTopLevels(app, [&](const Node& top) { return x_kind(app, top); });
    NameFieldsByLabels(app.children);
  }
  // The apps keep the registry's order, whatever order they were walked in.
  std::unordered_map<std::string, size_t> rank;
  for (size_t i = 0; i < handles->size(); ++i) rank[(*handles)[i].info.bus_name] = i;
  std::stable_sort(result.apps.begin(), result.apps.end(), [&](const Node& a, const Node& b) {
    auto ra = a.ref.owner.empty() ? 0 : rank[a.ref.owner];
    auto rb = b.ref.owner.empty() ? 0 : rank[b.ref.owner];
    return ra < rb;
  });
  return result;
}

}  // namespace uiscope::atspi

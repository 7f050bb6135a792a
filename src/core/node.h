// The node model shared by every perception source (DESIGN §3).
//
// A Node is plain data: backends fill role, name, bounds, states and
// children; core assigns stable IDs (ids.h) and formats (format.h). Nodes own
// their children by value, so a tree is copied and compared like any value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/geometry.h"

namespace uiscope {

// Normalised roles: one vocabulary for AT-SPI, OCR and vision nodes.
enum class Role : uint8_t {
  kUnknown,
  kApplication,
  kWindow,
  kDialog,
  kAlert,
  kPanel,  // generic container: filler, panel, box, grouping
  kGroup,  // labelled grouping (frame with title, group box)
  kScrollPane,
  kSplitPane,
  kButton,
  kToggleButton,
  kCheckBox,
  kRadioButton,
  kTextField,  // single-line editable text (including password fields)
  kTextArea,   // multi-line editable text
  kLabel,
  kText,  // static text run: OCR lines, paragraphs
  kHeading,
  kLink,
  kImage,
  kIcon,
  kList,
  kListItem,
  kTable,
  kTableRow,
  kTableCell,
  kColumnHeader,
  kTree,
  kTreeItem,
  kMenuBar,
  kMenu,
  kMenuItem,
  kCheckMenuItem,
  kRadioMenuItem,
  kTabList,
  kTab,
  kTabPanel,
  kSlider,
  kSpinButton,
  kScrollBar,
  kProgressBar,
  kComboBox,
  kToolBar,
  kStatusBar,
  kSeparator,
  kDocument,
  kCanvas,
  kToolTip,
  kTerminal,
};

// Lower-case snake_case name used in every output format ("check_box").
std::string_view RoleName(Role role);
// Inverse of RoleName; kUnknown for an unknown name.
Role RoleFromName(std::string_view name);
// Every role name, in enum order (for schemas and error messages).
std::vector<std::string_view> AllRoleNames();
// Short prefix of stable IDs ("btn", "txt", "win").
std::string_view RolePrefix(Role role);
// Roles an agent can act on (buttons, fields, items, ...).
bool IsInteractiveRole(Role role);
// Roles of top-level surfaces: window, dialog, alert.
bool IsWindowRole(Role role);

// Normalises an AT-SPI role name as returned by GetRoleName / the role enum
// name ("push button", "check box", "text", "frame") to a Role. `editable`
// and `multi_line` refine "text" and "entry".
Role RoleFromAtspiName(std::string_view atspi_role, bool editable = false, bool multi_line = false);

enum class State : uint32_t {
  kEnabled = 1u << 0,
  kFocused = 1u << 1,
  kFocusable = 1u << 2,
  kChecked = 1u << 3,
  kSelected = 1u << 4,
  kExpanded = 1u << 5,
  kExpandable = 1u << 6,
  kEditable = 1u << 7,
  kShowing = 1u << 8,
  kVisible = 1u << 9,
  kPassword = 1u << 10,  // secured text: value is never read
  kMultiLine = 1u << 11,
  kModal = 1u << 12,
  kActive = 1u << 13,  // the active (focused) window
  kIndeterminate = 1u << 14,
  kPressed = 1u << 15,
  kDefunct = 1u << 16,  // the object is gone
  // A learned target (source learned) not seen now: memory says where it
  // was (core/learned_targets.h).
  kStale = 1u << 17,
};

// What a secret (anything typed or pressed into a kPassword element) looks
// like wherever it would appear: results, logs, the audit log. Its length is
// fixed so that it does not reveal the secret's.
inline constexpr std::string_view kSecretMask = "••••";

class StateSet {
 public:
  constexpr StateSet() = default;
  constexpr explicit StateSet(uint32_t bits) : bits_(bits) {}
  constexpr bool Has(State s) const { return (bits_ & static_cast<uint32_t>(s)) != 0; }
  constexpr void Set(State s, bool on = true) {
    bits_ = on ? (bits_ | static_cast<uint32_t>(s)) : (bits_ & ~static_cast<uint32_t>(s));
  }
  constexpr uint32_t bits() const { return bits_; }
  bool operator==(const StateSet&) const = default;

 private:
  uint32_t bits_ = 0;
};

// Names of the states set in `states`, in a fixed order ("enabled", "focused", ...).
std::vector<std::string_view> StateNames(StateSet states);
std::string_view StateName(State state);

// Where a node's name came from.
enum class NameFrom : uint8_t {
  kOwn,    // the element's own (accessible name, OCR text, ...)
  // A label's text: the element had no name, and the label tied to it
  // (AT-SPI LABELLED_BY) or beside it (core/label_names.h) names it. Printed
  // as name_from=label: an inferred name, not one the app gave.
  kLabel,
};
std::string_view NameFromName(NameFrom from);  // "own", "label"

// kX11: a window the X server lists for an app whose tree cannot be read
// (no accessibility, or not answering): title, pid and bounds only.
enum class Source : uint8_t { kAx, kOcr, kVision, kMerged, kLearned, kX11 };

// The backend's handle on the object a node was read from, so that actions
// can reach it again (AT-SPI: the application's unique bus name and the
// object path). Opaque outside the backend that filled it: no format prints
// it and IDs do not depend on it. Valid while the object lives in its app.
struct BackendRef {
  std::string owner;  // AT-SPI: unique name of the application on the accessibility bus
  std::string path;   // AT-SPI: object path
  bool empty() const { return path.empty(); }
  bool operator==(const BackendRef&) const = default;
};
std::string_view SourceName(Source source);

struct Node {
  std::string id;  // stable ID, assigned by AssignIds (ids.h)
  Role role = Role::kUnknown;
  std::string toolkit_role;  // the backend's own role name, for debugging
  std::string name;
  NameFrom name_from = NameFrom::kOwn;
  std::string value;  // never filled for password fields
  std::string description;
  std::optional<Rect> bounds;  // screen pixels of the captured display
  StateSet states;
  std::vector<std::string> actions;  // accessibility action names ("click")
  // The key binding the toolkit gives for the element's actions, as it
  // gives it (AT-SPI Action.GetActions: "n;<Alt>f:n;<Primary>n", mnemonic;
  // full path; accelerator): the first non-empty one. "" when none, or when
  // actions were not fetched. Parsed by engine/shortcuts.h; no format prints it.
  std::string key_binding;
  Source source = Source::kAx;
  float confidence = 1.0f;  // 1 for ax; detector / OCR confidence otherwise
  std::string app;          // owning application name
  int pid = 0;              // owning process, 0 if unknown
  // Application nodes: the toolkit that drew the app ("gtk3", "gtk4",
  // "gtk2", "qt5", "chromium"; see ToolkitLabel in the backend), "" when
  // not known (an app without accessibility).
  std::string toolkit;
  std::string window;       // ID of the owning window node, filled by AssignIds
  BackendRef ref;           // how the backend reaches the object (not output)
  std::vector<Node> children;

  bool Has(State s) const { return states.Has(s); }
};

// Visits every node depth-first, parents before children.
template <typename Fn>
void ForEachNode(const std::vector<Node>& roots, Fn&& fn, int depth = 0) {
  for (const Node& n : roots) {
    fn(n, depth);
    ForEachNode(n.children, fn, depth + 1);
  }
}
template <typename Fn>
void ForEachNodeMutable(std::vector<Node>& roots, Fn&& fn, int depth = 0) {
  for (Node& n : roots) {
    fn(n, depth);
    ForEachNodeMutable(n.children, fn, depth + 1);
  }
}
size_t CountNodes(const std::vector<Node>& roots);

// A web page's document: AT-SPI's "document web" (Chromium, Electron,
// Firefox, WebKitGTK), whose content the CDP specialist may read instead
// and the compact format prints as page lines. Not an office document.
bool IsWebPageDocument(const Node& n);

// Whether `n`'s own toolkit marks it disabled: an accessible (or merged)
// node of a role people act on that lacks "enabled". OCR, vision and
// learned nodes lack it because nobody could tell: they are never disabled.
bool KnownDisabled(const Node& n);

// The size and scale of the frame coordinates refer to.
struct Frame {
  int width = 0;
  int height = 0;
  double scale = 1.0;  // screenshot pixels per screen pixel
};

struct ObserveStats {
  int ax_nodes = 0;
  int ocr_nodes = 0;
  int vision_nodes = 0;
  int merged_nodes = 0;
  double latency_ms = 0;
  // Where the accessibility trees came from when the backend keeps a mirror
  // of them: "hit" (all from the mirror), "partial", "miss" (all walked);
  // "" when it keeps none (every tree walked).
  std::string cache;
};

// One observation: what `observe` returns before formatting.
struct Snapshot {
  Frame frame;
  ObserveStats stats;
  std::vector<Node> roots;  // applications, then windows, then their content
};

}  // namespace uiscope

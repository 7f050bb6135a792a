#include "core/node.h"

#include <array>
#include <cstddef>

namespace uiscope {
namespace {

struct RoleInfo {
  Role role;
  std::string_view name;    // snake_case, stable: part of every output format
  std::string_view prefix;  // stable: part of every ID, so IDs in memory survive upgrades
  bool interactive;
};

// One row per Role, in enum order, so lookups by role are an index. The
// static_assert below catches a role added to the enum but not here.
constexpr std::array kRoles = {
    RoleInfo{Role::kUnknown, "unknown", "el", false},
    RoleInfo{Role::kApplication, "application", "app", false},
    RoleInfo{Role::kWindow, "window", "win", false},
    RoleInfo{Role::kDialog, "dialog", "dlg", false},
    RoleInfo{Role::kAlert, "alert", "alr", false},
    RoleInfo{Role::kPanel, "panel", "pnl", false},
    RoleInfo{Role::kGroup, "group", "grp", false},
    RoleInfo{Role::kScrollPane, "scroll_pane", "scr", false},
    RoleInfo{Role::kSplitPane, "split_pane", "el", false},
    RoleInfo{Role::kButton, "button", "btn", true},
    RoleInfo{Role::kToggleButton, "toggle_button", "tgl", true},
    RoleInfo{Role::kCheckBox, "check_box", "chk", true},
    RoleInfo{Role::kRadioButton, "radio_button", "rad", true},
    RoleInfo{Role::kTextField, "text_field", "txt", true},
    RoleInfo{Role::kTextArea, "text_area", "txt", true},
    RoleInfo{Role::kLabel, "label", "lbl", false},
    RoleInfo{Role::kText, "text", "tx", false},
    RoleInfo{Role::kHeading, "heading", "hdg", false},
    RoleInfo{Role::kLink, "link", "lnk", true},
    RoleInfo{Role::kImage, "image", "img", false},
    RoleInfo{Role::kIcon, "icon", "ico", false},
    RoleInfo{Role::kList, "list", "lst", false},
    RoleInfo{Role::kListItem, "list_item", "itm", true},
    RoleInfo{Role::kTable, "table", "tbl", false},
    RoleInfo{Role::kTableRow, "table_row", "row", false},
    RoleInfo{Role::kTableCell, "table_cell", "cel", false},
    RoleInfo{Role::kColumnHeader, "column_header", "el", false},
    RoleInfo{Role::kTree, "tree", "tre", false},
    RoleInfo{Role::kTreeItem, "tree_item", "tri", true},
    RoleInfo{Role::kMenuBar, "menu_bar", "mbr", false},
    RoleInfo{Role::kMenu, "menu", "mnu", false},
    RoleInfo{Role::kMenuItem, "menu_item", "mi", true},
    RoleInfo{Role::kCheckMenuItem, "check_menu_item", "mi", true},
    RoleInfo{Role::kRadioMenuItem, "radio_menu_item", "mi", true},
    RoleInfo{Role::kTabList, "tab_list", "tbs", false},
    RoleInfo{Role::kTab, "tab", "tab", true},
    RoleInfo{Role::kTabPanel, "tab_panel", "tpn", false},
    RoleInfo{Role::kSlider, "slider", "sld", true},
    RoleInfo{Role::kSpinButton, "spin_button", "spn", true},
    RoleInfo{Role::kScrollBar, "scroll_bar", "sbr", true},
    RoleInfo{Role::kProgressBar, "progress_bar", "prg", false},
    RoleInfo{Role::kComboBox, "combo_box", "cmb", true},
    RoleInfo{Role::kToolBar, "tool_bar", "tb", false},
    RoleInfo{Role::kStatusBar, "status_bar", "sts", false},
    RoleInfo{Role::kSeparator, "separator", "sep", false},
    RoleInfo{Role::kDocument, "document", "doc", false},
    RoleInfo{Role::kCanvas, "canvas", "cnv", false},
    RoleInfo{Role::kToolTip, "tool_tip", "tip", false},
    RoleInfo{Role::kTerminal, "terminal", "trm", false},
};

constexpr bool RolesInEnumOrder() {
  for (size_t i = 0; i < kRoles.size(); ++i) {
    if (static_cast<size_t>(kRoles[i].role) != i) return false;
  }
  return static_cast<size_t>(Role::kTerminal) + 1 == kRoles.size();
}
static_assert(RolesInEnumOrder(), "kRoles must list every Role once, in enum order");

const RoleInfo& Info(Role role) {
  const auto index = static_cast<size_t>(role);
  // A Role cast from a corrupt byte must not read past the table.
  return index < kRoles.size() ? kRoles[index] : kRoles[0];
}

struct StateInfo {
  State state;
  std::string_view name;
};

// Fixed output order of StateNames: the enum (bit) order.
constexpr std::array kStates = {
    StateInfo{State::kEnabled, "enabled"},
    StateInfo{State::kFocused, "focused"},
    StateInfo{State::kFocusable, "focusable"},
    StateInfo{State::kChecked, "checked"},
    StateInfo{State::kSelected, "selected"},
    StateInfo{State::kExpanded, "expanded"},
    StateInfo{State::kExpandable, "expandable"},
    StateInfo{State::kEditable, "editable"},
    StateInfo{State::kShowing, "showing"},
    StateInfo{State::kVisible, "visible"},
    StateInfo{State::kPassword, "password"},
    StateInfo{State::kMultiLine, "multi_line"},
    StateInfo{State::kModal, "modal"},
    StateInfo{State::kActive, "active"},
    StateInfo{State::kIndeterminate, "indeterminate"},
    StateInfo{State::kPressed, "pressed"},
    StateInfo{State::kDefunct, "defunct"},
    StateInfo{State::kStale, "stale"},
};

constexpr bool StatesInBitOrder() {
  for (size_t i = 0; i < kStates.size(); ++i) {
    if (static_cast<uint32_t>(kStates[i].state) != (1u << i)) return false;
  }
  return true;
}
static_assert(StatesInBitOrder(), "kStates must list the State bits in order");

}  // namespace

std::string_view RoleName(Role role) { return Info(role).name; }

Role RoleFromName(std::string_view name) {
  for (const RoleInfo& info : kRoles) {
    if (info.name == name) return info.role;
  }
  return Role::kUnknown;
}

std::vector<std::string_view> AllRoleNames() {
  std::vector<std::string_view> names;
  names.reserve(kRoles.size());
  for (const RoleInfo& info : kRoles) names.push_back(info.name);
  return names;
}

std::string_view RolePrefix(Role role) { return Info(role).prefix; }

bool IsInteractiveRole(Role role) { return Info(role).interactive; }

bool IsWindowRole(Role role) {
  return role == Role::kWindow || role == Role::kDialog || role == Role::kAlert;
}

bool IsWebPageDocument(const Node& n) {
  return n.role == Role::kDocument && n.toolkit_role == "document web";
}

bool KnownDisabled(const Node& n) {
  const bool state_known = n.source == Source::kAx || n.source == Source::kMerged;
  return state_known && IsInteractiveRole(n.role) && !n.Has(State::kEnabled);
}

std::vector<std::string_view> StateNames(StateSet states) {
  std::vector<std::string_view> names;
  for (const StateInfo& info : kStates) {
    if (states.Has(info.state)) names.push_back(info.name);
  }
  return names;
}

std::string_view StateName(State state) {
  for (const StateInfo& info : kStates) {
    if (info.state == state) return info.name;
  }
  return "unknown";
}

std::string_view NameFromName(NameFrom from) {
  return from == NameFrom::kLabel ? "label" : "own";
}

std::string_view SourceName(Source source) {
  switch (source) {
    case Source::kAx:
      return "ax";
    case Source::kOcr:
      return "ocr";
    case Source::kVision:
      return "vision";
    case Source::kMerged:
      return "merged";
    case Source::kLearned:
      return "learned";
    case Source::kX11:
      return "x11";
  }
  return "ax";
}

size_t CountNodes(const std::vector<Node>& roots) {
  size_t count = roots.size();
  for (const Node& n : roots) count += CountNodes(n.children);
  return count;
}

}  // namespace uiscope

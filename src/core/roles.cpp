// AT-SPI role names → the normalised Role vocabulary.
//
// The table covers every AtspiRole of at-spi2-core 2.46 (atspi_role_get_name
// spells them "push button", "tearoff menu item", ...) plus the spellings other
// producers use: ATK's atk_role_get_name ("tear off menu item"), the C enum
// names ("ATSPI_ROLE_PUSH_BUTTON"), pyatspi ("ROLE_PUSH_BUTTON") and roles of
// newer AT-SPI / GTK 4 ("switch", "menu button").
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/node.h"

namespace uiscope {
namespace {

// Lower case; '_' and '-' become spaces; runs of spaces collapse; the enum
// prefixes "atspi role " and "role " are dropped. So "ATSPI_ROLE_PUSH_BUTTON",
// "push_button", "Push-Button" and "push button" all meet at one key.
std::string NormaliseAtspiName(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    if (c == '_' || c == '-' || c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else {
      out.push_back(c);
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  for (std::string_view prefix : {"atspi role ", "role "}) {
    if (out.starts_with(prefix)) {
      out.erase(0, prefix.size());
      break;
    }
  }
  return out;
}

const std::unordered_map<std::string_view, Role>& AtspiRoles() {
  // Leaked on purpose: a function-local static that is never destroyed cannot
  // be used after destruction by another static's destructor (Google style).
  static const auto& roles = *new std::unordered_map<std::string_view, Role>{
      // Windows and top-level containers.
      {"application", Role::kApplication},
      {"frame", Role::kWindow},
      {"window", Role::kWindow},
      {"internal frame", Role::kWindow},  // an MDI child window
      {"desktop frame", Role::kWindow},   // the desktop itself
      {"input method window", Role::kWindow},
      {"dialog", Role::kDialog},
      // Choosers are dialogs in every toolkit that exposes these roles.
      {"file chooser", Role::kDialog},
      {"color chooser", Role::kDialog},
      {"font chooser", Role::kDialog},
      {"alert", Role::kAlert},
      {"notification", Role::kAlert},

      // Generic containers.
      {"panel", Role::kPanel},
      {"filler", Role::kPanel},
      {"section", Role::kPanel},
      {"form", Role::kPanel},
      {"landmark", Role::kPanel},
      {"article", Role::kPanel},
      {"block quote", Role::kPanel},
      {"header", Role::kPanel},
      {"footer", Role::kPanel},
      {"glass pane", Role::kPanel},
      {"layered pane", Role::kPanel},
      {"root pane", Role::kPanel},
      {"option pane", Role::kPanel},
      {"directory pane", Role::kPanel},
      {"html container", Role::kPanel},
      {"embedded", Role::kPanel},
      {"page", Role::kPanel},
      {"title bar", Role::kPanel},
      {"info bar", Role::kPanel},  // inline in a window: not an alert window
      {"log", Role::kPanel},
      {"ruler", Role::kPanel},
      {"audio", Role::kPanel},
      {"video", Role::kPanel},
      {"comment", Role::kPanel},
      {"focus traversable", Role::kPanel},  // deprecated in ATK
      // GTK 3 puts a viewport inside every scroll pane; calling it a scroll
      // pane too would show two nested scroll panes for one scrolled area.
      {"viewport", Role::kPanel},
      {"grouping", Role::kGroup},
      {"date editor", Role::kGroup},
      {"scroll pane", Role::kScrollPane},
      {"split pane", Role::kSplitPane},

      // Buttons.
      {"push button", Role::kButton},
      {"push button menu", Role::kButton},
      {"menu button", Role::kButton},
      {"toggle button", Role::kToggleButton},
      {"switch", Role::kToggleButton},
      {"check box", Role::kCheckBox},
      {"radio button", Role::kRadioButton},

      // Text. "text" and "entry" are refined by the editable / multi-line
      // states in RoleFromAtspiName.
      {"password text", Role::kTextField},
      {"editbar", Role::kTextField},
      {"label", Role::kLabel},
      {"static", Role::kLabel},
      {"caption", Role::kLabel},
      {"accelerator label", Role::kLabel},
      {"paragraph", Role::kText},
      {"definition", Role::kText},
      {"description term", Role::kText},
      {"description value", Role::kText},
      {"footnote", Role::kText},
      {"marquee", Role::kText},
      {"timer", Role::kText},
      {"math", Role::kText},
      {"math fraction", Role::kText},
      {"math root", Role::kText},
      {"subscript", Role::kText},
      {"superscript", Role::kText},
      {"content deletion", Role::kText},
      {"content insertion", Role::kText},
      {"mark", Role::kText},
      {"suggestion", Role::kText},
      {"heading", Role::kHeading},
      {"link", Role::kLink},

      // Graphics.
      {"image", Role::kImage},
      {"image map", Role::kImage},
      {"animation", Role::kImage},
      {"chart", Role::kImage},
      {"icon", Role::kIcon},
      {"desktop icon", Role::kIcon},
      {"arrow", Role::kIcon},
      {"canvas", Role::kCanvas},
      {"drawing area", Role::kCanvas},

      // Collections.
      {"list", Role::kList},
      {"list box", Role::kList},
      {"description list", Role::kList},
      {"list item", Role::kListItem},
      {"table", Role::kTable},
      {"tree table", Role::kTable},
      {"calendar", Role::kTable},  // a grid of day cells
      {"table row", Role::kTableRow},
      {"table cell", Role::kTableCell},
      // There is no row-header role: a row header is a labelled cell.
      {"row header", Role::kTableCell},
      {"table row header", Role::kTableCell},
      {"column header", Role::kColumnHeader},
      {"table column header", Role::kColumnHeader},
      {"tree", Role::kTree},
      {"tree item", Role::kTreeItem},

      // Menus and tabs.
      {"menu bar", Role::kMenuBar},
      {"menu", Role::kMenu},
      {"popup menu", Role::kMenu},
      {"menu item", Role::kMenuItem},
      {"tearoff menu item", Role::kMenuItem},
      {"tear off menu item", Role::kMenuItem},
      {"check menu item", Role::kCheckMenuItem},
      {"radio menu item", Role::kRadioMenuItem},
      {"page tab list", Role::kTabList},
      {"page tab", Role::kTab},

      // Range and choice widgets.
      {"slider", Role::kSlider},
      {"dial", Role::kSlider},
      {"rating", Role::kSlider},
      {"spin button", Role::kSpinButton},
      {"scroll bar", Role::kScrollBar},
      {"progress bar", Role::kProgressBar},
      {"level bar", Role::kProgressBar},
      {"combo box", Role::kComboBox},
      {"autocomplete", Role::kComboBox},

      // Bars and the rest.
      {"tool bar", Role::kToolBar},
      {"status bar", Role::kStatusBar},
      {"separator", Role::kSeparator},
      {"document frame", Role::kDocument},
      {"document web", Role::kDocument},
      {"document text", Role::kDocument},
      {"document email", Role::kDocument},
      {"document spreadsheet", Role::kDocument},
      {"document presentation", Role::kDocument},
      {"tool tip", Role::kToolTip},
      {"terminal", Role::kTerminal},

      // Explicitly unknown, listed so they do not reach the fallback below.
      {"invalid", Role::kUnknown},
      {"unknown", Role::kUnknown},
      {"extended", Role::kUnknown},
      {"redundant object", Role::kUnknown},
  };
  return roles;
}

}  // namespace

Role RoleFromAtspiName(std::string_view atspi_role, bool editable, bool multi_line) {
  const std::string key = NormaliseAtspiName(atspi_role);
  // AT-SPI has one "text" role for static runs and for editable fields, and
  // "entry" for fields; only the states tell a label-like run from an input.
  if (key == "text") {
    if (!editable) return Role::kText;
    return multi_line ? Role::kTextArea : Role::kTextField;
  }
  if (key == "entry") return multi_line ? Role::kTextArea : Role::kTextField;

  const auto& roles = AtspiRoles();
  if (auto it = roles.find(key); it != roles.end()) return it->second;

  // Fixtures and other backends may already speak our vocabulary ("text_field").
  std::string snake = key;
  for (char& c : snake) {
    if (c == ' ') c = '_';
  }
  return RoleFromName(snake);
}

}  // namespace uiscope

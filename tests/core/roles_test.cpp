#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/node.h"

namespace uiscope {
namespace {

constexpr Role kLastRole = Role::kTerminal;

std::vector<Role> AllRoles() {
  std::vector<Role> roles;
  for (int r = 0; r <= static_cast<int>(kLastRole); ++r) roles.push_back(static_cast<Role>(r));
  return roles;
}

TEST(RolesTest, NamesAreSnakeCaseAndRoundTrip) {
  std::set<std::string_view> seen;
  for (Role role : AllRoles()) {
    const std::string_view name = RoleName(role);
    ASSERT_FALSE(name.empty());
    for (char c : name) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '_') << name;
    EXPECT_TRUE(seen.insert(name).second) << "duplicate name " << name;
    EXPECT_EQ(RoleFromName(name), role) << name;
  }
  EXPECT_EQ(RoleName(Role::kUnknown), "unknown");
  EXPECT_EQ(RoleName(Role::kToggleButton), "toggle_button");
  EXPECT_EQ(RoleName(Role::kCheckBox), "check_box");
  EXPECT_EQ(RoleName(Role::kTextField), "text_field");
  EXPECT_EQ(RoleName(Role::kMenuItem), "menu_item");
  EXPECT_EQ(RoleName(Role::kListItem), "list_item");
  EXPECT_EQ(RoleName(Role::kTabList), "tab_list");
  EXPECT_EQ(RoleFromName("no_such_role"), Role::kUnknown);
  EXPECT_EQ(RoleFromName(""), Role::kUnknown);
}

TEST(RolesTest, Prefixes) {
  const std::vector<std::pair<Role, std::string_view>> expected = {
      {Role::kApplication, "app"},  {Role::kWindow, "win"},      {Role::kDialog, "dlg"},
      {Role::kAlert, "alr"},        {Role::kPanel, "pnl"},       {Role::kGroup, "grp"},
      {Role::kScrollPane, "scr"},   {Role::kButton, "btn"},      {Role::kToggleButton, "tgl"},
      {Role::kCheckBox, "chk"},     {Role::kRadioButton, "rad"}, {Role::kTextField, "txt"},
      {Role::kTextArea, "txt"},     {Role::kLabel, "lbl"},       {Role::kText, "tx"},
      {Role::kHeading, "hdg"},      {Role::kLink, "lnk"},        {Role::kImage, "img"},
      {Role::kIcon, "ico"},         {Role::kList, "lst"},        {Role::kListItem, "itm"},
      {Role::kTable, "tbl"},        {Role::kTableRow, "row"},    {Role::kTableCell, "cel"},
      {Role::kTree, "tre"},         {Role::kTreeItem, "tri"},    {Role::kMenuBar, "mbr"},
      {Role::kMenu, "mnu"},         {Role::kMenuItem, "mi"},     {Role::kCheckMenuItem, "mi"},
      {Role::kRadioMenuItem, "mi"}, {Role::kTabList, "tbs"},     {Role::kTab, "tab"},
      {Role::kTabPanel, "tpn"},     {Role::kSlider, "sld"},      {Role::kSpinButton, "spn"},
      {Role::kScrollBar, "sbr"},    {Role::kProgressBar, "prg"}, {Role::kComboBox, "cmb"},
      {Role::kToolBar, "tb"},       {Role::kStatusBar, "sts"},   {Role::kSeparator, "sep"},
      {Role::kDocument, "doc"},     {Role::kCanvas, "cnv"},      {Role::kToolTip, "tip"},
      {Role::kTerminal, "trm"},     {Role::kUnknown, "el"},      {Role::kSplitPane, "el"},
      {Role::kColumnHeader, "el"},
  };
  for (const auto& [role, prefix] : expected) EXPECT_EQ(RolePrefix(role), prefix) << RoleName(role);
  // IDs are parsed as prefix + "_" + hex: a prefix must never contain '_'.
  for (Role role : AllRoles()) {
    EXPECT_EQ(RolePrefix(role).find('_'), std::string_view::npos) << RoleName(role);
  }
}

TEST(RolesTest, Interactive) {
  for (Role role :
       {Role::kButton, Role::kToggleButton, Role::kCheckBox, Role::kRadioButton, Role::kTextField,
        Role::kTextArea, Role::kLink, Role::kListItem, Role::kTreeItem, Role::kMenuItem,
        Role::kCheckMenuItem, Role::kRadioMenuItem, Role::kTab, Role::kSlider, Role::kSpinButton,
        Role::kScrollBar, Role::kComboBox}) {
    EXPECT_TRUE(IsInteractiveRole(role)) << RoleName(role);
  }
  for (Role role :
       {Role::kUnknown, Role::kWindow, Role::kPanel, Role::kLabel, Role::kText, Role::kTableRow,
        Role::kTableCell, Role::kImage, Role::kList, Role::kMenu, Role::kProgressBar}) {
    EXPECT_FALSE(IsInteractiveRole(role)) << RoleName(role);
  }
}

TEST(RolesTest, AtspiNames) {
  const std::vector<std::pair<std::string_view, Role>> expected = {
      {"push button", Role::kButton},
      {"push_button", Role::kButton},
      {"push-button", Role::kButton},
      {"ATSPI_ROLE_PUSH_BUTTON", Role::kButton},
      {"ROLE_PUSH_BUTTON", Role::kButton},
      {"Push Button", Role::kButton},
      {"menu button", Role::kButton},
      {"push button menu", Role::kButton},
      {"toggle button", Role::kToggleButton},
      {"switch", Role::kToggleButton},
      {"check box", Role::kCheckBox},
      {"radio button", Role::kRadioButton},
      {"password text", Role::kTextField},
      {"label", Role::kLabel},
      {"static", Role::kLabel},
      {"caption", Role::kLabel},
      {"paragraph", Role::kText},
      {"heading", Role::kHeading},
      {"link", Role::kLink},
      {"image", Role::kImage},
      {"icon", Role::kIcon},
      {"frame", Role::kWindow},
      {"window", Role::kWindow},
      {"dialog", Role::kDialog},
      {"file chooser", Role::kDialog},
      {"alert", Role::kAlert},
      {"notification", Role::kAlert},
      {"panel", Role::kPanel},
      {"filler", Role::kPanel},
      {"section", Role::kPanel},
      {"form", Role::kPanel},
      {"landmark", Role::kPanel},
      {"article", Role::kPanel},
      {"block quote", Role::kPanel},
      {"header", Role::kPanel},
      {"footer", Role::kPanel},
      {"viewport", Role::kPanel},
      {"grouping", Role::kGroup},
      {"scroll pane", Role::kScrollPane},
      {"split pane", Role::kSplitPane},
      {"list", Role::kList},
      {"list box", Role::kList},
      {"list item", Role::kListItem},
      {"table", Role::kTable},
      {"tree table", Role::kTable},
      {"table row", Role::kTableRow},
      {"table cell", Role::kTableCell},
      {"column header", Role::kColumnHeader},
      {"table column header", Role::kColumnHeader},
      {"row header", Role::kTableCell},
      {"tree", Role::kTree},
      {"tree item", Role::kTreeItem},
      {"menu bar", Role::kMenuBar},
      {"menu", Role::kMenu},
      {"popup menu", Role::kMenu},
      {"menu item", Role::kMenuItem},
      {"check menu item", Role::kCheckMenuItem},
      {"radio menu item", Role::kRadioMenuItem},
      {"tear off menu item", Role::kMenuItem},
      {"tearoff menu item", Role::kMenuItem},
      {"page tab list", Role::kTabList},
      {"page tab", Role::kTab},
      {"slider", Role::kSlider},
      {"spin button", Role::kSpinButton},
      {"scroll bar", Role::kScrollBar},
      {"progress bar", Role::kProgressBar},
      {"level bar", Role::kProgressBar},
      {"combo box", Role::kComboBox},
      {"tool bar", Role::kToolBar},
      {"status bar", Role::kStatusBar},
      {"separator", Role::kSeparator},
      {"document frame", Role::kDocument},
      {"document web", Role::kDocument},
      {"document text", Role::kDocument},
      {"canvas", Role::kCanvas},
      {"drawing area", Role::kCanvas},
      {"tool tip", Role::kToolTip},
      {"terminal", Role::kTerminal},
      {"application", Role::kApplication},
      {"invalid", Role::kUnknown},
      {"unknown", Role::kUnknown},
      {"redundant object", Role::kUnknown},
      {"something new", Role::kUnknown},
      {"", Role::kUnknown},
      // Our own vocabulary, as JSON fixtures spell it.
      {"text_field", Role::kTextField},
      {"tab_list", Role::kTabList},
  };
  for (const auto& [name, role] : expected) {
    EXPECT_EQ(RoleFromAtspiName(name), role) << '"' << name << '"';
  }
}

TEST(RolesTest, AtspiTextRefinedByStates) {
  EXPECT_EQ(RoleFromAtspiName("text", /*editable=*/true, /*multi_line=*/false), Role::kTextField);
  EXPECT_EQ(RoleFromAtspiName("text", true, true), Role::kTextArea);
  EXPECT_EQ(RoleFromAtspiName("text", false, false), Role::kText);
  EXPECT_EQ(RoleFromAtspiName("text", false, true), Role::kText);
  EXPECT_EQ(RoleFromAtspiName("entry", true, false), Role::kTextField);
  EXPECT_EQ(RoleFromAtspiName("entry", false, false), Role::kTextField);
  EXPECT_EQ(RoleFromAtspiName("entry", true, true), Role::kTextArea);
  EXPECT_EQ(RoleFromAtspiName("ATSPI_ROLE_ENTRY", true, true), Role::kTextArea);
  // A password field stays single-line whatever the states say.
  EXPECT_EQ(RoleFromAtspiName("password text", true, true), Role::kTextField);
}

// Every name libatspi 2.46 returns from atspi_role_get_name maps to something
// deliberate: the list is what a real desktop sends.
TEST(RolesTest, EveryAtspiRoleNameIsKnown) {
  const std::vector<std::string_view> kAtspiNames = {
      "accelerator label",
      "alert",
      "animation",
      "arrow",
      "calendar",
      "canvas",
      "check box",
      "check menu item",
      "color chooser",
      "column header",
      "combo box",
      "date editor",
      "desktop icon",
      "desktop frame",
      "dial",
      "dialog",
      "directory pane",
      "drawing area",
      "file chooser",
      "filler",
      "focus traversable",
      "font chooser",
      "frame",
      "glass pane",
      "html container",
      "icon",
      "image",
      "internal frame",
      "label",
      "layered pane",
      "list",
      "list item",
      "menu",
      "menu bar",
      "menu item",
      "option pane",
      "page tab",
      "page tab list",
      "panel",
      "password text",
      "popup menu",
      "progress bar",
      "push button",
      "radio button",
      "radio menu item",
      "root pane",
      "row header",
      "scroll bar",
      "scroll pane",
      "separator",
      "slider",
      "spin button",
      "split pane",
      "status bar",
      "table",
      "table cell",
      "table column header",
      "table row header",
      "tearoff menu item",
      "terminal",
      "toggle button",
      "tool bar",
      "tool tip",
      "tree",
      "tree table",
      "viewport",
      "window",
      "header",
      "footer",
      "paragraph",
      "ruler",
      "application",
      "autocomplete",
      "editbar",
      "embedded",
      "entry",
      "chart",
      "caption",
      "document frame",
      "heading",
      "page",
      "section",
      "form",
      "link",
      "input method window",
      "table row",
      "tree item",
      "document spreadsheet",
      "document presentation",
      "document text",
      "document web",
      "document email",
      "comment",
      "list box",
      "grouping",
      "image map",
      "notification",
      "info bar",
      "level bar",
      "title bar",
      "block quote",
      "audio",
      "video",
      "definition",
      "article",
      "landmark",
      "log",
      "marquee",
      "math",
      "rating",
      "timer",
      "static",
      "math fraction",
      "math root",
      "subscript",
      "superscript",
      "description list",
      "description term",
      "description value",
      "footnote",
      "content deletion",
      "content insertion",
      "mark",
      "suggestion",
      "push button menu",
  };
  for (std::string_view name : kAtspiNames) {
    EXPECT_NE(RoleFromAtspiName(name, true, false), Role::kUnknown) << '"' << name << '"';
  }
}

TEST(StatesTest, NamesInFixedOrder) {
  StateSet states;
  states.Set(State::kPassword);
  states.Set(State::kEnabled);
  states.Set(State::kFocused);
  const std::vector<std::string_view> expected = {"enabled", "focused", "password"};
  EXPECT_EQ(StateNames(states), expected);
  EXPECT_TRUE(StateNames(StateSet{}).empty());
  EXPECT_EQ(StateName(State::kChecked), "checked");
  EXPECT_EQ(StateName(State::kDefunct), "defunct");
  EXPECT_EQ(StateNames(StateSet{0x1FFFF}).size(), 17u);
}

TEST(NodeTest, SourceNamesAndCount) {
  EXPECT_EQ(SourceName(Source::kAx), "ax");
  EXPECT_EQ(SourceName(Source::kOcr), "ocr");
  EXPECT_EQ(SourceName(Source::kVision), "vision");
  EXPECT_EQ(SourceName(Source::kMerged), "merged");
  EXPECT_EQ(SourceName(Source::kLearned), "learned");

  std::vector<Node> roots(2);
  roots[0].children.resize(3);
  roots[0].children[1].children.resize(2);
  EXPECT_EQ(CountNodes(roots), 7u);
  EXPECT_EQ(CountNodes({}), 0u);
}

}  // namespace
}  // namespace uiscope

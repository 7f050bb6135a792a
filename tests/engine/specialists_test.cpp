// The toolkit specialists without a display (issue 19): the registry and
// discovery of a fake tree, toolkit names from what the bus and /proc say,
// menu paths and app schemas as text.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/app_schemas.h"
#include "engine/discover.h"
#include "engine/menu_path.h"
#include "engine/shortcuts.h"
#include "engine/workspace.h"
#include "mcp/wire.h"
#include "support/fake_accessibility.h"

namespace uiscope {
namespace {

Node Make(Role role, std::string name, std::vector<Node> children = {}) {
  Node n;
  n.role = role;
  n.name = std::move(name);
  n.children = std::move(children);
  n.states.Set(State::kEnabled);
  n.states.Set(State::kShowing);
  n.bounds = Rect{10, 10, 50, 20};
  return n;
}

// An editor whose File menu is closed: its items are in the tree, hidden.
std::vector<Node> Editor() {
  Node open = Make(Role::kMenuItem, "Open…");
  open.key_binding = "o;<Alt>f:o;<Primary>o";
  open.states.Set(State::kShowing, false);
  open.actions = {"click"};
  Node recent = Make(Role::kMenuItem, "Recent");
  recent.key_binding = "r;<Alt>f:r;";
  recent.states.Set(State::kShowing, false);
  Node find = Make(Role::kButton, "Find");
  find.description = "Search the text (Ctrl+F)";
  find.actions = {"press", "showmenu"};
  Node window = Make(Role::kWindow, "Notes",
                     {Make(Role::kMenuBar, "", {Make(Role::kMenu, "File", {open, recent})}),
                      Make(Role::kToolBar, "", {find})});
  window.states.Set(State::kActive);
  Node app = Make(Role::kApplication, "editor", {window});
  app.pid = 77;
  std::vector<Node> apps = {app};
  test::GiveBackendRefs(apps);
  return apps;
}

TEST(SpecialistsTest, TheRegistryOfAFakeTree) {
  Workspace ws(std::make_unique<test::FakeAccessibility>(Editor()), Frame{800, 600, 1});
  auto lease = ws.Acquire();
  ASSERT_TRUE(lease.ok());
  ShortcutsRequest r;
  r.app = "editor";
  auto registry = AppShortcuts(*lease, r, nullptr);
  ASSERT_TRUE(registry.ok()) << registry.error().message;
  EXPECT_EQ(registry->read.app, "editor");
  ASSERT_EQ(registry->shortcuts.size(), 2u);
  EXPECT_EQ(registry->shortcuts[0],
            (Shortcut{"editor", "Ctrl+O", "Open…", "file", "menu", "File > Open…"}));
  EXPECT_EQ(registry->shortcuts[1], (Shortcut{"editor", "Ctrl+F", "Find", "general", "menu", ""}));
  EXPECT_EQ(AppShortcuts(*lease, r, nullptr, "file")->shortcuts.size(), 1u);

  r.app = "nothere";
  EXPECT_FALSE(AppShortcuts(*lease, r, nullptr).ok());
  r.app = "";
  EXPECT_EQ(ReadShortcuts(*lease, r).error().code, ErrorCode::kInvalidArgument);
}

TEST(SpecialistsTest, DiscoveryOfAFakeTree) {
  Workspace ws(std::make_unique<test::FakeAccessibility>(Editor()), Frame{800, 600, 1});
  auto lease = ws.Acquire();
  ASSERT_TRUE(lease.ok());
  DiscoverRequest r;
  r.app = "editor";
  auto d = Discover(*lease, r);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->windows, std::vector<std::string>{"window \"Notes\""});
  EXPECT_EQ(d->menus, std::vector<std::string>{"File"});
  EXPECT_EQ(d->shortcuts.size(), 2u);
  EXPECT_EQ(d->roles["menu_item"], 2);
  EXPECT_EQ(d->custom_actions, std::vector<std::string>{"showmenu"});
  EXPECT_FALSE(d->schema);
  EXPECT_EQ(d->toolkit_name, "fake");
  // Menus read, shortcuts found, every interactive element named; no schema.
  EXPECT_DOUBLE_EQ(d->confidence, 0.75);
  const nlohmann::json j = DiscoveryToJson(*d);
  EXPECT_EQ(j["shortcut_count"], 2);
  EXPECT_EQ(j["schema_available"], false);
}

TEST(SpecialistsTest, ToolkitNames) {
  EXPECT_EQ(NormaliseToolkit("GTK", "3.24.38", "gedit", "gedit"), "gtk3");
  EXPECT_EQ(NormaliseToolkit("gtk", "2.24.33", "gimp", "gimp-2.10"), "gtk2");
  EXPECT_EQ(NormaliseToolkit("GTK", "4.8.3", "gnome-calculator", ""), "gtk4");
  EXPECT_EQ(NormaliseToolkit("Qt", "5.15.8", "app", ""), "qt5");
  EXPECT_EQ(NormaliseToolkit("Qt", "6.4.2", "app", ""), "qt6");
  EXPECT_EQ(
      NormaliseToolkit("Chromium", "1.0", "Chromium", "/usr/lib/chromium/chromium --no-sandbox"),
      "chromium");
  EXPECT_EQ(NormaliseToolkit("Chromium", "1.0", "Code", "/usr/share/code/code --unity-launch"),
            "electron");
  EXPECT_EQ(
      NormaliseToolkit("Chromium", "1.0", "x", "/opt/app/electron /opt/app/resources/app.asar"),
      "electron");
  EXPECT_EQ(NormaliseToolkit("VCL", "7.4", "soffice", ""), "libreoffice-vcl");
  EXPECT_EQ(NormaliseToolkit("GTK", "3.24", "soffice", "/usr/lib/libreoffice/program/soffice.bin"),
            "libreoffice-vcl");
  EXPECT_EQ(NormaliseToolkit("", "", "xterm", ""), "none");
}

TEST(SpecialistsTest, MenuPaths) {
  EXPECT_EQ(*ParseMenuPath("File > Save As…"), (std::vector<std::string>{"File", "Save As…"}));
  EXPECT_EQ(*ParseMenuPath("  Edit>Undo "), (std::vector<std::string>{"Edit", "Undo"}));
  EXPECT_EQ(ParseMenuPath("").error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(ParseMenuPath("File > ").error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(ParseMenuPath("a>b>c>d>e>f>g>h>i").error().code, ErrorCode::kInvalidArgument);
}

TEST(SpecialistsTest, AppSchemasAreFoundByNameOrAliasAndBadOnesNamed) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("uiscope-schemas-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "editor.json") << R"({"app": "editor", "aliases": ["org.example.Editor"],
            "shortcuts": [{"keys": "<Primary><Shift>s", "action": "Save As", "category": "file"}]})";
  setenv("UISCOPE_SCHEMA_DIRS", dir.c_str(), 1);
  auto by_alias = FindAppSchema("ORG.EXAMPLE.EDITOR");
  ASSERT_TRUE(by_alias.ok() && by_alias->has_value());
  ASSERT_EQ((*by_alias)->shortcuts.size(), 1u);
  EXPECT_EQ((*by_alias)->shortcuts[0].keys, "Ctrl+Shift+S");
  EXPECT_EQ((*by_alias)->shortcuts[0].source, "schema");
  EXPECT_FALSE(FindAppSchema("gedit")->has_value()) << "only the named directories";

  std::ofstream(dir / "zbad.json")
      << R"({"app": "bad", "shortcuts": [{"keys": "Ctrl+Wat", "action": "x"}]})";
  auto bad = FindAppSchema("bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("zbad.json"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("Ctrl+Wat"), std::string::npos) << bad.error().message;
  unsetenv("UISCOPE_SCHEMA_DIRS");
  std::filesystem::remove_all(dir);

  // The shipped gedit schema parses.
  auto gedit = FindAppSchema("gedit");
  ASSERT_TRUE(gedit.ok()) << gedit.error().message;
  ASSERT_TRUE(gedit->has_value());
  EXPECT_GE((*gedit)->shortcuts.size(), 10u);
}

}  // namespace
}  // namespace uiscope

// The toolkit specialists on real apps in a headless desktop (issue 19): the
// shortcut registry read from the GTK 3 fixture's closed menus, a menu path
// walked, a shortcut pressed by its action's name, --deep leaving the app as
// it was, discovery naming the toolkit of the GTK 3, Qt 5 and Chromium
// fixtures, and gedit (when installed) with its shipped schema.
//
// The effects are read from the apps (a dialog the tree shows, the fixture's
// own status), polled with deadlines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/ids.h"
#include "engine/act.h"
#include "engine/app_schemas.h"
#include "engine/discover.h"
#include "engine/menu_path.h"
#include "engine/shortcuts.h"
#include "engine/workspace.h"
#include "memory/shortcut_store.h"
#include "memory/state_db.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::FindNode;
using test::TestDesktop;
using test::Toolkit;

WorkspaceOptions On(const TestDesktop& desktop) {
  WorkspaceOptions options;
  options.display = desktop.info().display_name;
  options.start_headless = false;
  return options;
}

test::AppOptions Named(std::string name) {
  test::AppOptions options;
  options.name = std::move(name);
  return options;
}

const Shortcut* Find(const std::vector<Shortcut>& all, std::string_view keys) {
  for (const Shortcut& s : all) {
    if (s.keys == keys) return &s;
  }
  return nullptr;
}

std::string List(const std::vector<Shortcut>& all) {
  std::string out;
  for (const Shortcut& s : all) out += s.keys + "=" + s.action + "(" + s.source + ") ";
  return out;
}

class SpecialistsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop().ok()) << desktop().error();
    workspace_ = std::make_unique<Workspace>(On(desktop()));
  }
  static TestDesktop& desktop() { return TestDesktop::Shared(); }

  Workspace::Lease Hands() {
    auto lease = workspace_->Acquire("", Workspace::Need::kHands);
    EXPECT_TRUE(lease.ok()) << lease.error().message;
    return std::move(lease).value();
  }

  // A window of `app` named `title` shows (or, with `shown` false, none does).
  bool WindowShown(const std::string& app, std::string_view title, bool shown = true,
                   milliseconds timeout = milliseconds(8000)) {
    return test::WaitUntil(
        [&] {
          auto lease = workspace_->Acquire();
          if (!lease.ok()) return false;
          ObserveRequest r;
          r.app = app;
          auto obs = lease->observer->Observe(r);
          if (!obs.ok()) return false;
          bool found = false;
          ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
            if (IsWindowRole(n.role) && n.name.find(title) != std::string::npos) found = true;
          });
          return found == shown;
        },
        timeout);
  }

  // Whether any item of `app`'s menus shows (a menu is open).
  bool MenuOpen(const std::string& app) {
    auto lease = workspace_->Acquire();
    if (!lease.ok()) return false;
    ObserveRequest r;
    r.app = app;
    auto obs = lease->observer->Observe(r);
    if (!obs.ok()) return false;
    bool open = false;
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      if (n.role == Role::kMenuItem && n.Has(State::kShowing)) open = true;
    });
    return open;
  }

  Status Press(const std::string& chord) {
    auto lease = Hands();
    ActionRequest r;
    r.kind = ActionKind::kPressKeys;
    r.keys = {chord};
    auto done = PerformAction(lease, r);
    if (!done.ok()) return done.error();
    return OkStatus();
  }

  std::unique_ptr<Workspace> workspace_;
};

TEST_F(SpecialistsTest, TheRegistryReadsClosedMenusWithoutOpeningThem) {
  auto app = test::LaunchApp(desktop(), Toolkit::kGtk3, Named("registry-fixture"));
  ASSERT_NE(app, nullptr);
  ShortcutsRequest r;
  r.app = app->app_name();
  Result<Registry> registry = MakeError(ErrorCode::kInternal, "not read");
  {
    auto lease = Hands();
    registry = AppShortcuts(lease, r, nullptr);
  }
  ASSERT_TRUE(registry.ok()) << registry.error().message;
  const auto& all = registry->shortcuts;
  const Shortcut* n = Find(all, "Ctrl+N");
  ASSERT_NE(n, nullptr) << List(all);
  EXPECT_EQ(n->action, "New");
  EXPECT_EQ(n->category, "file");
  EXPECT_EQ(n->source, "menu");
  EXPECT_EQ(n->path, "File > New");
  ASSERT_NE(Find(all, "Ctrl+P"), nullptr) << List(all);
  EXPECT_EQ(Find(all, "Ctrl+P")->action, "Preferences…");
  ASSERT_NE(Find(all, "Ctrl+Q"), nullptr) << List(all);
  EXPECT_EQ(Find(all, "Ctrl+Q")->action, "Quit");
  // "Save" has no accelerator: its mnemonic is no shortcut.
  for (const Shortcut& s : all) EXPECT_NE(s.action, "Save") << List(all);
  EXPECT_FALSE(MenuOpen(app->app_name())) << "nothing was opened";
  std::cout << "registry from the tree: " << registry->read.tree_ms << " ms, " << all.size()
            << " shortcuts\n";
}

TEST_F(SpecialistsTest, AMenuPathIsWalkedAndAMissingStepListsWhatIsThere) {
  auto app = test::LaunchApp(desktop(), Toolkit::kGtk3, Named("menu-fixture"));
  ASSERT_NE(app, nullptr);
  const std::string name = app->app_name();
  {
    auto lease = Hands();
    MenuRequest r;
    r.app = name;
    r.steps = *ParseMenuPath("File > Nope");
    auto missing = WalkMenuPath(lease, r);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
    for (const char* item : {"\"New\"", "\"Save\"", "\"Preferences…\"", "\"Quit\""}) {
      EXPECT_NE(missing.error().message.find(item), std::string::npos)
          << item << " not in: " << missing.error().message;
    }
  }
  // Failing closed: the File menu it opened is closed again.
  EXPECT_TRUE(test::WaitUntil([&] { return !MenuOpen(name); }, milliseconds(5000)));
  {
    auto lease = Hands();
    MenuRequest r;
    r.app = name;
    r.steps = *ParseMenuPath("file > preferences...");
    auto walked = WalkMenuPath(lease, r);
    ASSERT_TRUE(walked.ok()) << walked.error().message;
    EXPECT_TRUE(walked->performed);
    ASSERT_EQ(walked->steps.size(), 2u);
    EXPECT_TRUE(walked->steps[0].performed);
    EXPECT_EQ(walked->path, (std::vector<std::string>{"File", "Preferences…"}));
  }
  ASSERT_TRUE(WindowShown(name, "Preferences")) << "the dialog did not open";
  ASSERT_TRUE(Press("Return").ok());  // its default button, OK, closes it
  EXPECT_TRUE(WindowShown(name, "Preferences", false));
}

// A greyed-out item is refused at once, naming it, and the menu opened on
// the way is closed; a plain item in the middle of a path is not clicked
// (its command would run) and the error says it is no menu; a step that
// opened nothing says so.
TEST_F(SpecialistsTest, AMenuPathToAGreyedItemOrThroughAnItemFailsSayingWhy) {
  auto app = test::LaunchApp(desktop(), Toolkit::kGtk3, Named("greyed-fixture"));
  ASSERT_NE(app, nullptr);
  const std::string name = app->app_name();
  ASSERT_TRUE(app->Command("disable-save").ok());
  {
    auto lease = Hands();
    MenuRequest r;
    r.app = name;
    r.steps = *ParseMenuPath("File > Save");
    const auto start = std::chrono::steady_clock::now();
    auto greyed = WalkMenuPath(lease, r);
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(greyed.ok());
    EXPECT_EQ(greyed.error().code, ErrorCode::kUnsupported);
    EXPECT_NE(greyed.error().message.find("\"Save\" under \"File\" is disabled"),
              std::string::npos)
        << greyed.error().message;
    EXPECT_LT(took, r.timeout) << "no wait for an item that cannot become enabled while open";
  }
  EXPECT_TRUE(test::WaitUntil([&] { return !MenuOpen(name); }, milliseconds(5000)));
  {
    auto lease = Hands();
    MenuRequest r;
    r.app = name;
    r.steps = *ParseMenuPath("File > New > Thing");
    r.timeout = milliseconds(1000);
    auto through = WalkMenuPath(lease, r);
    ASSERT_FALSE(through.ok());
    EXPECT_EQ(through.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(through.error().message.find("\"New\" under \"File\" is an item, not a menu: "
                                           "nothing was clicked"),
              std::string::npos)
        << through.error().message;
  }
  EXPECT_TRUE(test::WaitUntil([&] { return !MenuOpen(name); }, milliseconds(5000)));
  EXPECT_EQ(*app->Command("status"), "Not logged in") << "File > New did not run";
  {
    // A button opens what it opens: one that opened nothing says so,
    // rather than "the items there: none".
    auto lease = Hands();
    MenuRequest r;
    r.app = name;
    r.steps = *ParseMenuPath("Login > Thing");
    r.timeout = milliseconds(1000);
    auto nothing = WalkMenuPath(lease, r);
    ASSERT_FALSE(nothing.ok());
    EXPECT_NE(nothing.error().message.find("\"Login\" was clicked and showed no items"),
              std::string::npos)
        << nothing.error().message;
    EXPECT_EQ(nothing.error().message.find("the items there"), std::string::npos)
        << nothing.error().message;
  }
}

TEST_F(SpecialistsTest, AShortcutIsPressedByItsActionsName) {
  auto app = test::LaunchApp(desktop(), Toolkit::kGtk3, Named("keys-fixture"));
  ASSERT_NE(app, nullptr);
  const std::string name = app->app_name();
  auto lease = Hands();  // held to the end: only the fixture's own channel is asked after
  ActionRequest r;
  auto ambiguous = PlanShortcutPress(lease, name, "Frobnicate", nullptr, milliseconds(2000), r);
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.error().message.find("Preferences…"), std::string::npos)
      << ambiguous.error().message;
  auto hit = PlanShortcutPress(lease, name, "new", nullptr, milliseconds(2000), r);
  ASSERT_TRUE(hit.ok()) << hit.error().message;
  EXPECT_EQ(hit->keys, "Ctrl+N");
  EXPECT_EQ(r.keys, std::vector<std::string>{"ctrl+n"});
  auto done = PerformAction(lease, r);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_TRUE(done->performed);
  // The fixture's New says so in its status label.
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        auto status = app->Command("status");
        return status.ok() && *status == "New document";
      },
      milliseconds(5000)));
}

TEST_F(SpecialistsTest, DeepOpensEachMenuAndLeavesTheAppAsItWas) {
  auto app = test::LaunchApp(desktop(), Toolkit::kGtk3, Named("deep-fixture"));
  ASSERT_NE(app, nullptr);
  ShortcutsRequest r;
  r.app = app->app_name();
  r.deep = true;
  Result<ShortcutsReport> read = MakeError(ErrorCode::kInternal, "not read");
  {
    auto lease = Hands();
    read = ReadShortcuts(lease, r);
  }
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->menus_opened, 1);
  ASSERT_TRUE(read->state_unchanged.has_value());
  std::string notes;
  for (const auto& n : read->notes) notes += n + "; ";
  EXPECT_TRUE(*read->state_unchanged) << notes;
  EXPECT_NE(Find(read->shortcuts, "Ctrl+N"), nullptr) << List(read->shortcuts);
  EXPECT_FALSE(MenuOpen(app->app_name()));
  EXPECT_EQ(*app->Command("status"), "Not logged in") << "no item was activated";
}

// A press of one chord that opened a named dialog is learned (and one that
// opened none is not); a person's entry is trusted before the app's menus.
TEST_F(SpecialistsTest, APressThatOpenedADialogIsLearnedAndAUserEntryIsTrustedFirst) {
  auto app = test::LaunchApp(desktop(), Toolkit::kGtk3, Named("learn-fixture"));
  ASSERT_NE(app, nullptr);
  const std::string name = app->app_name();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("uiscope-learn-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto db = memory::OpenStateDatabase((dir / "uiscope.db").string());
  ASSERT_TRUE(db.ok()) << db.error().message;
  memory::ShortcutStore store(*db);
  auto press = [&](const std::string& chord) -> Result<ActionResult> {
    auto lease = Hands();
    ActionRequest r;
    r.kind = ActionKind::kPressKeys;
    r.keys = {chord};
    auto done = PerformAction(lease, r);
    if (done.ok()) LearnShortcut(r, *done, &store);
    return done;
  };
  // New changes the status label: an effect, but no dialog.
  auto plain = press("ctrl+n");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  ASSERT_TRUE(plain->verification.has_value());
  EXPECT_TRUE(store.List(name)->empty()) << List(*store.List(name));
  // Preferences… opens its dialog.
  auto opened = press("ctrl+p");
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  ASSERT_TRUE(WindowShown(name, "Preferences")) << "Ctrl+P opened no dialog";
  auto kept = store.List(name);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 1u) << FormatActionResult(*opened);
  EXPECT_EQ((*kept)[0], (Shortcut{name, "Ctrl+P", "Preferences", "ai-added", "learned", ""}));
  std::string notes;
  for (const std::string& n : opened->notes) notes += n + "\n";
  EXPECT_NE(notes.find("learned for " + name + ": Ctrl+P opens \"Preferences\""), std::string::npos)
      << notes;
  ASSERT_TRUE(Press("Return").ok());  // its default button, OK, closes it
  ASSERT_TRUE(WindowShown(name, "Preferences", false));

  // A person says New is Ctrl+Alt+N: their entry wins over the menu's Ctrl+N.
  auto user = UserShortcut(name, "ctrl+alt+n", "New", "file");
  ASSERT_TRUE(user.ok());
  ASSERT_TRUE(store.Put(*user, 1).ok());
  auto lease = Hands();
  ShortcutsRequest r;
  r.app = name;
  auto registry = AppShortcuts(lease, r, &store);
  ASSERT_TRUE(registry.ok()) << registry.error().message;
  const Shortcut* learned = Find(registry->shortcuts, "Ctrl+P");
  ASSERT_NE(learned, nullptr);
  EXPECT_NE(Find(registry->shortcuts, "Ctrl+Alt+N"), nullptr) << List(registry->shortcuts);
  ActionRequest plan;
  auto hit = PlanShortcutPress(lease, name, "New", &store, milliseconds(2000), plan);
  ASSERT_TRUE(hit.ok()) << hit.error().message;
  EXPECT_EQ(hit->keys, "Ctrl+Alt+N");
  EXPECT_EQ(hit->source, "user");
  std::filesystem::remove_all(dir);
}

class DiscoverToolkitTest : public SpecialistsTest,
                            public ::testing::WithParamInterface<Toolkit> {};

TEST_P(DiscoverToolkitTest, NamesTheToolkit) {
  auto app = test::LaunchApp(desktop(), GetParam());
  ASSERT_NE(app, nullptr);
  auto lease = workspace_->Acquire();
  ASSERT_TRUE(lease.ok()) << lease.error().message;
  DiscoverRequest r;
  r.app = app->app_name();
  r.timeout = milliseconds(5000);
  auto found = Discover(*lease, r);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->toolkit, test::ToolkitName(GetParam())) << FormatDiscovery(*found);
  EXPECT_FALSE(found->windows.empty());
  EXPECT_GT(found->roles["button"], 0) << FormatDiscovery(*found);
  EXPECT_GT(found->confidence, 0);
  if (GetParam() != Toolkit::kChromium) {
    EXPECT_FALSE(found->menus.empty()) << FormatDiscovery(*found);
  }
  std::cout << FormatDiscovery(*found);
}

INSTANTIATE_TEST_SUITE_P(Toolkits, DiscoverToolkitTest,
                         ::testing::Values(Toolkit::kGtk3, Toolkit::kQt5, Toolkit::kChromium),
                         [](const auto& info) {
                           return std::string(test::ToolkitName(info.param));
                         });

// gedit 44 (when installed): its accelerators are not in its tree (its
// popover's items give only mnemonics), so they come from the shipped
// schema; the tests check the schema against the running app.
class GeditTest : public SpecialistsTest {
 protected:
  void SetUp() override {
    if (access("/usr/bin/gedit", X_OK) != 0) GTEST_SKIP() << "gedit is not installed";
    SpecialistsTest::SetUp();
    dir_ = std::filesystem::temp_directory_path() /
           ("uiscope-gedit-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    SpawnOptions o;
    o.argv = {"gedit", "--standalone", (dir_ / "notes.txt").string()};
    o.env = {{"HOME", dir_.string()}, {"XDG_CONFIG_HOME", (dir_ / "config").string()}};
    gedit_ = desktop().Launch(o);
    ASSERT_NE(gedit_, nullptr);
    ASSERT_TRUE(test::WaitUntil(
        [&] {
          auto lease = workspace_->Acquire();
          if (!lease.ok()) return false;
          ObserveRequest r;
          r.app = "gedit";
          auto obs = lease->observer->Observe(r);
          return obs.ok() && FindNode(obs->snapshot.roots, Role::kToggleButton, "Menu") != nullptr;
        },
        milliseconds(30000)))
        << "gedit did not show its window";
  }
  void TearDown() override {
    if (gedit_) (void)gedit_->Terminate(milliseconds(3000));
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::unique_ptr<Process> gedit_;
  std::filesystem::path dir_;
};

TEST_F(GeditTest, TheRegistryHoldsSaveAndSaveAsAndTheSchemaMatchesTheApp) {
  auto lease = Hands();
  ShortcutsRequest r;
  r.app = "gedit";
  auto registry = AppShortcuts(lease, r, nullptr);
  ASSERT_TRUE(registry.ok()) << registry.error().message;
  ASSERT_NE(Find(registry->shortcuts, "Ctrl+S"), nullptr) << List(registry->shortcuts);
  EXPECT_EQ(Find(registry->shortcuts, "Ctrl+S")->action, "Save");
  ASSERT_NE(Find(registry->shortcuts, "Ctrl+Shift+S"), nullptr);
  EXPECT_EQ(Find(registry->shortcuts, "Ctrl+Shift+S")->action, "Save As…");
  std::cout << "gedit registry: tree read in " << registry->read.tree_ms << " ms\n";

  // Every action of the schema is an element of the app (hidden ones too:
  // the popover's items exist while it is closed).
  auto schema = FindAppSchema("gedit");
  ASSERT_TRUE(schema.ok() && schema->has_value());
  ObserveRequest all;
  all.app = "gedit";
  all.include_hidden = true;
  auto obs = lease.observer->Observe(all);
  ASSERT_TRUE(obs.ok());
  for (const Shortcut& s : (*schema)->shortcuts) {
    if (s.path.empty() && s.action != "Save" && s.action != "New" && s.action != "Open") continue;
    bool there = false;
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      there = there || ActionKey(n.name) == ActionKey(s.action);
    });
    EXPECT_TRUE(there) << "the schema names \"" << s.action << "\", which gedit lacks";
  }
}

TEST_F(GeditTest, SaveAsOpensItsDialogByShortcutAndByMenu) {
  {
    auto lease = Hands();
    ActionRequest r;
    auto hit = PlanShortcutPress(lease, "gedit", "Save As", nullptr, milliseconds(2000), r);
    ASSERT_TRUE(hit.ok()) << hit.error().message;
    EXPECT_EQ(hit->keys, "Ctrl+Shift+S");
    auto done = PerformAction(lease, r);
    ASSERT_TRUE(done.ok()) << done.error().message;
  }
  ASSERT_TRUE(WindowShown("gedit", "Save As")) << "Ctrl+Shift+S opened no Save As dialog";
  ASSERT_TRUE(Press("Escape").ok());
  ASSERT_TRUE(WindowShown("gedit", "Save As", false));
  {
    auto lease = Hands();
    MenuRequest r;
    r.app = "gedit";
    r.steps = *ParseMenuPath("Menu > Save As…");
    auto walked = WalkMenuPath(lease, r);
    ASSERT_TRUE(walked.ok()) << walked.error().message;
    EXPECT_TRUE(walked->performed);
  }
  ASSERT_TRUE(WindowShown("gedit", "Save As")) << "the menu opened no Save As dialog";
  ASSERT_TRUE(Press("Escape").ok());
  EXPECT_TRUE(WindowShown("gedit", "Save As", false));
}

}  // namespace
}  // namespace uiscope

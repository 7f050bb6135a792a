// Observation on every toolkit uiscope is tested with: the GTK 3, GTK 4 and
// Qt 5 Widgets fixture apps and Chromium showing the fixture page, each in a
// real headless desktop. The same tests run on each: roles and names of the
// form, bounds against the app's own geometry, stable IDs, moving the
// window, scrolled-out rows, passwords never read, and an observed app that
// keeps running without warnings.
//
// The expected geometry comes from the app, never from accessibility: the
// native fixtures compute it with their toolkit and the X server; Chromium's
// is the DOM's getBoundingClientRect() plus the X window's position.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <map>

#include "core/format.h"
#include "core/ids.h"
#include "engine/desktop.h"
#include "engine/find.h"
#include "engine/id_anchor_store.h"
#include "engine/observe.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::CountRole;
using test::FindNode;
using test::FixtureApp;
using test::ScreenBox;
using test::Toolkit;

// depth / role / name → ID, for every node whose key is unique.
std::map<std::string, std::string> IdsByKey(const std::vector<Node>& roots) {
  std::map<std::string, std::string> ids;
  std::map<std::string, int> seen;
  ForEachNode(roots, [&](const Node& n, int depth) {
    std::string key =
        std::to_string(depth) + "/" + std::string(RoleName(n.role)) + "/" + IdentityName(n);
    ids[key] = n.id;
    ++seen[key];
  });
  for (const auto& [key, count] : seen) {
    if (count > 1) ids.erase(key);
  }
  return ids;
}

std::string Describe(const Rect& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.w) + "," +
         std::to_string(r.h);
}

Rect ToRect(const ScreenBox& b) { return Rect{b.x, b.y, b.w, b.h}; }

bool Near(const Rect& a, const Rect& b, int tolerance = 2) {
  return std::abs(a.x - b.x) <= tolerance && std::abs(a.y - b.y) <= tolerance &&
         std::abs(a.w - b.w) <= tolerance && std::abs(a.h - b.h) <= tolerance;
}

class ToolkitObserveTest : public ::testing::TestWithParam<Toolkit> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop_.ok()) << desktop_.error();
    DesktopTarget target{desktop_.info().display_name, desktop_.info().dbus_address, ""};
    auto conn = ConnectDesktop(target);
    ASSERT_TRUE(conn.ok()) << conn.error().ToString();
    conn_ = std::move(conn).value();
  }

  Toolkit toolkit() const { return GetParam(); }

  void Launch(const test::AppOptions& options = {}) {
    app_ = test::LaunchApp(desktop_, toolkit(), options);
    ASSERT_NE(app_, nullptr);
  }

  // A fresh Observer each time (IDs must not depend on reconciliation),
  // polled until the form is there and `ready` holds: toolkits lay out a
  // change on their next frame, after the control command has answered.
  Result<Observation> ObserveFresh(
      const std::function<bool(const std::vector<Node>&)>& ready = nullptr,
      bool include_hidden = false) {
    Observer observer(*conn_.accessibility, conn_.frame);
    if (!anchors_dir_.empty())
      observer.set_anchor_store(std::make_unique<IdAnchorStore>(anchors_dir_));
    ObserveRequest r;
    r.pid = app_->pid();
    r.include_hidden = include_hidden;
    r.timeout = milliseconds(5000);
    Result<Observation> obs = MakeError(ErrorCode::kNotFound, "not yet");
    test::WaitUntil(
        [&] {
          obs = observer.Observe(r);
          return obs.ok() && FindNode(obs->snapshot.roots, Role::kButton, "Login") != nullptr &&
                 (!ready || ready(obs->snapshot.roots));
        },
        milliseconds(15000));
    return obs;
  }

  // The box a node's bounds are compared with: what the app draws, except
  // on GTK 4.8, whose accessible extents are content boxes (inside CSS
  // border and padding) that its fixture reports as `content NAME`.
  Result<ScreenBox> ExpectedBox(const std::string& widget) {
    if (toolkit() == Toolkit::kGtk4) return app_->Box("content " + widget);
    return app_->Box("widget " + widget);
  }

  // The node's bounds match the widget's geometry within 2 px; on GTK 4 they
  // also lie inside the drawn widget and share its centre.
  void ExpectBoundsMatch(const Node& node, const std::string& widget) {
    ASSERT_TRUE(node.bounds) << node.name << " has no bounds";
    auto expected = ExpectedBox(widget);
    ASSERT_TRUE(expected.ok()) << expected.error().ToString();
    EXPECT_TRUE(Near(*node.bounds, ToRect(*expected)))
        << node.name << ": uiscope " << Describe(*node.bounds) << ", app "
        << Describe(ToRect(*expected));
    if (toolkit() == Toolkit::kGtk4) {
      auto drawn = app_->Box("widget " + widget);
      ASSERT_TRUE(drawn.ok()) << drawn.error().ToString();
      Rect outer = ToRect(*drawn);
      EXPECT_TRUE(outer.Contains(*node.bounds))
          << node.name << ": " << Describe(*node.bounds) << " outside " << Describe(outer);
      EXPECT_NEAR(node.bounds->x * 2 + node.bounds->w, outer.x * 2 + outer.w, 4) << node.name;
      EXPECT_NEAR(node.bounds->y * 2 + node.bounds->h, outer.y * 2 + outer.h, 4) << node.name;
    }
  }

  // A control command's answer, or "error: ..." for EXPECT_EQ to show.
  std::string Answer(std::string_view command) {
    auto answer = app_->Command(command);
    return answer.ok() ? *answer : "error: " + answer.error().ToString();
  }

  test::TestDesktop& desktop_ = test::TestDesktop::Shared();
  DesktopConnection conn_;
  std::unique_ptr<FixtureApp> app_;
  // Set: ObserveFresh's observers share ID anchors there, as CLI calls do.
  std::string anchors_dir_;
};

TEST_P(ToolkitObserveTest, FormHasNormalisedRolesNamesAndRealBounds) {
  Launch();
  auto obs = ObserveFresh();
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  const auto& roots = obs->snapshot.roots;
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].role, Role::kApplication);
  EXPECT_EQ(roots[0].name, app_->app_name());
  EXPECT_EQ(roots[0].pid, app_->pid());

  const Node* window = FindNode(roots, Role::kWindow, "uiscope fixture");
  ASSERT_NE(window, nullptr);
  ASSERT_TRUE(window->bounds);
  auto client = app_->Box("geometry");
  ASSERT_TRUE(client.ok()) << client.error().ToString();
  // GTK 3 reports the window with its frame; the others the client area.
  EXPECT_TRUE(window->bounds->Contains(ToRect(*client)))
      << Describe(*window->bounds) << " vs client " << Describe(ToRect(*client));

  struct Expected {
    Role role;
    const char* name;
    const char* widget;
  };
  for (const Expected& e :
       {Expected{Role::kTextField, "Email", "email"},
        Expected{Role::kTextField, "Password", "password"},
        Expected{Role::kCheckBox, "Remember me", "remember"},
        Expected{Role::kButton, "Login", "login"}, Expected{Role::kButton, "Add row", "add_row"},
        Expected{Role::kSlider, "Volume", "volume"}}) {
    SCOPED_TRACE(e.name);
    const Node* node = FindNode(roots, e.role, e.name);
    ASSERT_NE(node, nullptr) << RoleName(e.role) << " \"" << e.name << "\" missing";
    ExpectBoundsMatch(*node, e.widget);
    EXPECT_TRUE(node->Has(State::kShowing));
    EXPECT_TRUE(node->Has(State::kEnabled));
    EXPECT_TRUE(node->Has(State::kFocusable));
  }

  // The status line: a label in the native toolkits; on the page the text
  // inside the status <div>, so it lies inside the div's box.
  const Node* status = FindNode(roots, Role::kLabel, "Not logged in");
  ASSERT_NE(status, nullptr);
  if (toolkit() == Toolkit::kChromium) {
    auto div = app_->Box("widget status");
    ASSERT_TRUE(div.ok()) << div.error().ToString();
    ASSERT_TRUE(status->bounds);
    EXPECT_TRUE(ToRect(*div).Contains(*status->bounds)) << Describe(*status->bounds);
  } else {
    ExpectBoundsMatch(*status, "status");
  }

  EXPECT_NE(FindNode(roots, Role::kLabel, "Email"), nullptr);
  EXPECT_NE(FindNode(roots, Role::kLabel, "Password"), nullptr);
  EXPECT_EQ(FindNode(roots, Role::kSlider, "Volume")->value, "25");
  EXPECT_FALSE(FindNode(roots, Role::kCheckBox, "Remember me")->Has(State::kChecked));

  // The list: five rows, each a list item with its label and Open button.
  EXPECT_EQ(CountRole(roots, Role::kListItem), 5);
  for (int i = 1; i <= 5; ++i) {
    EXPECT_NE(FindNode(roots, Role::kLabel, "Row " + std::to_string(i)), nullptr) << i;
  }
  // Login, Add row, five Open; on GTK 4 also Clear and the Undo icon.
  EXPECT_EQ(CountRole(roots, Role::kButton), 2 + 5 + (toolkit() == Toolkit::kGtk4 ? 2 : 0));
  // Each row reads as it shows: its label, then its Open button.
  ForEachNode(roots, [](const Node& n, int) {
    if (n.role != Role::kListItem) return;
    std::vector<std::string> seen;
    ForEachNode(n.children, [&](const Node& c, int) {
      if (c.role == Role::kLabel || c.role == Role::kButton) seen.push_back(c.name);
    });
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_TRUE(seen[0].starts_with("Row ")) << seen[0];
    EXPECT_EQ(seen[1], "Open");
  });
  // Labels carry their text as their name (Chromium keeps a <label>'s text
  // in a child text leaf).
  ForEachNode(roots, [](const Node& n, int) {
    if (n.role == Role::kLabel) {
      EXPECT_FALSE(n.name.empty()) << Describe(n.bounds.value_or(Rect{}));
    }
  });
  // The page's tab panel is one (Chromium calls it a scroll pane).
  if (toolkit() == Toolkit::kChromium) {
    const Node* panel = FindNode(roots, Role::kTabPanel, "General");
    ASSERT_NE(panel, nullptr);
    EXPECT_NE(FindNode(panel->children, Role::kLabel, "General settings"), nullptr);
  }

  {
    const Node* general = FindNode(roots, Role::kTab, "General");
    const Node* advanced = FindNode(roots, Role::kTab, "Advanced");
    ASSERT_NE(general, nullptr);
    ASSERT_NE(advanced, nullptr);
    EXPECT_TRUE(general->Has(State::kSelected));
    EXPECT_FALSE(advanced->Has(State::kSelected));
  }
  if (toolkit() == Toolkit::kGtk3 || toolkit() == Toolkit::kQt5) {
    EXPECT_NE(FindNode(roots, Role::kMenu, "File"), nullptr);
  }

  // One keyboard focus at most (Qt 5 marks the current tab "focused" too).
  int focused = 0;
  std::string which;
  ForEachNode(roots, [&](const Node& n, int) {
    if (n.Has(State::kFocused)) {
      ++focused;
      which += std::string(RoleName(n.role)) + " \"" + n.name + "\" ";
    }
  });
  EXPECT_LE(focused, 1) << which;
}

TEST_P(ToolkitObserveTest, ReadsFieldTextButNeverThePassword) {
  Launch();
  ASSERT_TRUE(app_->Command("set-email ada@example.org").ok());
  ASSERT_TRUE(app_->Command("set-password hunter2-secret").ok());
  auto obs = ObserveFresh([](const std::vector<Node>& roots) {
    const Node* email = FindNode(roots, Role::kTextField, "Email");
    return email != nullptr && email->value == "ada@example.org";
  });
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  EXPECT_EQ(FindNode(obs->snapshot.roots, Role::kTextField, "Email")->value, "ada@example.org");
  const Node* password = FindNode(obs->snapshot.roots, Role::kTextField, "Password");
  ASSERT_NE(password, nullptr);
  EXPECT_TRUE(password->Has(State::kPassword));
  EXPECT_TRUE(password->value.empty()) << password->value;
  for (bool include_hidden : {false, true}) {
    auto all = ObserveFresh(nullptr, include_hidden);
    ASSERT_TRUE(all.ok()) << all.error().ToString();
    ForEachNode(all->snapshot.roots, [](const Node& n, int) {
      EXPECT_EQ(n.value.find("hunter2"), std::string::npos) << n.name;
      EXPECT_EQ(n.name.find("hunter2"), std::string::npos) << n.name;
      EXPECT_EQ(n.description.find("hunter2"), std::string::npos) << n.name;
    });
  }
}

TEST_P(ToolkitObserveTest, IdsAreStableOverTenObservationsAndAfterMovingTheWindow) {
  Launch();
  auto first = ObserveFresh();
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  const auto ids = IdsByKey(first->snapshot.roots);
  ASSERT_GT(ids.size(), 15u);
  for (int i = 0; i < 10; ++i) {
    auto again = ObserveFresh();
    ASSERT_TRUE(again.ok()) << again.error().ToString();
    EXPECT_EQ(IdsByKey(again->snapshot.roots), ids) << "observation " << i;
  }

  const Rect login_before = *FindNode(first->snapshot.roots, Role::kButton, "Login")->bounds;
  auto moved_client = app_->Box("move 300 200", milliseconds(10000));
  ASSERT_TRUE(moved_client.ok()) << moved_client.error().ToString();
  auto moved = ObserveFresh([&](const std::vector<Node>& roots) {
    const Node* login = FindNode(roots, Role::kButton, "Login");
    return login->bounds && *login->bounds != login_before;
  });
  ASSERT_TRUE(moved.ok()) << moved.error().ToString();
  EXPECT_EQ(IdsByKey(moved->snapshot.roots), ids);
  // Bounds follow the window: they match the app's geometry at its new place.
  for (auto [role, name, widget] :
       {std::tuple{Role::kButton, "Login", "login"}, std::tuple{Role::kTextField, "Email", "email"},
        std::tuple{Role::kSlider, "Volume", "volume"}}) {
    SCOPED_TRACE(name);
    const Node* node = FindNode(moved->snapshot.roots, role, name);
    ASSERT_NE(node, nullptr);
    ExpectBoundsMatch(*node, widget);
  }
  const Node* window = FindNode(moved->snapshot.roots, Role::kWindow, "uiscope fixture");
  ASSERT_NE(window, nullptr);
  ASSERT_TRUE(window->bounds);
  EXPECT_TRUE(window->bounds->Contains(ToRect(*moved_client)));
}

TEST_P(ToolkitObserveTest, ScrolledOutRowsArePrunedUnlessAllIsAsked) {
  test::AppOptions options;
  options.rows = 200;
  Launch(options);
  auto shown = ObserveFresh();
  ASSERT_TRUE(shown.ok()) << shown.error().ToString();
  EXPECT_NE(FindNode(shown->snapshot.roots, Role::kLabel, "Row 1"), nullptr);
  EXPECT_EQ(FindNode(shown->snapshot.roots, Role::kLabel, "Row 150"), nullptr);
  const int visible_rows = CountRole(shown->snapshot.roots, Role::kListItem);
  EXPECT_GT(visible_rows, 5);
  EXPECT_LT(visible_rows, 60);
  // Every row uiscope shows lies (at least partly) inside the list's
  // visible area as the app reports it.
  auto list = app_->Box("widget list");
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  ForEachNode(shown->snapshot.roots, [&](const Node& n, int) {
    if (n.role != Role::kListItem || !n.bounds) return;
    EXPECT_FALSE(Intersect(*n.bounds, ToRect(*list)).Empty())
        << "row at " << Describe(*n.bounds) << " outside the list " << Describe(ToRect(*list));
  });

  auto all = ObserveFresh(
      [](const std::vector<Node>& roots) {
        return FindNode(roots, Role::kLabel, "Row 150") != nullptr;
      },
      /*include_hidden=*/true);
  ASSERT_TRUE(all.ok()) << all.error().ToString();
  EXPECT_NE(FindNode(all->snapshot.roots, Role::kLabel, "Row 150"), nullptr);
}

TEST_P(ToolkitObserveTest, ObservedAppKeepsRunningAndLogsNoWarning) {
  Launch();
  ASSERT_TRUE(ObserveFresh().ok());
  ASSERT_TRUE(ObserveFresh(nullptr, /*include_hidden=*/true).ok());
  // Still answering: Qt 5 crashed on the first Properties.GetAll.
  auto status = app_->Command("status");
  ASSERT_TRUE(status.ok()) << status.error().ToString();
  EXPECT_EQ(*status, "Not logged in");
  // Chromium's log is its own business (D-Bus services it looks for and
  // does not find); the fixture apps log nothing unless something is wrong.
  if (toolkit() != Toolkit::kChromium) {
    std::string log = app_->Log();
    EXPECT_EQ(log.find("CRITICAL"), std::string::npos) << log;
    EXPECT_EQ(log.find("WARNING"), std::string::npos) << log;
    EXPECT_EQ(log.find("Warning"), std::string::npos) << log;
  }
  EXPECT_TRUE(app_->Quit().ok());
}

// Qt 5: an open menu is a popup window outside its menu-bar item's box; the
// clipping Qt's scroll areas need must not prune it.
TEST(QtObserveTest, OpenMenuIsObserved) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto app = test::LaunchApp(desktop, Toolkit::kQt5);
  ASSERT_NE(app, nullptr);
  DesktopTarget target{desktop.info().display_name, desktop.info().dbus_address, ""};
  auto conn = ConnectDesktop(target);
  ASSERT_TRUE(conn.ok()) << conn.error().ToString();
  ASSERT_TRUE(app->Command("open-menu").ok());
  Observer observer(*conn->accessibility, conn->frame);
  ObserveRequest request;
  request.pid = app->pid();
  Result<Observation> obs = MakeError(ErrorCode::kNotFound, "not yet");
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        obs = observer.Observe(request);
        return obs.ok() && FindNode(obs->snapshot.roots, Role::kMenuItem, "Quit") != nullptr;
      },
      milliseconds(10000)));
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  const Node* file = FindNode(obs->snapshot.roots, Role::kMenu, "File");
  const Node* item = FindNode(obs->snapshot.roots, Role::kMenuItem, "New");
  ASSERT_NE(file, nullptr);
  ASSERT_NE(item, nullptr);
  ASSERT_TRUE(file->bounds && item->bounds);
  EXPECT_GE(item->bounds->y, file->bounds->Bottom() - 2);  // below the menu bar
}

// Every fixture's control channel, GTK 3's included.
using FixtureControlTest = ToolkitObserveTest;

// A tab's page shows only while the tab is selected: the other pages are
// not observed (GTK 4.8 marks every page a notebook has shown as visible,
// with the notebook's box; see ProbeStack in atspi_tree.cpp).
TEST_P(FixtureControlTest, OnlyTheSelectedTabsPageIsObserved) {
  Launch();
  auto shows = [&](const char* tab, const char* page, const char* hidden) {
    SCOPED_TRACE(tab);
    ASSERT_TRUE(app_->Command(std::string("select-tab ") + tab).ok());
    auto obs = ObserveFresh([&](const std::vector<Node>& roots) {
      const Node* selected = FindNode(roots, Role::kTab, tab);
      return selected != nullptr && selected->Has(State::kSelected) &&
             FindNode(roots, Role::kLabel, page) != nullptr;
    });
    ASSERT_TRUE(obs.ok()) << obs.error().ToString();
    EXPECT_NE(FindNode(obs->snapshot.roots, Role::kLabel, page), nullptr);
    EXPECT_EQ(FindNode(obs->snapshot.roots, Role::kLabel, hidden), nullptr);
  };
  // Back and forth: a page shown once keeps its geometry in GTK 4.
  shows("Advanced", "Advanced settings", "General settings");
  shows("General", "General settings", "Advanced settings");
  shows("Advanced", "Advanced settings", "General settings");
}

// The control channel of every fixture (the GTK 3 fixture's other commands
// are tested in tests/session): what action tests read back.

TEST_P(FixtureControlTest, ReadsTheAppStateBack) {
  Launch();
  EXPECT_EQ(Answer("text email"), "");
  ASSERT_TRUE(app_->Command("set-email a@b.c").ok());
  EXPECT_EQ(Answer("text email"), "a@b.c");
  ASSERT_TRUE(app_->Command("set-password pw").ok());
  EXPECT_EQ(Answer("text password"), "pw");
  EXPECT_EQ(Answer("checked remember"), "0");
  EXPECT_EQ(Answer("value volume"), "25");
  EXPECT_EQ(Answer("scroll list"), "0");
  EXPECT_TRUE(app_->Command("focus").ok());
  EXPECT_EQ(Answer("status"), "Not logged in");
  ASSERT_TRUE(app_->Command("click-login").ok());
  EXPECT_EQ(Answer("status"), "Logged in as a@b.c");
  EXPECT_EQ(Answer("insert-row"), "New row 1");
  EXPECT_EQ(Answer("rows"), "New row 1|Row 1|Row 2|Row 3|Row 4|Row 5");
  EXPECT_EQ(Answer("tab"), "General");
  ASSERT_TRUE(app_->Command("select-tab Advanced").ok());
  EXPECT_EQ(Answer("tab"), "Advanced");
  ASSERT_TRUE(app_->Command("later 50 Done").ok());
  EXPECT_TRUE(test::WaitUntil([&] { return Answer("status") == "Done"; }));
  EXPECT_FALSE(app_->Command("text volume").ok());
  EXPECT_FALSE(app_->Command("fly").ok());
  auto login = app_->Box("widget login");
  ASSERT_TRUE(login.ok()) << login.error().ToString();
  auto window = app_->Box("geometry");
  ASSERT_TRUE(window.ok()) << window.error().ToString();
  EXPECT_TRUE(ToRect(*window).Contains(ToRect(*login)));
  EXPECT_TRUE(app_->Quit().ok());
}

// Reading what a toolkit exposes in odd places (issue 15, part 7).
using Gtk4ReadingTest = ToolkitObserveTest;
using WebReadingTest = ToolkitObserveTest;

// GTK 4.8 names a button whose label has a mnemonic "_Clear Clear" and shows
// the label again as its child (gnome-calculator's "7 7"); an icon button
// has only a description, from its tooltip.
TEST_P(Gtk4ReadingTest, AButtonIsNamedOnceAndAnIconButtonByItsDescription) {
  Launch();
  auto obs = ObserveFresh([](const std::vector<Node>& roots) {
    return FindNode(roots, Role::kButton, "Clear") != nullptr ||
           FindNode(roots, Role::kButton, "_Clear Clear") != nullptr;
  });
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  const std::vector<Node>& roots = obs->snapshot.roots;
  EXPECT_EQ(FindNode(roots, Role::kButton, "Clear Clear"), nullptr);
  EXPECT_EQ(FindNode(roots, Role::kButton, "_Clear Clear"), nullptr);
  const Node* clear = FindNode(roots, Role::kButton, "Clear");
  ASSERT_NE(clear, nullptr);
  EXPECT_EQ(FindNode(clear->children, Role::kLabel, "Clear"), nullptr)
      << "the label that repeats the button's name is dropped";

  FindQuery query;
  query.name = "Undo last change";
  auto found = FindNodes(roots, query);
  ASSERT_TRUE(found.ok()) << found.error().ToString();
  ASSERT_GE(found->total, 1);
  const Node& undo = *found->matches[0].node;
  EXPECT_EQ(undo.role, Role::kButton);
  EXPECT_EQ(undo.description, "Undo last change [Ctrl+Z]");
  EXPECT_NE(FormatNodeLine(undo).find("desc=\"Undo last change [Ctrl+Z]\""), std::string::npos)
      << FormatNodeLine(undo);
}

// Chromium's <select> is a combo box whose text is one U+FFFC (its list of
// options, an embedded object): its value is the chosen option.
TEST_P(WebReadingTest, ASelectShowsItsChosenOption) {
  Launch();
  auto obs = ObserveFresh([](const std::vector<Node>& roots) {
    const Node* fruit = FindNode(roots, Role::kComboBox, "Fruit");
    return fruit != nullptr && !fruit->value.empty();
  });
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  const Node* fruit = FindNode(obs->snapshot.roots, Role::kComboBox, "Fruit");
  ASSERT_NE(fruit, nullptr);
  EXPECT_EQ(fruit->value, "Banana");
  ForEachNode(obs->snapshot.roots, [](const Node& n, int) {
    EXPECT_EQ(n.value.find("\xEF\xBF\xBC"), std::string::npos) << n.name << " holds U+FFFC";
  });
}

INSTANTIATE_TEST_SUITE_P(Gtk4, Gtk4ReadingTest, ::testing::Values(Toolkit::kGtk4),
                         [](const ::testing::TestParamInfo<Toolkit>& info) {
                           return std::string(test::ToolkitName(info.param));
                         });
INSTANTIATE_TEST_SUITE_P(Web, WebReadingTest, ::testing::Values(Toolkit::kChromium),
                         [](const ::testing::TestParamInfo<Toolkit>& info) {
                           return std::string(test::ToolkitName(info.param));
                         });

// Issue 15 §4: an element keeps its ID when the window is retitled, a field
// gets text and a status line new text (Chromium builds a new text object
// for it), in observers that share only the ID anchors (each CLI call has
// its own), with and without hidden nodes.
TEST_P(ToolkitObserveTest, IdsSurviveRetitleTypingAndNewTextAcrossObservers) {
  if (toolkit() != Toolkit::kGtk3 && toolkit() != Toolkit::kChromium) {
    GTEST_SKIP() << "only the GTK 3 and web fixtures retitle their window";
  }
  char tmpl[] = "/tmp/uiscope-anchors-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  anchors_dir_ = tmpl;
  Launch();
  auto ids = [](const std::vector<Node>& roots) {
    std::map<std::string, std::string> out;  // ID -> role "name"
    ForEachNode(roots, [&](const Node& n, int) {
      out[n.id] = std::string(RoleName(n.role)) + " \"" + n.name + "\"";
    });
    return out;
  };
  auto lost = [](const std::map<std::string, std::string>& before,
                 const std::map<std::string, std::string>& after) {
    std::string out;
    for (const auto& [id, what] : before) {
      if (!after.contains(id)) out += " " + id + " (" + what + ")";
    }
    return out;
  };
  auto shown = ObserveFresh();
  ASSERT_TRUE(shown.ok()) << shown.error().ToString();
  auto all = ObserveFresh(nullptr, /*include_hidden=*/true);
  ASSERT_TRUE(all.ok()) << all.error().ToString();
  const auto shown_before = ids(shown->snapshot.roots);
  const auto all_before = ids(all->snapshot.roots);
  EXPECT_EQ(lost(shown_before, all_before), "") << "printed without --all, not with it";

  EXPECT_EQ(Answer("title *Edited fixture"), "");
  EXPECT_EQ(Answer("set-email typed@example.org"), "");
  EXPECT_EQ(Answer("later 0 Logged in as typed"), "");
  auto changed = [](const std::vector<Node>& roots) {
    bool retitled = false;
    ForEachNode(roots, [&](const Node& n, int) {
      if (n.role == Role::kWindow && n.name.rfind("*Edited fixture", 0) == 0) retitled = true;
    });
    return retitled && FindNode(roots, Role::kLabel, "Logged in as typed") != nullptr;
  };
  auto shown_after = ObserveFresh(changed);
  ASSERT_TRUE(shown_after.ok()) << shown_after.error().ToString();
  ASSERT_TRUE(changed(shown_after->snapshot.roots)) << "the fixture did not change";
  auto all_after = ObserveFresh(changed, /*include_hidden=*/true);
  ASSERT_TRUE(all_after.ok()) << all_after.error().ToString();
  EXPECT_EQ(lost(shown_before, ids(shown_after->snapshot.roots)), "");
  EXPECT_EQ(lost(all_before, ids(all_after->snapshot.roots)), "");
  std::filesystem::remove_all(anchors_dir_);
}

INSTANTIATE_TEST_SUITE_P(NewFixtures, FixtureControlTest,
                         ::testing::Values(Toolkit::kGtk3, Toolkit::kQt5, Toolkit::kGtk4,
                                           Toolkit::kChromium),
                         [](const ::testing::TestParamInfo<Toolkit>& info) {
                           return std::string(test::ToolkitName(info.param));
                         });

INSTANTIATE_TEST_SUITE_P(Toolkits, ToolkitObserveTest,
                         ::testing::Values(Toolkit::kGtk3, Toolkit::kQt5, Toolkit::kGtk4,
                                           Toolkit::kChromium),
                         [](const ::testing::TestParamInfo<Toolkit>& info) {
                           return std::string(test::ToolkitName(info.param));
                         });

}  // namespace
}  // namespace uiscope

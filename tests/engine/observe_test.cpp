// Observer: unit tests over the fake accessibility, and desktop tests of
// ID stability on the real GTK3 fixture.
#include "engine/observe.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "core/diff.h"
#include "core/ids.h"
#include "engine/desktop.h"
#include "engine/perceive.h"
#include "support/desktop_fixture.h"
#include "support/fake_accessibility.h"
#include "support/fake_windows.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::CountRole;
using test::FindNode;

// role + name (+ derived label) → ID, for every node whose key is unique.
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

TEST(ObserverTest, AssignsIdsAndStats) {
  test::FakeAccessibility fake(test::LoadFixtureTree(UISCOPE_TREE_FIXTURES "/login.json"));
  Observer observer(fake, Frame{1920, 1080, 1.0});
  auto obs = observer.Observe(ObserveRequest{});
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  EXPECT_EQ(obs->snapshot.frame.width, 1920);
  EXPECT_EQ(obs->snapshot.stats.ax_nodes, 13);
  ForEachNode(obs->snapshot.roots, [](const Node& n, int) { EXPECT_FALSE(n.id.empty()); });
  const Node* login = FindNode(obs->snapshot.roots, Role::kButton, "Login");
  ASSERT_NE(login, nullptr);
  EXPECT_EQ(login->id.rfind("btn_", 0), 0u) << login->id;
}

TEST(ObserverTest, PassesScopeAndLimitsToTheBackend) {
  test::FakeAccessibility fake(test::LoadFixtureTree(UISCOPE_TREE_FIXTURES "/login.json"));
  Observer observer(fake, Frame{800, 600, 1.0});
  ObserveRequest r;
  r.pid = 4242;
  r.include_hidden = true;
  r.timeout = milliseconds(1234);
  ASSERT_TRUE(observer.Observe(r).ok());
  ASSERT_EQ(fake.requests().size(), 1u);
  EXPECT_EQ(fake.requests()[0].pid, 4242);
  EXPECT_TRUE(fake.requests()[0].include_hidden);
  EXPECT_EQ(fake.requests()[0].timeout, milliseconds(1234));
  r.pid = 1;
  auto missing = observer.Observe(r);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

// kcalc's and gtk3-widget-factory's main windows have no accessible name:
// they are named by their X11 title, in an observation and in a refresh,
// and a window with a name keeps it.
TEST(ObserverTest, AnUnnamedWindowTakesItsX11Title) {
  auto apps = test::LoadFixtureTree(UISCOPE_TREE_FIXTURES "/form.json");
  apps[0].children[0].name.clear();
  test::FakeAccessibility fake(apps);
  WindowInfo x;
  x.id = 0x400001;
  x.title = "KCalc";
  x.pid = 4343;
  x.bounds = Rect{100, 80, 600, 400};
  WindowInfo elsewhere = x;  // the same process's other window, far away
  elsewhere.id = 0x400002;
  elsewhere.title = "Other";
  elsewhere.bounds = Rect{900, 600, 300, 200};
  test::FakeWindows windows({elsewhere, x});
  Observer observer(fake, Frame{1920, 1080, 1.0});
  observer.set_windows(&windows);
  auto obs = observer.Observe(ObserveRequest{});
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  EXPECT_EQ(obs->snapshot.roots[0].children[0].name, "KCalc");
  auto refreshed = observer.RefreshApp(4343, milliseconds(1000));
  ASSERT_TRUE(refreshed.ok()) << refreshed.error().ToString();
  EXPECT_EQ(refreshed->snapshot.roots[0].children[0].name, "KCalc");
  EXPECT_TRUE(DiffTrees(obs->snapshot.roots, refreshed->snapshot.roots).empty());

  // A named window keeps its own name; a window of another process or one
  // that does not overlap gives none.
  fake.apps()[0].children[0].name = "Form";
  EXPECT_EQ(observer.Observe(ObserveRequest{})->snapshot.roots[0].children[0].name, "Form");
  fake.apps()[0].children[0].name.clear();
  fake.apps()[0].pid = 99;
  EXPECT_EQ(observer.Observe(ObserveRequest{})->snapshot.roots[0].children[0].name, "");
}

TEST(ObserverTest, RenamedLabelKeepsItsIdAcrossObservations) {
  test::FakeAccessibility fake(test::LoadFixtureTree(UISCOPE_TREE_FIXTURES "/login.json"));
  Observer observer(fake, Frame{800, 600, 1.0});
  auto first = observer.Observe(ObserveRequest{});
  ASSERT_TRUE(first.ok());
  std::string status_id = FindNode(first->snapshot.roots, Role::kLabel, "Not logged in")->id;

  // The status label changes its text: its identity hash changes, the
  // reconciliation pass keeps the ID (same parent, role and position).
  ForEachNodeMutable(fake.apps(), [](Node& n, int) {
    if (n.name == "Not logged in") n.name = "Logged in as ada@example.org";
  });
  auto second = observer.Observe(ObserveRequest{});
  ASSERT_TRUE(second.ok());
  const Node* status =
      FindNode(second->snapshot.roots, Role::kLabel, "Logged in as ada@example.org");
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->id, status_id);
}

// --- ID anchors shared between processes (issue 15 §4) -----------------------

std::vector<std::string> Ids(const std::vector<Node>& roots) {
  std::vector<std::string> ids;
  ForEachNode(roots, [&](const Node& n, int) { ids.push_back(n.id); });
  return ids;
}

class AnchoredObserverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/uiscope-anchors-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::vector<Node> apps = test::LoadFixtureTree(UISCOPE_TREE_FIXTURES "/login.json");
    test::GiveBackendRefs(apps);
    fake_ = std::make_unique<test::FakeAccessibility>(std::move(apps));
    fake_->honour_include_hidden = true;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A new process's Observer (each CLI call has one), sharing only the store.
  std::unique_ptr<Observer> NewObserver() {
    auto observer = std::make_unique<Observer>(*fake_, Frame{800, 600, 1.0});
    observer->set_anchor_store(std::make_unique<IdAnchorStore>(dir_));
    return observer;
  }
  Observation Observe(Observer& observer, bool include_hidden = false) {
    ObserveRequest r;
    r.include_hidden = include_hidden;
    auto obs = observer.Observe(r);
    EXPECT_TRUE(obs.ok()) << obs.error().ToString();
    return obs.ok() ? std::move(obs).value() : Observation{};
  }
  void Rename(const std::string& from, const std::string& to) {
    ForEachNodeMutable(fake_->apps(), [&](Node& n, int) {
      if (n.name == from) n.name = to;
    });
  }

  std::string dir_;
  std::unique_ptr<test::FakeAccessibility> fake_;
};

TEST_F(AnchoredObserverTest, ProcessesSharingTheStoreKeepIdsThroughRetitlesAndNewText) {
  const std::vector<std::string> before = Ids(Observe(*NewObserver()).snapshot.roots);
  ASSERT_NE(FindNode(fake_->apps(), Role::kWindow, "Sign in"), nullptr);
  Rename("Sign in", "*Sign in");                            // the window title gains '*' ...
  Rename("Not logged in", "Logged in as ada@example.org");  // ... and a label new text
  EXPECT_EQ(Ids(Observe(*NewObserver()).snapshot.roots), before);

  // Without the shared anchors a new process re-IDs the window's subtree.
  Observer alone(*fake_, Frame{800, 600, 1.0});
  const std::vector<std::string> hashed = Ids(Observe(alone).snapshot.roots);
  int same = 0;
  for (size_t i = 0; i < before.size(); ++i) same += before[i] == hashed[i];
  EXPECT_LT(same, static_cast<int>(before.size()) / 2);
}

TEST_F(AnchoredObserverTest, ObserveAndObserveAllGiveOneObjectOneId) {
  // A hidden "Login" button before the shown one shifts the shown one's
  // duplicate rank when hidden nodes are counted.
  Node* login = nullptr;
  ForEachNodeMutable(fake_->apps(), [&](Node& n, int) {
    if (n.role == Role::kButton && n.name == "Login") login = &n;
  });
  ASSERT_NE(login, nullptr);
  Node hidden = *login;
  hidden.states.Set(State::kShowing, false);
  hidden.ref.path += "-hidden";
  ForEachNodeMutable(fake_->apps(), [&](Node& n, int) {
    if (n.role != Role::kWindow) return;
    for (size_t i = 0; i < n.children.size(); ++i) {
      if (n.children[i].role == Role::kButton && n.children[i].name == "Login") {
        n.children.insert(n.children.begin() + static_cast<long>(i), hidden);
        break;
      }
    }
  });
  for (bool all_first : {false, true}) {
    std::filesystem::remove_all(dir_);
    Observation first = Observe(*NewObserver(), all_first);
    Observation second = Observe(*NewObserver(), !all_first);
    const Observation& all = all_first ? first : second;
    const Observation& shown = all_first ? second : first;
    std::vector<const Node*> all_logins;
    ForEachNode(all.snapshot.roots, [&](const Node& n, int) {
      if (n.role == Role::kButton && n.name == "Login") all_logins.push_back(&n);
    });
    ASSERT_EQ(all_logins.size(), 2u);
    const Node* shown_login = FindNode(shown.snapshot.roots, Role::kButton, "Login");
    ASSERT_NE(shown_login, nullptr);
    EXPECT_EQ(shown_login->id, all_logins[1]->id) << "observe --all first: " << all_first;
    EXPECT_NE(all_logins[0]->id, all_logins[1]->id);
    // Every other element too.
    ForEachNode(shown.snapshot.roots, [&](const Node& n, int) {
      EXPECT_NE(FindById(all.snapshot.roots, n.id), nullptr) << n.id << " " << n.name;
    });
  }
}

TEST_F(AnchoredObserverTest, StoreFilesArePrivateAndACorruptOneIsIgnoredWithAWarning) {
  const std::vector<std::string> before = Ids(Observe(*NewObserver()).snapshot.roots);
  const std::string file = IdAnchorStore(dir_).PathFor(":1." + fake_->apps()[0].name);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().extension(), ".json") << "a temporary was left: " << entry.path();
  }

  { std::ofstream(file, std::ios::trunc) << "{\"version\": 1, \"anchors\": [[\"/x\""; }
  Observation corrupt = Observe(*NewObserver());
  EXPECT_EQ(Ids(corrupt.snapshot.roots), before) << "the hash IDs, as with no anchors";
  ASSERT_FALSE(corrupt.warnings.empty());
  EXPECT_NE(corrupt.warnings.back().find("ignored the ID anchors"), std::string::npos)
      << corrupt.warnings.back();
  // ... and replaced by a good one.
  Rename("Not logged in", "Logged in");
  Observation renamed = Observe(*NewObserver());
  EXPECT_EQ(Ids(renamed.snapshot.roots), before);
  EXPECT_TRUE(renamed.warnings.empty());
}

TEST_F(AnchoredObserverTest, AnotherAppsFileUnderTheSameBusNameIsNotUsed) {
  const std::vector<std::string> before = Ids(Observe(*NewObserver()).snapshot.roots);
  Rename("Not logged in", "Logged in");
  // The app restarts with another pid on a new bus that reuses its bus name.
  ForEachNodeMutable(fake_->apps(), [](Node& n, int) { n.pid += 1; });
  Observation restarted = Observe(*NewObserver());
  EXPECT_TRUE(restarted.warnings.empty());
  const Node* status = FindNode(restarted.snapshot.roots, Role::kLabel, "Logged in");
  ASSERT_NE(status, nullptr);
  std::vector<Node> fresh = fake_->apps();
  AssignIds(fresh);
  EXPECT_EQ(status->id, FindNode(fresh, Role::kLabel, "Logged in")->id)
      << "the hash ID, not the other process's anchor";
}

TEST_F(AnchoredObserverTest, TheAnchorsOfAnAppThatWentAreDropped) {
  Observe(*NewObserver());
  const std::string file = IdAnchorStore(dir_).PathFor(":1." + fake_->apps()[0].name);
  ASSERT_TRUE(std::filesystem::exists(file));
  std::vector<Node> none;
  fake_->set_apps(none);
  Observe(*NewObserver());
  EXPECT_FALSE(std::filesystem::exists(file));
}

// --- Desktop: the GTK3 fixture ------------------------------------------------

class ObserveDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop_.ok()) << desktop_.error();
    fixture_ = desktop_.LaunchFixture();
    ASSERT_NE(fixture_, nullptr);
    Connect();
  }

  void Connect() {
    DesktopTarget target{desktop_.info().display_name, desktop_.info().dbus_address, ""};
    auto conn = ConnectDesktop(target);
    ASSERT_TRUE(conn.ok()) << conn.error().ToString();
    conn_ = std::move(conn).value();
  }

  // A fresh Observer each time: IDs must not depend on reconciliation.
  // Polls until `ready` holds: GTK lays out and maps a change on its next
  // frame, after the control command has answered.
  Result<Observation> ObserveFresh(
      int pid, const std::function<bool(const std::vector<Node>&)>& ready = nullptr) {
    Observer observer(*conn_.accessibility, conn_.frame);
    ObserveRequest r;
    r.pid = pid;
    Result<Observation> obs = MakeError(ErrorCode::kNotFound, "not yet");
    test::WaitUntil(
        [&] {
          obs = observer.Observe(r);
          return obs.ok() && !obs->snapshot.roots.empty() &&
                 FindNode(obs->snapshot.roots, Role::kButton, "Login") != nullptr &&
                 (!ready || ready(obs->snapshot.roots));
        },
        milliseconds(10000));
    return obs;
  }

  test::TestDesktop& desktop_ = test::TestDesktop::Shared();
  std::unique_ptr<Process> fixture_;
  DesktopConnection conn_;
};

TEST_F(ObserveDesktopTest, IdsAreIdenticalOverTenObservations) {
  auto first = ObserveFresh(fixture_->pid());
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  auto ids = IdsByKey(first->snapshot.roots);
  ASSERT_GT(ids.size(), 20u);
  for (int i = 0; i < 10; ++i) {
    auto again = ObserveFresh(fixture_->pid());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(IdsByKey(again->snapshot.roots), ids) << "observation " << i;
  }
}

TEST_F(ObserveDesktopTest, IdsSurviveMovingTypingInsertingAndRestarting) {
  auto before = ObserveFresh(fixture_->pid());
  ASSERT_TRUE(before.ok()) << before.error().ToString();
  auto ids = IdsByKey(before->snapshot.roots);
  const Node* row3 = FindNode(before->snapshot.roots, Role::kLabel, "Row 3");
  const Node* login = FindNode(before->snapshot.roots, Role::kButton, "Login");
  ASSERT_NE(row3, nullptr);
  ASSERT_NE(login, nullptr);
  std::string row3_id = row3->id, login_id = login->id;
  std::string email_id = FindNode(before->snapshot.roots, Role::kTextField, "Email")->id;

  // Move the window: bounds change, IDs do not.
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "move 300 200").ok());
  auto moved = ObserveFresh(fixture_->pid(), [&](const std::vector<Node>& roots) {
    return FindNode(roots, Role::kButton, "Login")->bounds != login->bounds;
  });
  ASSERT_TRUE(moved.ok());
  EXPECT_NE(FindNode(moved->snapshot.roots, Role::kButton, "Login")->bounds, login->bounds);
  EXPECT_EQ(IdsByKey(moved->snapshot.roots), ids);

  // Type into a field: its value changes, its ID does not.
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "set-email grace@example.org").ok());
  auto typed = ObserveFresh(fixture_->pid(), [](const std::vector<Node>& roots) {
    return FindNode(roots, Role::kTextField, "Email")->value == "grace@example.org";
  });
  ASSERT_TRUE(typed.ok());
  const Node* email = FindNode(typed->snapshot.roots, Role::kTextField, "Email");
  EXPECT_EQ(email->value, "grace@example.org");
  EXPECT_EQ(email->id, email_id);

  // Insert a row above: the existing rows keep theirs.
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "insert-row").ok());
  auto inserted = ObserveFresh(fixture_->pid(), [](const std::vector<Node>& roots) {
    return FindNode(roots, Role::kLabel, "New row 1") != nullptr;
  });
  ASSERT_TRUE(inserted.ok());
  ASSERT_NE(FindNode(inserted->snapshot.roots, Role::kLabel, "New row 1"), nullptr);
  EXPECT_EQ(FindNode(inserted->snapshot.roots, Role::kLabel, "Row 3")->id, row3_id);
  EXPECT_EQ(FindNode(inserted->snapshot.roots, Role::kButton, "Login")->id, login_id);

  // Restart the app: a new process, the same IDs.
  EXPECT_TRUE(test::FixtureCommand(*fixture_, "quit").ok());
  EXPECT_TRUE(fixture_->Wait(milliseconds(5000)).ok());
  fixture_ = desktop_.LaunchFixture();
  ASSERT_NE(fixture_, nullptr);
  auto restarted = ObserveFresh(fixture_->pid());
  ASSERT_TRUE(restarted.ok()) << restarted.error().ToString();
  EXPECT_EQ(IdsByKey(restarted->snapshot.roots), ids);
}

// Issue 15 §3: without named sources, the windows of apps whose tree
// cannot be read are read from pixels; naming sources gives exactly those.
TEST(ParseSourcesTest, NamingSourcesTurnsOffPixelsWhereBlind) {
  auto none = ParseSources({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->ax);
  EXPECT_FALSE(none->ocr || none->vision);
  EXPECT_TRUE(none->pixels_where_blind);
  auto empty = ParseSources({""});  // `--sources ''`, as the CLI splits it
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->pixels_where_blind);
  auto ax = ParseSources({"ax"});
  ASSERT_TRUE(ax.ok());
  EXPECT_FALSE(ax->pixels_where_blind);
  auto all = ParseSources({"ax", "", "ocr", "vision"});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->ocr && all->vision);
  EXPECT_FALSE(all->pixels_where_blind);
  EXPECT_FALSE(ParseSources({"ocr"}).ok()) << "ax or vision is required";
  EXPECT_FALSE(ParseSources({"ax", "pixels"}).ok());
}

// Issue 17 §4: vision alone (with OCR or not) is the pixels alone.
TEST(ParseSourcesTest, VisionWithoutAxIsThePixelsAlone) {
  auto vision = ParseSources({"vision"});
  ASSERT_TRUE(vision.ok()) << vision.error().message;
  EXPECT_FALSE(vision->ax);
  EXPECT_TRUE(vision->vision);
  EXPECT_FALSE(vision->ocr || vision->pixels_where_blind);
  auto with_ocr = ParseSources({"ocr", "vision"});
  ASSERT_TRUE(with_ocr.ok());
  EXPECT_FALSE(with_ocr->ax);
  EXPECT_TRUE(with_ocr->ocr && with_ocr->vision);
  auto unknown = ParseSources({"vision", "pixels"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown source \"pixels\" (valid: ax, ocr, vision)"),
            std::string::npos)
      << unknown.error().message;
}

}  // namespace
}  // namespace uiscope

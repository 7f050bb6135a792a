// The event-fed mirror (AtspiOptions::mirror, issue 16) against real apps on
// a headless desktop: after random changes, what the mirror serves equals a
// fresh walk by a second backend that keeps no mirror, on GTK 3, GTK 4,
// Qt 5 and Chromium; a lost event stream and an app that emits no events
// are detected and walked.
//
// The changes are made by the apps themselves (their control channel), never
// through accessibility: only the apps' events can tell the mirror of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "platform/accessibility.h"
#include "platform/atspi/atspi_tree.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::Toolkit;

AtspiOptions OptionsFor(const DesktopInfo& info, bool mirror) {
  AtspiOptions o;
  o.session_bus_address = info.dbus_address;
  o.display = info.display_name;
  o.mirror = mirror;
  return o;
}

std::string DescribeBounds(const std::optional<Rect>& r) {
  if (!r) return "-";
  return std::to_string(r->x) + "," + std::to_string(r->y) + "," + std::to_string(r->w) + "," +
         std::to_string(r->h);
}

// One line per node: depth, role, name, value, states, bounds.
std::vector<std::pair<std::string, std::optional<Rect>>> Lines(const std::vector<Node>& roots) {
  std::vector<std::pair<std::string, std::optional<Rect>>> out;
  ForEachNode(roots, [&](const Node& n, int depth) {
    std::string line = std::string(depth * 2, ' ') + std::string(RoleName(n.role)) + " \"" +
                       n.name + "\" value=\"" + n.value + "\"";
    for (std::string_view s : StateNames(n.states)) line += " " + std::string(s);
    out.emplace_back(line, n.bounds);
  });
  return out;
}

std::string Dump(const std::vector<Node>& roots) {
  std::string out;
  for (const auto& [line, bounds] : Lines(roots)) out += line + " @" + DescribeBounds(bounds) + "\n";
  return out;
}

// Equal in roles, names, values, states and child order, bounds within 2 px;
// "" when equal, else the first difference.
std::string Difference(const std::vector<Node>& a, const std::vector<Node>& b) {
  auto la = Lines(a);
  auto lb = Lines(b);
  for (size_t i = 0; i < std::min(la.size(), lb.size()); ++i) {
    if (la[i].first != lb[i].first) return "node " + std::to_string(i) + ": " + la[i].first +
                                           " vs " + lb[i].first;
    const auto& ra = la[i].second;
    const auto& rb = lb[i].second;
    if (ra.has_value() != rb.has_value() ||
        (ra && (std::abs(ra->x - rb->x) > 2 || std::abs(ra->y - rb->y) > 2 ||
                std::abs(ra->w - rb->w) > 2 || std::abs(ra->h - rb->h) > 2))) {
      return "node " + std::to_string(i) + " (" + la[i].first + "): bounds " +
             DescribeBounds(ra) + " vs " + DescribeBounds(rb);
    }
  }
  if (la.size() != lb.size()) {
    return std::to_string(la.size()) + " nodes vs " + std::to_string(lb.size());
  }
  return "";
}

class MirrorTest : public ::testing::TestWithParam<Toolkit> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop_.ok()) << desktop_.error();
    app_ = test::LaunchApp(desktop_, GetParam());
    ASSERT_NE(app_, nullptr);
    auto mirror = atspi::AtspiAccessibility::Connect(OptionsFor(desktop_.info(), true));
    ASSERT_TRUE(mirror.ok()) << mirror.error().ToString();
    mirror_ = std::move(mirror).value();
    auto reference = ConnectAtspi(OptionsFor(desktop_.info(), false));
    ASSERT_TRUE(reference.ok()) << reference.error().ToString();
    reference_ = std::move(reference).value();
    // Which events the app sends, per kind of change (the report's table).
    auto address = atspi::FindAccessibilityBus(OptionsFor(desktop_.info(), false));
    ASSERT_TRUE(address.ok()) << address.error().ToString();
    auto tap = atspi::EventWatcher::Start(
        *address, tap_book_, milliseconds(3000),
        [this](const std::string& sender, const std::string& event, const std::string& detail) {
          std::lock_guard lock(tap_mutex_);
          if (sender == app_bus_) seen_.insert(detail.empty() ? event : event + ":" + detail);
        });
    ASSERT_TRUE(tap.ok()) << tap.error().ToString();
    tap_ = std::move(tap).value();
    auto first = reference_->Tree(Request());
    ASSERT_TRUE(first.ok() && !first->apps.empty()) << "no tree of the fixture";
    std::lock_guard lock(tap_mutex_);
    app_bus_ = first->apps[0].ref.owner;
  }

  // The events the app sent since the last call.
  std::set<std::string> TakeEvents() {
    tap_->Sync({app_bus_}, std::chrono::steady_clock::now() + milliseconds(500));
    std::lock_guard lock(tap_mutex_);
    return std::exchange(seen_, {});
  }

  TreeRequest Request() const {
    TreeRequest r;
    r.pid = app_->pid();
    r.timeout = milliseconds(5000);
    return r;
  }

  // The reference walk, then the mirror's answer: any change the walk saw
  // had sent its events before the mirror's barrier, so a hit that differs
  // is a stale tree and fails at once. A walked answer that differs is
  // retried: a change still in progress (a relayout after the command
  // answered) shows between two walks.
  void ExpectMirrorEqualsWalk(const std::string& step) {
    std::string difference;
    Result<TreeResult> walked = MakeError(ErrorCode::kNotFound, "not yet");
    Result<TreeResult> mirrored = MakeError(ErrorCode::kNotFound, "not yet");
    for (int attempt = 0; attempt < 5; ++attempt) {
      walked = reference_->Tree(Request());
      mirrored = mirror_->Tree(Request());
      ASSERT_TRUE(walked.ok()) << step << ": " << walked.error().ToString();
      ASSERT_TRUE(mirrored.ok()) << step << ": " << mirrored.error().ToString();
      if (mirrored->cache == "hit") {
        ++hits_;
      } else if (mirrored->cache == "partial") {
        ++partials_;
      } else {
        ++misses_;
      }
      difference = Difference(mirrored->apps, walked->apps);
      if (difference.empty()) return;
      // A refresh in part reads after the walk, so it may show a change
      // the walk was too early for: it is compared again, and what it
      // stored is then served as a hit, which fails below if it was stale.
      if (mirrored->cache == "hit") {
        // Served from the mirror, yet older than a walk made before it: the
        // events of that change had been read (the barrier), so this is a
        // stale tree served as fresh, never a change in progress.
        ++stale_hits_;
        ADD_FAILURE() << step << ": attempt " << attempt
                      << ": the mirror served a tree older than the walk before it: "
                      << difference << "\n--- mirror\n"
                      << Dump(mirrored->apps) << "--- walk\n"
                      << Dump(walked->apps);
        return;
      } else if (mirrored->cache == "partial") {
        // Ahead of the walk when a walk made after it agrees.
        auto after = reference_->Tree(Request());
        ASSERT_TRUE(after.ok()) << step << ": " << after.error().ToString();
        ++partial_ahead_;
        if (Difference(mirrored->apps, after->apps).empty()) return;
      } else {
        ++settling_;
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
    ADD_FAILURE() << step << ": the mirror (cache " << mirrored->cache
                  << ") differs from a fresh walk: " << difference << "\n--- mirror\n"
                  << Dump(mirrored->apps) << "--- walk\n"
                  << Dump(walked->apps);
  }

  test::TestDesktop& desktop_ = test::TestDesktop::Shared();
  std::unique_ptr<test::FixtureApp> app_;
  std::unique_ptr<atspi::AtspiAccessibility> mirror_;
  std::unique_ptr<Accessibility> reference_;
  int hits_ = 0;
  int partials_ = 0;  // refreshed in part: the objects the events named read again
  int misses_ = 0;
  int stale_hits_ = 0;  // a hit that differed from the walk before it
  int partial_ahead_ = 0;  // a refresh in part that differed (read after the walk)
  int settling_ = 0;    // a walk that differed from the walk before it
  atspi::MirrorBook tap_book_;
  std::unique_ptr<atspi::EventWatcher> tap_;
  std::mutex tap_mutex_;
  std::string app_bus_;
  std::set<std::string> seen_;
};

// The number of random actions per toolkit: UISCOPE_MIRROR_ACTIONS, default
// 40 (the issue asks 200; the default keeps the suite's time reasonable).
int ActionCount() {
  const char* env = std::getenv("UISCOPE_MIRROR_ACTIONS");
  return env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 40;
}

TEST_P(MirrorTest, RandomChangesLeaveTheMirrorEqualToAFreshWalk) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  ExpectMirrorEqualsWalk("start");
  const int count = ActionCount();
  std::map<std::string, std::set<std::string>> events_by_verb;
  std::map<std::string, std::string> partial_by_verb;
  for (int i = 0; i < count && !HasFailure(); ++i) {
    std::string command;
    switch (rng() % 8) {
      case 0:
        command = "set-email user" + std::to_string(rng() % 1000) + "@example.org";
        break;
      case 1:
        command = "insert-row";
        break;
      case 2:
        command = "click-login";
        break;
      case 3:
        command = "move " + std::to_string(20 + rng() % 300) + " " + std::to_string(20 + rng() % 200);
        break;
      case 4:
        command = std::string("select-tab ") + (rng() % 2 ? "General" : "Advanced");
        break;
      case 5:
        command = "later 30 status " + std::to_string(rng() % 1000);
        break;
      case 6:
        // A dialog window opens (GTK 3's fixture only; the others answer
        // an error and the step changes nothing).
        command = "open-options";
        break;
      default:
        command = "";  // nothing changes: the mirror should be served
        break;
    }
    TakeEvents();
    // How often a refresh in part could serve this step (a measurement for
    // issue 16's next step, not a check): the tap's book holds a walk made
    // now, and after the change says which objects its events named.
    const atspi::MirrorBook::Mark mark = tap_book_.MarkOf(app_bus_);
    auto before = reference_->Tree(Request());
    ASSERT_TRUE(before.ok()) << before.error().ToString();
    tap_book_.Store(app_bus_, "k", mark, Node{});
    std::set<std::string> paths;
    ForEachNode(before->apps, [&](const Node& n, int) { paths.insert(n.ref.path); });
    if (!command.empty()) {
      auto answer = app_->Command(command);
      // A verb a toolkit's fixture lacks is skipped, not a failure.
      if (!answer.ok() && answer.error().code != ErrorCode::kInternal) {
        FAIL() << command << ": " << answer.error().ToString();
      }
    }
    ExpectMirrorEqualsWalk("action " + std::to_string(i) + " (" + command + ")");
    const std::string verb = command.empty() ? "(none)" : command.substr(0, command.find(' '));
    for (const std::string& e : TakeEvents()) events_by_verb[verb].insert(e);
    events_by_verb[verb];
    std::string& how = partial_by_verb[verb];
    auto dirty = tap_book_.Dirty(app_bus_, "k");
    if (mark.events == 0) {
      how += "?";  // no event before: the book does not vouch for the stream yet
    } else if (!dirty) {
      how += "w";  // an event that may change other objects, or too many objects
    } else if (dirty->empty()) {
      how += "-";  // no event
    } else {
      const bool all_in_tree = std::all_of(dirty->begin(), dirty->end(),
                                           [&](const auto& d) { return paths.count(d.path) > 0; });
      how += all_in_tree ? "p" : "o";  // p: could be refreshed in part; o: an object not in it
    }
  }
  std::cout << "refresh in part " << test::ToolkitName(GetParam())
            << " (p: possible, o: event on an object not in the tree, w: walk needed, -: no "
               "event):\n";
  for (const auto& [verb, how] : partial_by_verb) {
    std::cout << "  " << verb << ": p=" << std::count(how.begin(), how.end(), 'p')
              << " o=" << std::count(how.begin(), how.end(), 'o')
              << " w=" << std::count(how.begin(), how.end(), 'w')
              << " -=" << std::count(how.begin(), how.end(), '-') << "\n";
  }
  for (const auto& [verb, events] : events_by_verb) {
    std::cout << "events " << test::ToolkitName(GetParam()) << " " << verb << ":";
    for (const std::string& e : events) std::cout << " " << e;
    std::cout << "\n";
  }
  std::cout << test::ToolkitName(GetParam()) << ": " << count << " actions, " << hits_
            << " hits, " << partials_ << " refreshed in part, " << misses_ << " misses, "
            << stale_hits_ << " hits older than the walk before them, " << partial_ahead_
            << " refreshes in part that differed from the walk before them (then compared "
               "again), "
            << settling_
            << " walks that differed from the walk just before (changes in progress)\n";
  // The mirror is used at all: observations with nothing changed are hits;
  // GTK 4 does not report every change and is walked every time.
  // Changes that name a few objects (a label renamed, text typed) are
  // refreshed in part, and each such refresh was compared with a walk.
  if (GetParam() == Toolkit::kGtk4) {
    EXPECT_EQ(hits_, 0);
    EXPECT_EQ(partials_, 0);
  } else {
    EXPECT_GT(hits_, 0);
    EXPECT_GT(partials_, 0);
  }
}

TEST_P(MirrorTest, AnUnchangedAppIsServedFromTheMirrorAndFreshWalks) {
  if (GetParam() == Toolkit::kGtk4) GTEST_SKIP() << "GTK 4 is walked every time";
  // The mirror listens from its first observation on. These toolkits are
  // trusted to report changes, so a tree may be served before the change's
  // events arrive (Chromium's travel from its renderer): wait for a hit that
  // shows the change.
  ASSERT_TRUE(mirror_->Tree(Request()).ok());
  ASSERT_TRUE(app_->Command("set-email first@example.org").ok());
  // The hit is the one the wait saw: under load a late event of the
  // change (a caret move) may make the next call a walk, rightly.
  Result<TreeResult> hit = MakeError(ErrorCode::kTimeout, "no hit showing the change in 10 s");
  test::WaitUntil(
      [&] {
        auto t = mirror_->Tree(Request());
        if (!t.ok() || t->cache != "hit") return false;
        bool found = false;
        ForEachNode(t->apps, [&](const Node& n, int) {
          found = found || n.value == "first@example.org";
        });
        if (found) hit = std::move(t);
        return found;
      },
      milliseconds(10000));
  ASSERT_TRUE(hit.ok()) << hit.error().ToString();
  EXPECT_EQ(hit->cache, "hit");
  EXPECT_EQ(hit->requests, 0) << "a hit walks nothing";
  TreeRequest fresh = Request();
  fresh.fresh = true;
  auto walked = mirror_->Tree(fresh);
  ASSERT_TRUE(walked.ok()) << walked.error().ToString();
  EXPECT_EQ(walked->cache, "miss");
  EXPECT_GT(walked->requests, 0);
  EXPECT_EQ(Difference(hit->apps, walked->apps), "");
  // Issue 16: the mirror's memory, at most 1 KB per node.
  size_t nodes = 0;
  ForEachNode(hit->apps, [&](const Node&, int) { ++nodes; });
  const size_t bytes = mirror_->MirrorBytes();
  std::cout << "[ measured ] " << test::ToolkitName(GetParam()) << " mirror: " << bytes
            << " bytes for " << nodes << " nodes (" << bytes / std::max<size_t>(1, nodes)
            << " per node)\n";
  EXPECT_GT(bytes, 0u);
  EXPECT_LE(bytes, nodes * 1024);
}

TEST_P(MirrorTest, ALostEventStreamIsDetectedAndTheAppWalked) {
  if (GetParam() == Toolkit::kGtk4) GTEST_SKIP() << "GTK 4 is walked every time";
  ASSERT_TRUE(mirror_->Tree(Request()).ok());
  ASSERT_TRUE(app_->Command("set-email before@example.org").ok());
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        auto t = mirror_->Tree(Request());
        return t.ok() && t->cache == "hit";
      },
      milliseconds(10000)));
  // The events of this change never reach the mirror.
  mirror_->BreakEventStreamForTest();
  ASSERT_TRUE(app_->Command("set-email after@example.org").ok());
  bool seen = false;
  test::WaitUntil(
      [&] {
        auto t = mirror_->Tree(Request());
        EXPECT_TRUE(t.ok());
        if (!t.ok()) return true;
        bool found = false;
        ForEachNode(t->apps, [&](const Node& n, int) {
          found = found || n.value == "after@example.org";
        });
        seen = found;
        return found;
      },
      milliseconds(10000));
  EXPECT_TRUE(seen) << "the mirror kept serving the tree from before the lost events";
}

INSTANTIATE_TEST_SUITE_P(Toolkits, MirrorTest,
                         ::testing::Values(Toolkit::kGtk3, Toolkit::kGtk4, Toolkit::kQt5,
                                           Toolkit::kChromium),
                         [](const ::testing::TestParamInfo<Toolkit>& info) {
                           return std::string(test::ToolkitName(info.param));
                         });

// An AT-SPI app that emits no events at all (the huge-table fixture, on raw
// D-Bus): the mirror cannot vouch for it, so it is walked every time. Two
// guards hold this here: the app never proved its events reach us
// (MirrorBook's events_at_walk == 0; isolated in atspi_mirror_test.cpp) and
// its walk is cut (a sheet read by what is in view), and cut trees are not
// stored; the test fails only if both break.
TEST(MirrorSilentAppTest, AnAppThatEmitsNoEventsIsAlwaysWalked) {
  auto& desktop = test::TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  SpawnOptions spawn;
  spawn.argv = {UISCOPE_FIXTURE_HUGE_TABLE};
  spawn.capture_stdout = true;
  auto app = desktop.Launch(std::move(spawn));
  ASSERT_NE(app, nullptr);
  auto line = app->ReadLine(milliseconds(10000));
  ASSERT_TRUE(line.ok() && line->starts_with("ready ")) << desktop.last_log();
  auto mirror = atspi::AtspiAccessibility::Connect(OptionsFor(desktop.info(), true));
  ASSERT_TRUE(mirror.ok()) << mirror.error().ToString();
  TreeRequest r;
  r.pid = app->pid();
  r.timeout = milliseconds(5000);
  Result<TreeResult> t = MakeError(ErrorCode::kNotFound, "not yet");
  test::WaitUntil(
      [&] {
        t = (*mirror)->Tree(r);
        return t.ok() && !t->apps.empty();
      },
      milliseconds(10000));
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  for (int i = 0; i < 3; ++i) {
    auto again = (*mirror)->Tree(r);
    ASSERT_TRUE(again.ok()) << again.error().ToString();
    EXPECT_EQ(again->cache, "miss");
    EXPECT_GT(again->requests, 0);
  }
}

}  // namespace
}  // namespace uiscope

// Observing never harms the app observed (issue 15): the AT-SPI walk against
// uiscope-fixture-huge-table, a sheet that claims 2^31-1 children and
// manages its descendants as LibreOffice Calc's does, and that grows by
// hundreds of megabytes and stops answering when they are enumerated (see
// tests/fixtures/huge_table_app/main.cpp). The tests watch the app's memory
// (VmRSS) and whether it still answers a GetName at once after the walks.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "platform/accessibility.h"
#include "platform/atspi/atspi_tree.h"
#include "platform/atspi/dbus_connection.h"
#include "support/desktop_fixture.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::CountRole;
using test::FindNode;
using test::TestDesktop;

// Resident memory of `pid` in KiB (VmRSS of /proc/PID/status); -1 if unknown.
long RssKb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

AtspiOptions OptionsFor(const DesktopInfo& info) {
  AtspiOptions o;
  o.session_bus_address = info.dbus_address;
  o.display = info.display_name;
  return o;
}

class HugeTableTest : public ::testing::Test {
 protected:
  // Starts the fixture with `args` and connects; false (and a failure) if not.
  bool Start(std::vector<std::string> args) {
    if (!desktop_.ok()) {
      ADD_FAILURE() << desktop_.error();
      return false;
    }
    SpawnOptions spawn;
    spawn.argv = {UISCOPE_FIXTURE_HUGE_TABLE};
    for (auto& a : args) spawn.argv.push_back(std::move(a));
    spawn.capture_stdout = true;
    app_ = desktop_.Launch(std::move(spawn));
    if (app_ == nullptr) return false;
    auto line = app_->ReadLine(milliseconds(10000));
    if (!line.ok() || !line->starts_with("ready ")) {
      ADD_FAILURE() << "huge-table fixture did not get ready: "
                    << (line.ok() ? *line : line.error().ToString()) << "; its log "
                    << FileTail(desktop_.last_log(), 20);
      return false;
    }
    auto ax = ConnectAtspi(OptionsFor(desktop_.info()));
    if (!ax.ok()) {
      ADD_FAILURE() << ax.error().ToString();
      return false;
    }
    ax_ = std::move(ax).value();
    return true;
  }

  TreeRequest ForApp() const {
    TreeRequest r;
    r.pid = app_->pid();
    r.timeout = milliseconds(2000);
    return r;
  }

  // Asks the app's root for its Name over a fresh bus connection; the
  // request must be answered within `timeout`.
  Status AnswersGetName(milliseconds timeout) {
    auto address = atspi::FindAccessibilityBus(OptionsFor(desktop_.info()));
    if (!address.ok()) return address.error();
    auto bus = atspi::DbusConnection::Open(*address, milliseconds(3000));
    if (!bus.ok()) return bus.error();
    auto apps = ax_->ListApps();
    if (!apps.ok()) return apps.error();
    std::string bus_name;
    for (const AppInfo& a : *apps) {
      if (a.pid == app_->pid()) bus_name = a.bus_name;
    }
    if (bus_name.empty()) return MakeError(ErrorCode::kNotFound, "app not on the registry");
    atspi::MessagePtr get = atspi::NewMethodCall(bus_name, "/org/a11y/atspi/accessible/root",
                                                 "org.freedesktop.DBus.Properties", "Get");
    const char* iface = "org.a11y.atspi.Accessible";
    const char* prop = "Name";
    dbus_message_append_args(get.get(), DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &prop,
                             DBUS_TYPE_INVALID);
    auto reply = (*bus)->Call(std::move(get), timeout);
    if (!reply.ok()) return reply.error();
    return OkStatus();
  }

  TestDesktop& desktop_ = TestDesktop::Shared();
  std::unique_ptr<Process> app_;
  std::unique_ptr<Accessibility> ax_;
};

std::string Joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

TEST_F(HugeTableTest, ObservingASheetOfTwoBillionCellsLeavesTheAppWellAndReadsTheVisibleCells) {
  ASSERT_TRUE(Start({}));
  const long before = RssKb(app_->pid());
  ASSERT_GT(before, 0);

  auto start = std::chrono::steady_clock::now();
  auto tree = ax_->Tree(ForApp());
  const auto observe_ms =
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start).count();
  TreeRequest all = ForApp();
  all.include_hidden = true;
  auto all_tree = ax_->Tree(all);

  // The app first: its memory and whether it still answers at once.
  const long after = RssKb(app_->pid());
  EXPECT_LT(after - before, 50 * 1024)
      << "the app grew from " << before << " to " << after << " KiB while observed";
  Status answers = AnswersGetName(milliseconds(100));
  EXPECT_TRUE(answers.ok()) << "the app no longer answers: " << answers.error().ToString();

  ASSERT_TRUE(tree.ok()) << tree.error().ToString()
                         << "; the app's log:" << FileTail(desktop_.last_log(), 20);
  EXPECT_LT(observe_ms, 2000);
  const Node* table = FindNode(tree->apps, Role::kTable, "Sheet1");
  ASSERT_NE(table, nullptr);
  // 7 columns x 25 rows show; no cell that does not.
  EXPECT_EQ(CountRole(tree->apps, Role::kTableCell), 7 * 25);
  const Node* b2 = FindNode(tree->apps, Role::kTableCell, "B2");
  ASSERT_NE(b2, nullptr);
  EXPECT_EQ(b2->value, "120");
  ASSERT_TRUE(b2->bounds);
  EXPECT_EQ(*b2->bounds, (Rect{140, 80, 100, 20}));
  EXPECT_NE(FindNode(tree->apps, Role::kTableCell, "G25"), nullptr);
  EXPECT_EQ(FindNode(tree->apps, Role::kTableCell, "H1"), nullptr);
  EXPECT_EQ(FindNode(tree->apps, Role::kTableCell, "A26"), nullptr);
  // What was left out is said.
  EXPECT_NE(Joined(tree->warnings).find("Sheet1"), std::string::npos) << Joined(tree->warnings);

  ASSERT_TRUE(all_tree.ok()) << all_tree.error().ToString();
  EXPECT_EQ(CountRole(all_tree->apps, Role::kTableCell), 7 * 25);
}

TEST_F(HugeTableTest, AScrolledSheetShowsTheCellsInView) {
  ASSERT_TRUE(Start({"--first-row", "100", "--first-col", "3"}));
  auto tree = ax_->Tree(ForApp());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString()
                         << "; the app's log:" << FileTail(desktop_.last_log(), 20);
  EXPECT_EQ(CountRole(tree->apps, Role::kTableCell), 7 * 25);
  EXPECT_NE(FindNode(tree->apps, Role::kTableCell, "D101"), nullptr);
  EXPECT_NE(FindNode(tree->apps, Role::kTableCell, "J125"), nullptr);
  EXPECT_EQ(FindNode(tree->apps, Role::kTableCell, "A1"), nullptr);
  EXPECT_EQ(FindNode(tree->apps, Role::kTableCell, "K101"), nullptr);
  EXPECT_LT(RssKb(app_->pid()), 50 * 1024);
  EXPECT_TRUE(AnswersGetName(milliseconds(100)).ok());
}

TEST_F(HugeTableTest, AHugePlainContainerIsReadByIndexNotWholesale) {
  // No MANAGES_DESCENDANTS, no Table: the child count alone is absurd.
  ASSERT_TRUE(Start({"--plain", "1"}));
  const long before = RssKb(app_->pid());
  auto tree = ax_->Tree(ForApp());
  const long after = RssKb(app_->pid());
  EXPECT_LT(after - before, 50 * 1024);
  EXPECT_TRUE(AnswersGetName(milliseconds(100)).ok());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString()
                         << "; the app's log:" << FileTail(desktop_.last_log(), 20);
  EXPECT_NE(FindNode(tree->apps, Role::kTableCell, "A1"), nullptr);
  EXPECT_NE(Joined(tree->warnings).find("Sheet1"), std::string::npos) << Joined(tree->warnings);
}

}  // namespace
}  // namespace uiscope

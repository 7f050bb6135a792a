// Deadlines and true causes with a hung or dying app (issue 14, defect 7),
// on a real headless desktop with GTK3 fixtures: a wait ends by its
// deadline however long each application's walk may take, an element of an
// app that does not answer is reported as such (not "not found, observe
// again"), and a hung app does not hide the others.
//
// Timings are asserted as gross bounds only; the measured values are
// printed for the record.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <iostream>

#include "core/ids.h"
#include "engine/act.h"
#include "engine/wait_for.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::TestDesktop;
using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

class DeadlinesDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop().ok()) << desktop().error();
    WorkspaceOptions options;
    options.display = desktop().info().display_name;
    options.start_headless = false;
    workspace_ = std::make_unique<Workspace>(options);
  }

  void TearDown() override {
    // A hung fixture would not answer `quit`: end them without asking.
    for (auto& app : apps_) {
      ::kill(app->pid(), SIGKILL);
      (void)app->Wait(milliseconds(5000));
    }
  }

  static TestDesktop& desktop() { return TestDesktop::Shared(); }

  // A GTK3 fixture named `name`, its form in the accessibility tree.
  Process* Launch(const std::string& name) {
    auto app = desktop().LaunchFixture({"--name", name});
    if (!app) return nullptr;
    Status ready = test::WaitForAccessibleForm(desktop(), app->pid(), milliseconds(15000));
    EXPECT_TRUE(ready.ok()) << ready.error().ToString();
    apps_.push_back(std::move(app));
    return apps_.back().get();
  }

  Result<Observation> ObserveAll(milliseconds timeout = milliseconds(2000)) {
    auto lease = workspace_->Acquire();
    if (!lease.ok()) return lease.error();
    ObserveRequest r;
    r.timeout = timeout;
    return lease->observer->Observe(r);
  }

  std::string LoginId(const Observation& obs, int pid) {
    std::string id;
    ForEachNode(obs.snapshot.roots, [&](const Node& n, int) {
      if (id.empty() && n.pid == pid && n.role == Role::kButton && n.name == "Login") id = n.id;
    });
    return id;
  }

  std::unique_ptr<Workspace> workspace_;
  std::vector<std::unique_ptr<Process>> apps_;
};

TEST_F(DeadlinesDesktopTest, WaitForOnAHungAppEndsByItsDeadlineNamingTheApp) {
  Process* hung = Launch("uiscope-hung");
  ASSERT_NE(hung, nullptr);
  Process* other = Launch("uiscope-other");
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(ObserveAll().ok());
  ASSERT_TRUE(test::FixtureCommand(*hung, "hang 9000").ok());

  // Every poll observes the whole desktop; each walk of the hung app may
  // take tree_timeout (2000 ms), but no poll may outlast the wait.
  WaitForRequest r;
  r.condition.kind = WaitCondition::Kind::kText;
  r.condition.text = "never shown anywhere";
  r.condition.ocr = false;
  r.timeout = milliseconds(3000);
  auto t0 = Clock::now();
  auto result = WaitFor(*workspace_, r);
  double took = MsSince(t0);
  std::cout << "[ measured ] wait_for 3000 ms, hung app among two: " << took << " ms\n";
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_FALSE(result->satisfied);
  EXPECT_LT(took, 4000);
  const std::string pid = "(pid " + std::to_string(hung->pid()) + ")";
  ASSERT_EQ(result->not_answering.size(), 1u);
  EXPECT_NE(result->not_answering[0].find(pid), std::string::npos) << result->not_answering[0];

  // Scoped to the hung app, with less time than one walk's timeout: the
  // wait still ends by its deadline, and fails with the app as the cause.
  r.app = "uiscope-hung";
  r.timeout = milliseconds(1000);
  t0 = Clock::now();
  auto scoped = WaitFor(*workspace_, r);
  took = MsSince(t0);
  std::cout << "[ measured ] wait_for 1000 ms scoped to the hung app: " << took << " ms\n";
  EXPECT_LT(took, 1900);
  ASSERT_FALSE(scoped.ok());
  EXPECT_EQ(scoped.error().code, ErrorCode::kTimeout) << scoped.error().ToString();
  EXPECT_NE(scoped.error().message.find("not answering"), std::string::npos)
      << scoped.error().message;
  EXPECT_NE(scoped.error().message.find(pid), std::string::npos) << scoped.error().message;
}

TEST_F(DeadlinesDesktopTest, AHungAppDoesNotHideTheOthers) {
  Process* hung = Launch("uiscope-hung");
  ASSERT_NE(hung, nullptr);
  Process* other = Launch("uiscope-other");
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(ObserveAll().ok());
  ASSERT_TRUE(test::FixtureCommand(*hung, "hang 9000").ok());

  // The hung app registered first, so it is walked first; with one deadline
  // for the whole observation it must not use it all up.
  auto lease = workspace_->Acquire();
  ASSERT_TRUE(lease.ok());
  ObserveRequest r;
  r.timeout = milliseconds(2000);
  r.deadline = Clock::now() + milliseconds(1000);
  auto t0 = Clock::now();
  auto obs = lease->observer->Observe(r);
  double took = MsSince(t0);
  std::cout << "[ measured ] observe with a 1000 ms deadline, hung app first: " << took << " ms\n";
  ASSERT_TRUE(obs.ok()) << obs.error().ToString();
  EXPECT_LT(took, 1900);
  EXPECT_FALSE(LoginId(*obs, other->pid()).empty()) << "the answering app's tree is missing";
  EXPECT_TRUE(LoginId(*obs, hung->pid()).empty());
  ASSERT_EQ(obs->unanswered.size(), 1u);
  EXPECT_EQ(obs->unanswered[0].pid, hung->pid());
  bool warned = false;
  for (const auto& w : obs->warnings) {
    warned |=
        w.find("uiscope-hung (pid " + std::to_string(hung->pid()) + ")") != std::string::npos &&
        w.find("not answering") != std::string::npos;
  }
  EXPECT_TRUE(warned) << "no warning names the hung app";
}

TEST_F(DeadlinesDesktopTest, AnElementOfAHungAppIsNotAnsweringNotNotFound) {
  Process* hung = Launch("uiscope-hung");
  ASSERT_NE(hung, nullptr);
  auto first = ObserveAll();
  ASSERT_TRUE(first.ok());
  const std::string id = LoginId(*first, hung->pid());
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(test::FixtureCommand(*hung, "hang 9000").ok());
  // An observation during the hang leaves the app out (with a warning)...
  auto during = ObserveAll(milliseconds(800));
  ASSERT_TRUE(during.ok()) << during.error().ToString();
  EXPECT_TRUE(LoginId(*during, hung->pid()).empty());

  // ... and then its element's ID is not "unknown, observe again": its app
  // is not answering, which is what the agent must be told.
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  ASSERT_TRUE(lease.ok()) << lease.error().ToString();
  ActionRequest click;
  click.kind = ActionKind::kClick;
  click.target.id = id;
  click.timeout = milliseconds(1000);
  auto t0 = Clock::now();
  auto result = PerformAction(*lease, click);
  double took = MsSince(t0);
  std::cout << "[ measured ] click by ID on the hung app, 1000 ms deadline: " << took << " ms\n";
  ASSERT_FALSE(result.ok()) << "the click went through on a hung app";
  EXPECT_EQ(result.error().code, ErrorCode::kTimeout) << result.error().ToString();
  EXPECT_NE(result.error().message.find("not answering"), std::string::npos)
      << result.error().message;
  EXPECT_NE(result.error().message.find("(pid " + std::to_string(hung->pid()) + ")"),
            std::string::npos)
      << result.error().message;
  EXPECT_LT(took, 1900);
}

}  // namespace
}  // namespace uiscope

// Deny-listed applications are never observed: the Observer passes the
// filter to the backend (whose walk skips them) and drops what a backend
// returned anyway, for every path that observes.
#include <gtest/gtest.h>

#include "engine/observe.h"
#include "engine/workspace.h"
#include "support/fake_accessibility.h"

namespace uiscope {
namespace {

std::vector<Node> TwoApps() {
  auto apps = test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json");
  Node vault = apps.front();
  vault.name = "KeePassXC";
  vault.pid = 5151;
  apps.push_back(vault);
  return apps;
}

bool Denied(const std::string& app) { return app == "KeePassXC"; }

TEST(DenyList, DeniedAppsAreNotObserved) {
  test::FakeAccessibility ax(TwoApps());
  Observer observer(ax, Frame{1920, 1080, 1});
  observer.set_hide_app(Denied);
  auto obs = observer.Observe({});
  ASSERT_TRUE(obs.ok()) << obs.error().message;
  ASSERT_EQ(obs->snapshot.roots.size(), 1u);
  EXPECT_EQ(obs->snapshot.roots[0].name, "login-app");
  ASSERT_FALSE(ax.requests().empty());
  ASSERT_TRUE(ax.requests().back().skip_app);  // the walk itself skips it
  EXPECT_TRUE(ax.requests().back().skip_app("KeePassXC"));
}

TEST(DenyList, BackendsThatIgnoreTheFilterAreFilteredToo) {
  // A backend that returns everything, whatever the request says.
  class Careless final : public Accessibility {
   public:
    Result<std::vector<AppInfo>> ListApps() override { return std::vector<AppInfo>{}; }
    Result<TreeResult> Tree(const TreeRequest&) override {
      TreeResult r;
      r.apps = TwoApps();
      return r;
    }
  } careless;
  Observer observer(careless, Frame{1920, 1080, 1});
  observer.set_hide_app(Denied);
  auto obs = observer.Observe({});
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->snapshot.roots.size(), 1u);
  EXPECT_EQ(obs->snapshot.roots[0].name, "login-app");
}

TEST(DenyList, AskingForADeniedAppIsDenied) {
  test::FakeAccessibility ax(TwoApps());
  Observer observer(ax, Frame{1920, 1080, 1});
  observer.set_hide_app(Denied);
  ObserveRequest by_name;
  by_name.app = "KeePassXC";
  auto obs = observer.Observe(by_name);
  ASSERT_FALSE(obs.ok());
  EXPECT_EQ(obs.error().code, ErrorCode::kDenied);
  EXPECT_NE(obs.error().message.find("deny list"), std::string::npos);
  ObserveRequest by_pid;
  by_pid.pid = 5151;
  obs = observer.Observe(by_pid);
  ASSERT_FALSE(obs.ok());
  EXPECT_EQ(obs.error().code, ErrorCode::kDenied);
}

TEST(DenyList, WithoutAFilterEverythingIsObserved) {
  test::FakeAccessibility ax(TwoApps());
  Observer observer(ax, Frame{1920, 1080, 1});
  auto obs = observer.Observe({});
  ASSERT_TRUE(obs.ok());
  EXPECT_EQ(obs->snapshot.roots.size(), 2u);
}

}  // namespace
}  // namespace uiscope

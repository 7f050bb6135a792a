// The Chromium specialist's glue without a browser: AT-SPI twins lend their
// references and actions to the page's nodes, and an app without a DevTools
// endpoint keeps its AT-SPI page with a warning.
#include "engine/cdp_pages.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace uiscope {
namespace {

Node Make(Role role, std::string name, Rect bounds, std::string path = "") {
  Node n;
  n.role = role;
  n.name = std::move(name);
  n.bounds = bounds;
  if (!path.empty()) n.ref = BackendRef{":1.42", path};
  return n;
}

TEST(CdpPagesTest, TwinsWithinAPixelLendReferenceAndActions) {
  std::vector<Node> atspi = {Make(Role::kButton, "Send", {100, 200, 80, 24}, "/a/1"),
                             Make(Role::kComboBox, "", {300, 200, 77, 19}, "/a/2"),
                             Make(Role::kTextField, "Far", {10, 10, 50, 20}, "/a/3")};
  atspi[0].actions = {"click"};
  std::vector<Node> cdp = {Make(Role::kButton, "Send order", {101, 199, 80, 25}),
                           Make(Role::kComboBox, "Country", {300, 200, 77, 19}),
                           Make(Role::kButton, "Far", {10, 10, 50, 20}),        // role differs
                           Make(Role::kTextField, "Moved", {10, 13, 50, 20})};  // 3 px away
  JoinAtspiTwins(atspi, cdp);
  EXPECT_EQ(cdp[0].ref.path, "/a/1");
  EXPECT_EQ(cdp[0].actions, std::vector<std::string>{"click"});
  EXPECT_EQ(cdp[0].name, "Send order") << "the page's name stays";
  EXPECT_EQ(cdp[1].ref.path, "/a/2");
  EXPECT_TRUE(cdp[2].ref.empty());
  EXPECT_TRUE(cdp[3].ref.empty());
}

TEST(CdpPagesTest, WithoutAnEndpointThePageStaysWithAWarning) {
  Node doc = Make(Role::kDocument, "Shop", {0, 0, 800, 600}, "/doc");
  doc.toolkit_role = "document web";
  doc.children.push_back(Make(Role::kComboBox, "Country", {10, 10, 70, 20}, "/sel"));
  Node app;
  app.role = Role::kApplication;
  app.name = "Chromium";
  app.toolkit = "chromium";
  app.pid = getpid();  // this test: no --remote-debugging-port on its command line
  app.children.push_back(doc);
  Node gtk = app;
  gtk.toolkit = "gtk3";
  std::vector<Node> roots = {app, gtk};
  std::vector<std::string> warnings;
  CdpPages pages;
  EXPECT_EQ(pages.Apply(roots, CdpPagesOptions{}, warnings), 0);
  ASSERT_EQ(warnings.size(), 1u) << "the GTK app is none of its business";
  EXPECT_NE(warnings[0].find("AT-SPI only"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("--remote-debugging-port"), std::string::npos) << warnings[0];
  EXPECT_EQ(roots[0].children[0].children[0].ref.path, "/sel");
}

}  // namespace
}  // namespace uiscope

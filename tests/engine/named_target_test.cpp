// Find-then-act (engine/named_target.h): which elements a label names, on
// the login fixture tree.
#include "engine/named_target.h"

#include <gtest/gtest.h>

#include "core/ids.h"
#include "support/fake_accessibility.h"

namespace uiscope {
namespace {

std::vector<Node> Login() {
  auto roots = test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json");
  AssignIds(roots);
  return roots;
}

NamedTarget Label(std::string name, std::optional<Role> role = std::nullopt) {
  NamedTarget t;
  t.name = std::move(name);
  t.role = role;
  return t;
}

const Node* Named(const std::vector<Node>& roots, const std::string& name, Role role) {
  const Node* found = nullptr;
  std::function<void(const Node&)> walk = [&](const Node& n) {
    if (found == nullptr && n.name == name && n.role == role) found = &n;
    for (const Node& c : n.children) walk(c);
  };
  for (const Node& r : roots) walk(r);
  return found;
}

TEST(NamedTarget, TypingNamesTheFieldNotItsLabel) {
  auto roots = Login();
  auto r = ChooseNamedTarget(roots, Label("email"), ActionKind::kTypeText);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->matches, 2);  // the label and the field
  EXPECT_EQ(r->candidate_count, 1);
  EXPECT_EQ(r->id, Named(roots, "Email", Role::kTextField)->id);
}

TEST(NamedTarget, AFullMatchWinsOverPartialOnes) {
  auto roots = Login();
  auto r = ChooseNamedTarget(roots, Label("LOGIN"), ActionKind::kClick);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->candidate_count, 1);
  EXPECT_EQ(r->id, Named(roots, "Login", Role::kButton)->id);
}

TEST(NamedTarget, SeveralPartialMatchesAreAllCandidates) {
  auto roots = Login();
  auto r = ChooseNamedTarget(roots, Label("Row"), ActionKind::kClick);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->candidate_count, 2);
  ASSERT_EQ(r->candidates.size(), 2u);
  EXPECT_EQ(r->id, r->candidates[0].id);
  for (const Node& c : r->candidates) {
    EXPECT_TRUE(c.children.empty());
    EXPECT_EQ(c.name.rfind("Row ", 0), 0u) << c.name;
  }
}

TEST(NamedTarget, RoleAndAppNarrow) {
  auto roots = Login();
  NamedTarget label = Label("Email", Role::kLabel);
  auto r = ChooseNamedTarget(roots, label, ActionKind::kClick);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->id, Named(roots, "Email", Role::kLabel)->id);

  NamedTarget elsewhere = Label("Login");
  elsewhere.app = "gedit";
  auto none = ChooseNamedTarget(roots, elsewhere, ActionKind::kClick);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_NE(none.error().message.find("in gedit"), std::string::npos) << none.error().message;

  NamedTarget same_app = Label("Login");
  same_app.app = "LOGIN-APP";  // case-insensitive
  EXPECT_TRUE(ChooseNamedTarget(roots, same_app, ActionKind::kClick).ok());
}

TEST(NamedTarget, EmptyAndUnknownNamesAreClearErrors) {
  auto roots = Login();
  auto empty = ChooseNamedTarget(roots, Label("  "), ActionKind::kClick);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::kInvalidArgument);
  auto unknown = ChooseNamedTarget(roots, Label("Frobnicate"), ActionKind::kClick);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("Frobnicate"), std::string::npos);
}

}  // namespace
}  // namespace uiscope

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

// A form whose fields carry no name and no relation to their labels, as
// GTK draws a label and an entry side by side: only their places tie them.
std::vector<Node> UnnamedFields() {
  auto node = [](Role role, std::string name, Rect bounds) {
    Node n;
    n.role = role;
    n.name = std::move(name);
    n.bounds = bounds;
    n.app = "form";
    n.pid = 77;
    n.states.Set(State::kEnabled);
    n.states.Set(State::kShowing);
    if (role == Role::kTextField) n.states.Set(State::kEditable);
    return n;
  };
  Node window = node(Role::kWindow, "Form", {0, 0, 400, 300});
  Node first = node(Role::kTextField, "", {110, 18, 200, 24});
  first.states.Set(State::kFocused);
  window.children = {node(Role::kLabel, "First name", {20, 20, 80, 20}),
                     first,
                     node(Role::kLabel, "City", {20, 60, 40, 20}),
                     node(Role::kTextField, "", {110, 58, 200, 24}),
                     node(Role::kLabel, "Notes", {20, 100, 50, 20}),
                     node(Role::kTextField, "", {20, 124, 290, 24}),
                     node(Role::kLabel, "Alone", {20, 250, 50, 20}),
                     node(Role::kButton, "OK", {320, 250, 60, 24})};
  Node app = node(Role::kApplication, "form", {0, 0, 400, 300});
  app.children = {window};
  std::vector<Node> roots{app};
  AssignIds(roots);
  return roots;
}

// "type --name City" clicked the label and typed into the focused First
// name field: for text, a label stands for the field beside it (to its
// right in its row, else below it), never for itself.
TEST(NamedTarget, ALabelNamesTheFieldBesideOrBelowItForText) {
  auto roots = UnnamedFields();
  const Node& window = roots[0].children[0];
  auto city = ChooseNamedTarget(roots, Label("City"), ActionKind::kTypeText);
  ASSERT_TRUE(city.ok()) << city.error().message;
  EXPECT_EQ(city->id, window.children[3].id) << "the field right of \"City\"";
  EXPECT_EQ(city->candidate_count, 1);
  auto notes = ChooseNamedTarget(roots, Label("Notes"), ActionKind::kSetValue);
  ASSERT_TRUE(notes.ok()) << notes.error().message;
  EXPECT_EQ(notes->id, window.children[5].id) << "the field below \"Notes\"";
  auto first = ChooseNamedTarget(roots, Label("first name"), ActionKind::kTypeText);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->id, window.children[1].id);

  // A label with no field beside or below it names nothing to type into.
  auto alone = ChooseNamedTarget(roots, Label("Alone"), ActionKind::kTypeText);
  ASSERT_FALSE(alone.ok());
  EXPECT_EQ(alone.error().code, ErrorCode::kNotFound);
  EXPECT_NE(alone.error().message.find("no field sits to its right or below it"), std::string::npos)
      << alone.error().message;
  // A click still names what it names.
  auto click = ChooseNamedTarget(roots, Label("City"), ActionKind::kClick);
  ASSERT_TRUE(click.ok());
  EXPECT_EQ(click->id, window.children[2].id);
}

}  // namespace
}  // namespace uiscope

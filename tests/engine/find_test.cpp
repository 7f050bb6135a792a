// find (engine/find.h) on hand-built trees: fuzzy matching, ranking, click
// points and "Similar:" suggestions.
#include "engine/find.h"

#include <gtest/gtest.h>

#include <chrono>

#include "core/ids.h"
#include "mcp/wire.h"

namespace uiscope {
namespace {

Node MakeNode(Role role, std::string name, Rect bounds, std::vector<Node> children = {}) {
  Node n;
  n.role = role;
  n.name = std::move(name);
  n.bounds = bounds;
  n.states.Set(State::kEnabled);
  n.children = std::move(children);
  return n;
}

Node Painted(Role role, std::string name, Rect bounds, float confidence) {
  Node n = MakeNode(role, std::move(name), bounds);
  n.source = Source::kVision;
  n.confidence = confidence;
  return n;
}

std::vector<Node> Tree() {
  std::vector<Node> roots = {
      MakeNode(Role::kWindow, "Sign in", Rect{0, 0, 800, 600},
               {MakeNode(Role::kLabel, "Login", Rect{10, 10, 60, 20}),
                MakeNode(Role::kButton, "Login", Rect{100, 10, 80, 30}),
                MakeNode(Role::kButton, "Log out", Rect{200, 10, 80, 30}),
                MakeNode(Role::kCheckBox, "Remember me", Rect{10, 60, 120, 20}),
                MakeNode(Role::kTextField, "Mot de passe réseau", Rect{10, 100, 200, 30}),
                MakeNode(Role::kCanvas, "", Rect{0, 300, 800, 300},
                         {Painted(Role::kButton, "Login", Rect{20, 320, 90, 36}, 0.7f),
                          Painted(Role::kButton, "Apply", Rect{780, 560, 100, 80}, 0.7f)})})};
  AssignIds(roots);
  return roots;
}

TEST(FindTest, RanksByScoreThenInteractiveThenConfidence) {
  const std::vector<Node> roots = Tree();
  FindQuery q;
  q.name = "login";
  auto r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 3) << "\"Log out\" is not \"login\"";
  EXPECT_EQ(r->matches[0].node->role, Role::kButton);
  EXPECT_EQ(r->matches[0].node->source, Source::kAx) << "accessible before pixel-only";
  EXPECT_EQ(r->matches[1].node->source, Source::kVision);
  EXPECT_EQ(r->matches[2].node->role, Role::kLabel) << "interactive before the rest";
  for (const FindMatch& m : r->matches) EXPECT_DOUBLE_EQ(m.score, 1.0);
  EXPECT_GT(r->searched, 7);
}

// Of equal matches, what input can reach now comes first: the modal dialog's
// control before the same-named one of the window behind it, the active
// window's before another window's, an enabled control before a disabled one.
// A line of an element's value (a terminal's output, a page's text) is
// searched too, below the labels, and the match names the line; a password
// field's value never is.
TEST(FindTest, SearchesValuesAndNamesTheLine) {
  Node terminal = MakeNode(Role::kTerminal, "Terminal", Rect{0, 0, 600, 400});
  terminal.value = "$ echo start\nstart\n$ echo hello-3491\nhello-3491\n$ ";
  Node secret = MakeNode(Role::kTextField, "Password", Rect{0, 420, 200, 30});
  secret.states.Set(State::kPassword);
  secret.value = "hello-3491";  // never read in practice; never searched either
  Node button = MakeNode(Role::kButton, "Say hello", Rect{300, 420, 80, 30});
  std::vector<Node> roots = {MakeNode(Role::kWindow, "Shell", Rect{0, 0, 800, 600},
                                      {std::move(terminal), std::move(secret),
                                       std::move(button)})};
  AssignIds(roots);
  FindQuery q;
  q.name = "hello-3491";
  auto r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 1) << "the terminal alone";
  EXPECT_EQ(r->matches[0].node->role, Role::kTerminal);
  EXPECT_EQ(r->matches[0].line, "hello-3491") << "the line that matches best: the output";
  EXPECT_LT(r->matches[0].score, 1.0);
  EXPECT_NE(FormatFindMatch(r->matches[0]).find(" line=\"hello-3491\""), std::string::npos)
      << FormatFindMatch(r->matches[0]);

  q.name = "hello";
  r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 2);
  EXPECT_EQ(r->matches[0].node->role, Role::kButton) << "a label before a value line";
  EXPECT_TRUE(r->matches[0].line.empty());
}

TEST(FindTest, RanksWhatInputCanReachFirst) {
  Node save_dialog = MakeNode(Role::kDialog, "Save As", Rect{200, 150, 400, 300},
                              {MakeNode(Role::kTextField, "Width", Rect{220, 200, 100, 30}),
                               MakeNode(Role::kButton, "Save", Rect{480, 400, 80, 30})});
  save_dialog.states.Set(State::kModal);
  Node main = MakeNode(Role::kWindow, "Sheet", Rect{0, 0, 1000, 700},
                       {MakeNode(Role::kButton, "Save", Rect{10, 30, 30, 30}),
                        MakeNode(Role::kSpinButton, "Width", Rect{60, 30, 60, 30})});
  main.states.Set(State::kActive);  // the app's own idea, behind its modal dialog
  Node app = MakeNode(Role::kApplication, "demo", Rect{},
                      {std::move(main), std::move(save_dialog)});
  Node export_disabled = MakeNode(Role::kButton, "Export", Rect{10, 10, 80, 30});
  export_disabled.states.Set(State::kEnabled, false);
  Node other = MakeNode(Role::kApplication, "other", Rect{},
                        {MakeNode(Role::kWindow, "Export Image", Rect{0, 0, 500, 400},
                                  {std::move(export_disabled),
                                   MakeNode(Role::kButton, "Export", Rect{100, 10, 80, 30})})});
  std::vector<Node> roots = {std::move(app), std::move(other)};
  AssignIds(roots);

  FindQuery q;
  q.name = "Save";
  q.exact = true;
  auto r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 2);
  EXPECT_EQ(r->matches[0].node->bounds, (Rect{480, 400, 80, 30})) << "the modal dialog's first";

  q.name = "Width";
  r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 2);
  EXPECT_EQ(r->matches[0].node->role, Role::kTextField) << "not the spin button behind the dialog";

  q.name = "Export";
  r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 2);
  EXPECT_TRUE(r->matches[0].node->Has(State::kEnabled)) << "enabled before disabled";

  // Without a modal window, the active window's control comes first.
  Node left = MakeNode(Role::kWindow, "Left", Rect{0, 0, 400, 300},
                       {MakeNode(Role::kButton, "OK", Rect{10, 10, 80, 30})});
  Node right = MakeNode(Role::kWindow, "Right", Rect{500, 0, 400, 300},
                        {MakeNode(Role::kButton, "OK", Rect{510, 10, 80, 30})});
  right.states.Set(State::kActive);
  std::vector<Node> two = {MakeNode(Role::kApplication, "demo", Rect{},
                                    {std::move(left), std::move(right)})};
  AssignIds(two);
  q.name = "OK";
  r = FindNodes(two, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 2);
  EXPECT_EQ(r->matches[0].node->bounds->x, 510) << "the active window's first";
}

TEST(FindTest, LearnedHitsRankFirstAmongEqualMatches) {
  Node a = MakeNode(Role::kButton, "Save", Rect{10, 10, 80, 30});
  a.id = "btn_a";
  Node b = MakeNode(Role::kButton, "Save", Rect{100, 10, 80, 30});
  b.id = "btn_b";
  Node label = MakeNode(Role::kLabel, "Saved", Rect{200, 10, 80, 30});
  label.id = "lbl_c";
  std::vector<Node> roots = {
      MakeNode(Role::kWindow, "Editor", Rect{0, 0, 800, 600}, {a, b, label})};
  FindQuery query;
  query.name = "Save";
  auto plain = FindNodes(roots, query);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->matches[0].node->id, "btn_a");  // reading order
  query.learned_hits = [](const Node& n) { return n.id == "btn_b" ? 5 : n.id == "lbl_c" ? 9 : 0; };
  auto learned = FindNodes(roots, query);
  ASSERT_TRUE(learned.ok());
  EXPECT_EQ(learned->matches[0].node->id, "btn_b");
  // Hits never lift a worse label match over a better one.
  EXPECT_NE(learned->matches[0].node->id, "lbl_c");
}

TEST(FindTest, RoleFilterExactAndRoleOnly) {
  const std::vector<Node> roots = Tree();
  FindQuery button;
  button.name = "Login";
  button.role = Role::kButton;
  auto b = FindNodes(roots, button);
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->total, 2);
  EXPECT_EQ(b->matches[0].node->id, roots[0].children[1].id);

  FindQuery exact;
  exact.name = "login";
  exact.exact = true;
  EXPECT_EQ(FindNodes(roots, exact)->total, 0) << "exact is case-sensitive";
  exact.name = "Login";
  EXPECT_EQ(FindNodes(roots, exact)->total, 3);

  FindQuery boxes;
  boxes.role = Role::kCheckBox;
  EXPECT_EQ(FindNodes(roots, boxes)->total, 1);
  EXPECT_FALSE(FindNodes(roots, FindQuery{}).ok()) << "neither name nor role";
}

TEST(FindTest, AccentsWordOrderPrefixesAndLongTypos) {
  const std::vector<Node> roots = Tree();
  for (const char* query : {"RESEAU", "passe mot", "mot de pas", "Mot de passe resau"}) {
    FindQuery q;
    q.name = query;
    auto r = FindNodes(roots, q);
    ASSERT_TRUE(r.ok());
    ASSERT_GE(r->total, 1) << query;
    EXPECT_EQ(r->matches[0].node->role, Role::kTextField) << query;
    EXPECT_LT(r->matches[0].score, 1.0) << query;
  }
  FindQuery better;
  better.name = "remember me";
  FindQuery partial;
  partial.name = "remember";
  EXPECT_GT(FindNodes(roots, better)->matches[0].score,
            FindNodes(roots, partial)->matches[0].score);
}

// kcalc names its "AC" key nothing and describes it "Clear Display
// [Escape]"; gnome-calculator's "Undo" button is described "Undo [Ctrl+Z]".
std::vector<Node> DescribedTree() {
  Node clear = MakeNode(Role::kButton, "", Rect{10, 10, 40, 30});
  clear.description = "Clear Display [Escape]";
  Node undo = MakeNode(Role::kButton, "Undo", Rect{60, 10, 40, 30});
  undo.description = "Undo [Ctrl+Z]";
  Node display = MakeNode(Role::kLabel, "Display", Rect{10, 50, 200, 30});
  Node submit = MakeNode(Role::kButton, "Submit", Rect{10, 90, 80, 30});
  std::vector<Node> roots = {MakeNode(Role::kWindow, "KCalc", Rect{0, 0, 300, 200},
                                      {clear, undo, display, submit})};
  AssignIds(roots);
  return roots;
}

TEST(FindTest, AnUnnamedElementIsFoundByItsDescription) {
  const std::vector<Node> roots = DescribedTree();
  FindQuery q;
  q.name = "Clear Display";
  auto r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_GE(r->total, 1);
  EXPECT_EQ(r->matches[0].node->description, "Clear Display [Escape]");

  FindQuery exact;
  exact.name = "Clear Display [Escape]";
  exact.exact = true;
  auto e = FindNodes(roots, exact);
  ASSERT_EQ(e->total, 1) << "the description is the unnamed element's whole label";
  EXPECT_EQ(e->matches[0].node->role, Role::kButton);

  FindQuery typo;
  typo.name = "Claer Dispaly";
  auto t = FindNodes(roots, typo);
  ASSERT_GE(t->total, 1);
  EXPECT_EQ(t->matches[0].node->description, "Clear Display [Escape]");

  FindQuery miss;
  miss.name = "Clear Dsplay Now";
  auto m = FindNodes(roots, miss);
  EXPECT_EQ(m->total, 0);
  ASSERT_FALSE(m->similar.empty());
  EXPECT_EQ(m->similar[0].name, "Clear Display [Escape]") << "suggested by its description";
}

TEST(FindTest, ANamedElementsDescriptionRanksBelowNames) {
  const std::vector<Node> roots = DescribedTree();
  FindQuery q;
  q.name = "ctrl z";
  auto r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 1);
  EXPECT_EQ(r->matches[0].node->name, "Undo");
  EXPECT_LT(r->matches[0].score, 0.95);

  FindQuery display;
  display.name = "display";
  auto d = FindNodes(roots, display);
  ASSERT_EQ(d->total, 2);
  EXPECT_EQ(d->matches[0].node->name, "Display") << "a name before a description";
  EXPECT_GT(d->matches[0].score, d->matches[1].score);
}

TEST(FindTest, SwappedLettersFindTheElementBelowAnExactMatch) {
  std::vector<Node> roots = DescribedTree();
  FindQuery q;
  q.name = "Sumbit";
  auto r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 1);
  EXPECT_EQ(r->matches[0].node->name, "Submit");
  EXPECT_LT(r->matches[0].score, 1.0);
  roots[0].children.push_back(MakeNode(Role::kButton, "Sumbit", Rect{100, 90, 80, 30}));
  AssignIds(roots);
  auto both = FindNodes(roots, q);
  ASSERT_EQ(both->total, 2);
  EXPECT_EQ(both->matches[0].node->name, "Sumbit") << "the exact name first";
  EXPECT_EQ(both->matches[1].node->name, "Submit");
}

TEST(FindTest, ClickPointIsTheCentreOfTheVisiblePart) {
  const std::vector<Node> roots = Tree();
  FindQuery q;
  q.name = "Apply";
  Frame frame;
  frame.width = 800;
  frame.height = 600;
  auto r = FindNodes(roots, q, frame);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->total, 1);
  ASSERT_TRUE(r->matches[0].click_point.has_value());
  // 780,560,100,80 clipped to 800x600 is 780,560,20,40.
  EXPECT_EQ(*r->matches[0].click_point, (Point{790, 580}));
  auto unclipped = FindNodes(roots, q);
  EXPECT_EQ(*unclipped->matches[0].click_point, (Point{830, 600}));
}

TEST(FindTest, NothingMatchesThenSimilarNamesAreSuggested) {
  const std::vector<Node> roots = Tree();
  FindQuery q;
  q.name = "Logn";
  auto r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total, 0);
  EXPECT_TRUE(r->matches.empty());
  ASSERT_GE(r->similar.size(), 2u);
  EXPECT_EQ(r->similar[0].name, "Login");
  EXPECT_EQ(r->similar[0].role, Role::kButton) << "per name, the interactive element";
  EXPECT_EQ(r->similar[0].id, roots[0].children[1].id);
  EXPECT_EQ(r->similar[1].name, "Log out");
  EXPECT_EQ(r->suggestion,
            "No elements matching 'Logn' found. Similar: 'Login' (button), 'Log out' (button)");
  const nlohmann::json j = FindResultToJson(*r);
  EXPECT_FALSE(j["found"].get<bool>());
  EXPECT_EQ(j["similar"][0]["name"], "Login");
  EXPECT_EQ(j["suggestion"], r->suggestion);

  FindQuery role;
  role.name = "Remember me";
  role.role = Role::kButton;
  auto other = FindNodes(roots, role);
  EXPECT_EQ(other->suggestion,
            "No buttons matching 'Remember me' found. Similar: 'Remember me' (check_box)")
      << "a name of another role is the best hint";

  FindQuery nonsense;
  nonsense.name = "qqqqzzzz";
  auto none = FindNodes(roots, nonsense);
  EXPECT_TRUE(none->similar.empty());
  EXPECT_EQ(none->suggestion, "No elements matching 'qqqqzzzz' found.");
}

TEST(FindTest, JsonCarriesScoreConfidenceClickPointAndSource) {
  const std::vector<Node> roots = Tree();
  FindQuery q;
  q.name = "Login";
  q.role = Role::kButton;
  const nlohmann::json j = FindResultToJson(*FindNodes(roots, q));
  EXPECT_TRUE(j["found"].get<bool>());
  ASSERT_EQ(j["matches"].size(), 2u);
  EXPECT_EQ(j["matches"][0]["confidence"], 1.0);
  EXPECT_EQ(j["matches"][0]["source"], "ax");
  EXPECT_EQ(j["matches"][0]["click_point"]["x"], 140);
  EXPECT_EQ(j["matches"][1]["source"], "vision");
  EXPECT_DOUBLE_EQ(j["matches"][1]["confidence"].get<double>(), 0.7);
  EXPECT_FALSE(j.contains("suggestion"));
  EXPECT_EQ(
      FormatFindMatch(*FindNodes(roots, q)->matches.begin()),
      "[button \"Login\" id=" + roots[0].children[1].id + " bounds=100,10,80,30] click=140,25");
}

// A tree of `count` buttons whose labels are long words: the typo-tolerant
// comparison, each query word against each label word, at its most costly.
std::vector<Node> CostlyTree(int count, size_t label_length) {
  std::vector<Node> children;
  std::string label;
  for (int w = 0; label.size() < label_length; ++w) label += "qwertyuio" + std::to_string(w) + " ";
  for (int i = 0; i < count; ++i)
    children.push_back(MakeNode(Role::kButton, label, Rect{0, 0, 10, 10}));
  std::vector<Node> roots = {
      MakeNode(Role::kWindow, "Costly", Rect{0, 0, 800, 600}, std::move(children))};
  AssignIds(roots);
  return roots;
}

std::string CostlyQuery() {
  std::string query;
  for (int w = 0; w < 1000; ++w) query += "asdfghjkl" + std::to_string(w) + " ";
  return query;
}

// Issue 14: a 100,000-character label and a long query burned 57 s of CPU in
// one find. What is compared is capped (fuzzy.h), so this is milliseconds.
TEST(FindTest, HugeLabelAndQueryCostBoundedWork) {
  const std::vector<Node> roots = CostlyTree(20, 100000);
  FindQuery q;
  q.name = CostlyQuery();
  const auto start = std::chrono::steady_clock::now();
  auto r = FindNodes(roots, q);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->total, 0);
  // Gross bound (10x and more over what it takes).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(FindTest, StopsAtTheDeadline) {
  const std::vector<Node> roots = CostlyTree(20000, 300);
  FindQuery q;
  q.name = CostlyQuery();
  q.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  const auto start = std::chrono::steady_clock::now();
  auto r = FindNodes(roots, q);
  const auto took = std::chrono::steady_clock::now() - start;
  // The whole tree takes seconds; the deadline ends it within a few ms.
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
  EXPECT_NE(r.error().message.find("of 20001 elements"), std::string::npos) << r.error().message;
  EXPECT_LT(took, std::chrono::milliseconds(500));
}

TEST(FindTest, StopsWhenCancelled) {
  const std::vector<Node> roots = CostlyTree(20000, 300);
  FindQuery q;
  q.name = CostlyQuery();
  int asked = 0;
  q.cancelled = [&] { return ++asked == 3; };
  auto r = FindNodes(roots, q);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(asked, 3) << "not asked again once cancelled";
  // Neither stops a search that has time: the usual tree, a passed-in deadline far ahead.
  FindQuery login;
  login.name = "Login";
  login.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  login.cancelled = [] { return false; };
  const std::vector<Node> tree = Tree();
  auto found = FindNodes(tree, login);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->total, 3);
}

// Not find's, but wire.cpp's JSON next to FindResultToJson's: an app's
// question keeps its lines and characters in JSON (a program reads them);
// only printed text is escaped.
TEST(WireJsonTest, ACloseQuestionKeepsItsTextInJson) {
  CloseResult r;
  r.stage = "asking";
  r.question = AppQuestion{0x400001, "Save \u202Echanges?",
                           "Save changes to \"a.txt\"?\nYour changes will be lost.",
                           {{"btn_1", "Close\twithout Saving"}}};
  const nlohmann::json j = CloseResultToJson(r);
  EXPECT_EQ(j["question"]["text"], "Save changes to \"a.txt\"?\nYour changes will be lost.");
  EXPECT_EQ(j["question"]["title"], "Save \u202Echanges?");
  EXPECT_EQ(j["question"]["buttons"][0]["name"], "Close\twithout Saving");
  EXPECT_EQ(j["question"]["window"], "0x400001");
}

}  // namespace
}  // namespace uiscope

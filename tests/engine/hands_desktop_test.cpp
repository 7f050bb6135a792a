// Acting on real apps (issue 5): clicks by ID through both paths, typing
// (ASCII and not), key chords, scrolling, dragging, setting values, wait_for
// and apps, each checked by reading the app's own state back and by the
// verification uiscope reports.
//
// The steps run over an AppUnderTest, so the same table runs on every
// toolkit fixture that can report its state (GTK3 today; Qt5 and Chromium
// fixtures plug into MakeApp). An app under test shows a form with these
// accessible elements: text fields "Email" and "Password", check box
// "Remember me", button "Login" (status "Please enter an email" with no
// email, "Logged in as <email>" otherwise), a status label starting "Not
// logged in", slider "Volume" (0-100, 25), button "Add row" adding
// "New row K" at the top of list "Rows".
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "core/ids.h"
#include "engine/act.h"
#include "engine/apps.h"
#include "engine/wait_for.h"
#include "support/chromium_fixture.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::TestDesktop;
using test::Toolkit;
using test::WaitUntil;

// An app whose state a test can read back, whatever its toolkit: a fixture
// app (support/fixture_app.h) asked through its control channel, never
// through accessibility. To add a toolkit, add its fixture to
// test::LaunchApp and to the INSTANTIATE line.
class AppUnderTest {
 public:
  explicit AppUnderTest(std::unique_ptr<test::FixtureApp> app) : app_(std::move(app)) {}
  Toolkit toolkit() const { return app_->toolkit(); }
  int pid() const { return app_->pid(); }
  test::FixtureApp& fixture() { return *app_; }
  // The text of field "email" or "password".
  Result<std::string> FieldText(const std::string& field) { return app_->Command("text " + field); }
  Result<bool> Remembered() {
    auto a = app_->Command("checked remember");
    if (!a.ok()) return a.error();
    return *a == "1";
  }
  Result<double> Volume() { return Number("value volume"); }
  Result<std::string> StatusText() { return app_->Command("status"); }
  // How far list "Rows" is scrolled (pixels).
  Result<double> ListScroll() { return Number("scroll list"); }
  // The widget with the keyboard focus ("email", ..., "-" for none).
  Result<std::string> Focus() { return app_->Command("focus"); }
  // Sets the status label after `ms` (for wait_for).
  Status StatusLater(int ms, const std::string& text) {
    auto a = app_->Command("later " + std::to_string(ms) + " " + text);
    if (!a.ok()) return a.error();
    return OkStatus();
  }
  Status Terminate() { return app_->Terminate(milliseconds(2000)); }

 private:
  Result<double> Number(const std::string& command) {
    auto a = app_->Command(command);
    if (!a.ok()) return a.error();
    return std::atof(a->c_str());
  }
  std::unique_ptr<test::FixtureApp> app_;
};

WorkspaceOptions On(const TestDesktop& desktop) {
  WorkspaceOptions options;
  options.display = desktop.info().display_name;
  options.start_headless = false;
  return options;
}

class HandsDesktopTest : public ::testing::TestWithParam<Toolkit> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop().ok()) << desktop().error();
    workspace_ = std::make_unique<Workspace>(On(desktop()));
  }

  static TestDesktop& desktop() { return TestDesktop::Shared(); }

  Toolkit toolkit() const { return GetParam(); }

  // Launches the app (test::LaunchApp waits until its form is in the
  // accessibility tree).
  std::unique_ptr<AppUnderTest> Launch(const test::AppOptions& options = {}) {
    const auto t0 = std::chrono::steady_clock::now();
    auto app = test::LaunchApp(desktop(), toolkit(), options);
    if (!app) return nullptr;
    if (std::getenv("UISCOPE_TEST_VERBOSE")) {
      std::cerr << test::ToolkitName(toolkit()) << " launched in "
                << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                       .count()
                << " ms\n";
    }
    return std::make_unique<AppUnderTest>(std::move(app));
  }

  // The ID of the element of `app` with this role and name, from a full
  // observation (as `uiscope observe` prints it).
  std::string Id(const AppUnderTest& app, Role role, const std::string& name) {
    auto lease = workspace_->Acquire();
    EXPECT_TRUE(lease.ok());
    auto obs = lease->observer->Observe(ObserveRequest{});
    EXPECT_TRUE(obs.ok()) << obs.error().message;
    std::string id;
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      if (id.empty() && n.pid == app.pid() && n.role == role && n.name == name) id = n.id;
    });
    EXPECT_FALSE(id.empty()) << RoleName(role) << " \"" << name << "\" not found";
    return id;
  }

  // Id() for an element that may not be there yet: "" until it is.
  std::string FindId(const AppUnderTest& app, Role role, const std::string& name) {
    auto lease = workspace_->Acquire();
    if (!lease.ok()) return "";
    auto obs = lease->observer->Observe(ObserveRequest{});
    if (!obs.ok()) return "";
    const Node* n = Find(obs->snapshot.roots, app, role, name);
    return n ? n->id : "";
  }

  const Node* Find(const std::vector<Node>& roots, const AppUnderTest& app, Role role,
                   const std::string& name) {
    const Node* found = nullptr;
    ForEachNode(roots, [&](const Node& n, int) {
      if (!found && n.pid == app.pid() && n.role == role && n.name == name) found = &n;
    });
    return found;
  }

  Result<ActionResult> Act(ActionRequest r) {
    auto lease = workspace_->Acquire("", Workspace::Need::kHands);
    if (!lease.ok()) return lease.error();
    // Generous under load: "none" must mean nothing happened, not "late".
    if (r.verify.settle == VerifyOptions{}.settle) r.verify.settle = milliseconds(1500);
    auto result = PerformAction(*lease, r);
    if (result.ok() && std::getenv("UISCOPE_TEST_VERBOSE"))
      std::cerr << FormatActionResult(*result);
    return result;
  }

  ActionRequest Click(const std::string& id, Via via = Via::kAuto) {
    ActionRequest r;
    r.kind = ActionKind::kClick;
    r.target.id = id;
    r.via = via;
    return r;
  }

  ActionRequest Type(const std::string& id, const std::string& text, bool replace,
                     Via via = Via::kAuto) {
    ActionRequest r;
    r.kind = ActionKind::kTypeText;
    r.target.id = id;
    r.text = text;
    r.replace = replace;
    r.via = via;
    return r;
  }

  // The change of `id` in a verification, or null.
  static const NodeChange* ChangeOf(const Verification& v, const std::string& id) {
    for (const NodeChange& c : v.tree.changed) {
      if (c.id == id) return &c;
    }
    return nullptr;
  }

  std::unique_ptr<Workspace> workspace_;
};

TEST_P(HandsDesktopTest, ClickByIdThroughBothPaths) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  const std::string status = Id(*app, Role::kLabel, "Not logged in");

  auto login = Act(Click(Id(*app, Role::kButton, "Login")));
  ASSERT_TRUE(login.ok()) << login.error().message;
  // Qt runs a button's accessibility press 100 ms late (animateClick): in
  // its focused window it is clicked with the pointer, and says so.
  if (toolkit() == Toolkit::kQt5) {
    EXPECT_EQ(login->via, "xtest") << FormatActionResult(*login);
    EXPECT_TRUE(std::any_of(login->notes.begin(), login->notes.end(), [](const std::string& n) {
      return n.find("100 ms") != n.npos;
    })) << FormatActionResult(*login);
  } else {
    EXPECT_EQ(login->via, "accessibility");
  }
  EXPECT_EQ(*app->StatusText(), "Please enter an email");
  EXPECT_EQ(login->verification->effect, "observed") << FormatActionResult(*login);
  const NodeChange* renamed = ChangeOf(*login->verification, status);
  ASSERT_NE(renamed, nullptr) << FormatActionResult(*login);
  EXPECT_EQ(renamed->name, "Please enter an email");

  const std::string remember = Id(*app, Role::kCheckBox, "Remember me");
  // GTK 4.8 (Debian 12 ships 4.8.3) gives a GtkCheckButton the Action
  // interface with no action in it (pyatspi: queryAction().nActions == 0),
  // so there is no accessibility path to tick it: uiscope must say so, and
  // the box is ticked by input. The Login click above is GTK 4's
  // accessibility path.
  const bool box_has_action = toolkit() != Toolkit::kGtk4;
  if (!box_has_action) {
    auto refused = Act(Click(remember, Via::kAccessibility));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("use via xtest"), std::string::npos)
        << refused.error().message;
    EXPECT_FALSE(*app->Remembered());
  }
  auto tick = Act(Click(remember, box_has_action ? Via::kAccessibility : Via::kXTest));
  ASSERT_TRUE(tick.ok()) << tick.error().message;
  EXPECT_TRUE(*app->Remembered());
  ASSERT_NE(ChangeOf(*tick->verification, remember), nullptr) << FormatActionResult(*tick);
  // Chromium's "check" action focuses the box as well.
  const auto& added = ChangeOf(*tick->verification, remember)->states_added;
  EXPECT_NE(std::find(added.begin(), added.end(), "checked"), added.end())
      << FormatActionResult(*tick);
  EXPECT_TRUE(tick->verification->pixels.captured);
  EXPECT_TRUE(tick->verification->pixels.bounds.has_value()) << "the box is repainted";

  auto untick = Act(Click(remember, Via::kXTest));
  ASSERT_TRUE(untick.ok()) << untick.error().message;
  EXPECT_EQ(untick->via, "xtest");
  EXPECT_FALSE(*app->Remembered());
  ASSERT_NE(ChangeOf(*untick->verification, remember), nullptr) << FormatActionResult(*untick);
  const auto& removed = ChangeOf(*untick->verification, remember)->states_removed;
  EXPECT_NE(std::find(removed.begin(), removed.end(), "checked"), removed.end());

  // Asked for, a Qt button is still pressed through accessibility.
  if (toolkit() == Toolkit::kQt5) {
    auto pressed = Act(Click(Id(*app, Role::kButton, "Login"), Via::kAccessibility));
    ASSERT_TRUE(pressed.ok()) << pressed.error().message;
    EXPECT_EQ(pressed->via, "accessibility") << FormatActionResult(*pressed);
  }
}

// A check box clicked by ID behaves as a person's click: the app's click
// handlers run, not only its state. Qt's accessibility "Toggle" calls
// QAbstractButton::toggle(), which emits `toggled` and never `clicked`, so
// on Qt the box is clicked with the pointer; asked to go through
// accessibility, the toggle runs and its effect is not "observed".
TEST_P(HandsDesktopTest, AClickedCheckBoxRunsItsClickHandlers) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  auto clicks = [&]() -> int {
    auto a = app->fixture().Command("clicks remember");
    return a.ok() ? std::atoi(a->c_str()) : -1;
  };
  if (clicks() < 0) GTEST_SKIP() << "this fixture does not count its check box's clicks";
  ASSERT_EQ(clicks(), 0);
  const std::string remember = Id(*app, Role::kCheckBox, "Remember me");
  auto tick = Act(Click(remember));
  ASSERT_TRUE(tick.ok()) << tick.error().message;
  EXPECT_TRUE(*app->Remembered());
  EXPECT_EQ(clicks(), 1) << FormatActionResult(*tick);
  EXPECT_EQ(tick->verification->effect, "observed") << FormatActionResult(*tick);
  if (toolkit() != Toolkit::kQt5) return;
  EXPECT_EQ(tick->via, "xtest") << FormatActionResult(*tick);

  auto toggled = Act(Click(remember, Via::kAccessibility));
  ASSERT_TRUE(toggled.ok()) << toggled.error().message;
  EXPECT_EQ(toggled->via, "accessibility");
  EXPECT_FALSE(*app->Remembered()) << "the toggle flipped the state";
  EXPECT_EQ(clicks(), 1) << "and ran no click handler";
  EXPECT_EQ(toggled->verification->effect, "unverified") << FormatActionResult(*toggled);
  EXPECT_NE(toggled->verification->reason.find("click handlers did not run"), std::string::npos)
      << toggled->verification->reason;
}

TEST_P(HandsDesktopTest, AClickOnAnInertLabelSaysNone) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  const std::string before = *app->StatusText();
  // The status line: inert on every toolkit (a web page's <label for> is
  // not: a click on it focuses its field).
  auto r = Act(Click(Id(*app, Role::kLabel, "Not logged in")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->performed);
  EXPECT_EQ(r->via, "xtest");
  EXPECT_EQ(r->verification->effect, "none") << FormatActionResult(*r);
  EXPECT_TRUE(r->verification->tree.empty()) << FormatActionResult(*r);
  EXPECT_EQ(*app->StatusText(), before);

  // A right click on a button does not press it. What else it does is the
  // toolkit's, and the verdict must say exactly that: nothing on GTK; Qt
  // gives a widget the focus on a press of any button; Chromium opens its
  // page context menu.
  const std::string login = Id(*app, Role::kButton, "Login");
  ActionRequest right = Click(login);
  right.button = MouseButton::kRight;
  auto r2 = Act(right);
  ASSERT_TRUE(r2.ok()) << r2.error().message;
  EXPECT_EQ(*app->StatusText(), before);
  const Verification& v = *r2->verification;
  switch (toolkit()) {
    case Toolkit::kGtk3:
    case Toolkit::kGtk4:
      EXPECT_EQ(v.effect, "none") << FormatActionResult(*r2);
      EXPECT_TRUE(v.tree.empty()) << FormatActionResult(*r2);
      break;
    case Toolkit::kQt5: {
      EXPECT_EQ(v.effect, "observed") << FormatActionResult(*r2);
      EXPECT_EQ(*app->Focus(), "login");
      ASSERT_NE(ChangeOf(v, login), nullptr) << FormatActionResult(*r2);
      EXPECT_EQ(ChangeOf(v, login)->states_added, std::vector<std::string>{"focused"});
      EXPECT_TRUE(v.tree.added.empty()) << FormatActionResult(*r2);
      break;
    }
    case Toolkit::kChromium: {
      EXPECT_EQ(v.effect, "observed") << FormatActionResult(*r2);
      bool menu = false;
      for (const AddedNode& a : v.tree.added) {
        ForEachNode(std::vector<Node>{a.node},
                    [&](const Node& n, int) { menu |= n.role == Role::kMenu; });
      }
      EXPECT_TRUE(menu) << "the context menu: " << FormatActionResult(*r2);
      break;
    }
  }
}

TEST_P(HandsDesktopTest, TypesAsciiAndUnicode) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  const std::string email = Id(*app, Role::kTextField, "Email");
  auto ascii = Act(Type(email, "user@example.com", false));
  ASSERT_TRUE(ascii.ok()) << ascii.error().message;
  EXPECT_EQ(*app->FieldText("email"), "user@example.com");
  EXPECT_EQ(ascii->verification->effect, "observed");
  ASSERT_NE(ChangeOf(*ascii->verification, email), nullptr);
  EXPECT_EQ(ChangeOf(*ascii->verification, email)->fields[0].after, "user@example.com");

  auto appended = Act(Type(email, ".uk", false));
  ASSERT_TRUE(appended.ok());
  EXPECT_EQ(*app->FieldText("email"), "user@example.com.uk") << "appended, not replaced";

  auto unicode = Act(Type(email, "Grüße, 東京", true, Via::kXTest));
  ASSERT_TRUE(unicode.ok()) << unicode.error().message;
  EXPECT_EQ(unicode->via, "xtest");
  EXPECT_EQ(*app->FieldText("email"), "Grüße, 東京");
  EXPECT_EQ(ChangeOf(*unicode->verification, email)->fields[0].after, "Grüße, 東京");
}

TEST_P(HandsDesktopTest, ALongMixedTextArrivesWholeAndInOrder) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  // More distinct characters missing from the keymap than it has spare key
  // codes (19 under Xvfb), so codes are rebound while typing.
  std::string text = "Mixed: abc XYZ 123 !@#$%^&*() äöü ÄÖÜ ß é è ñ ç € ";
  const char* cjk[] = {"東", "京", "大", "阪", "名", "古", "屋", "札", "幌", "仙",
                       "台", "横", "浜", "神", "戸", "福", "岡", "広", "島", "京",
                       "都", "奈", "良", "金", "沢", "長", "崎", "熊", "本"};
  for (const char* c : cjk) text += c;
  text += " 😀 done.";
  auto r = Act(Type(Id(*app, Role::kTextField, "Email"), text, true, Via::kXTest));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*app->FieldText("email"), text);
}

// Doubled letters and digits arrive as typed, by key events (not
// EditableText), and a long text typed at full speed too. The X server
// stamps events in milliseconds, and a release and a press of the same key
// in one millisecond is autorepeat to Qt: a widget that ignores repeats
// (kcalc's keypad) lost the second '0' of "100". The Qt fixture counts the
// key presses it was told are repeats: none may be.
TEST_P(HandsDesktopTest, RepeatedCharactersArriveAsTypedAndNoneIsAnAutorepeat) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  const std::string email = Id(*app, Role::kTextField, "Email");
  for (const std::string text : {"1000 aa bb ccc ZZ!!", "100", "xx--yy..zz  00"}) {
    auto r = Act(Type(email, text, true, Via::kXTest));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->via, "xtest");
    EXPECT_EQ(*app->FieldText("email"), text);
  }
  std::string fast;
  for (int i = 0; i < 12; ++i) fast += "aa11 bb22 ZZ!! ";
  auto r = Act(Type(email, fast, true, Via::kXTest));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*app->FieldText("email"), fast);
  if (toolkit() == Toolkit::kQt5) {
    EXPECT_EQ(*app->fixture().Command("repeats"), "0") << "key presses Qt took for autorepeat";
  }
}

// Keys for an element of a dialog go to the dialog, also while the main
// window is active: the dialog's X window is raised, not the main window,
// which holds the dialog's area on screen too. The GTK3 fixture's dialog is
// untitled (as GTK's message dialogs are), so only its place tells.
TEST_P(HandsDesktopTest, KeysForADialogsElementRaiseTheDialog) {
  if (toolkit() != Toolkit::kGtk3) GTEST_SKIP() << "the dialog is the GTK3 fixture's";
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(app->fixture().Command("open-options").ok());
  std::string note;
  ASSERT_TRUE(WaitUntil([&] {
    note = FindId(*app, Role::kTextField, "Note");
    return !note.empty();
  }));
  // The main window becomes the active one.
  auto click = Act(Click(Id(*app, Role::kTextField, "Email"), Via::kXTest));
  ASSERT_TRUE(click.ok()) << click.error().message;
  ASSERT_TRUE(WaitUntil([&] { return *app->Focus() == "email"; }));

  ActionRequest keys;
  keys.kind = ActionKind::kPressKeys;
  keys.target.id = note;
  keys.keys = {"x", "y"};
  auto r = Act(keys);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(WaitUntil([&] { return *app->FieldText("note") == "xy"; }))
      << *app->FieldText("note");
  EXPECT_EQ(*app->FieldText("email"), "") << "the keys went to the main window";
  // GTK presents a window whose widget grabs the focus through
  // accessibility, which hid the wrong choice above: the window raised must
  // be the dialog's (untitled), not the active main window.
  bool raised_dialog = false;
  for (const std::string& n : r->notes) {
    if (n.starts_with("raised and focused window")) {
      raised_dialog = n.find("\"uiscope fixture\"") == std::string::npos;
    }
  }
  EXPECT_TRUE(raised_dialog) << FormatActionResult(*r);
}

// A field that shows what is typed but exposes no text to accessibility
// (the GTK3 fixture's "City"): typed into once — the result says the text
// is unverified — never again ("Zürich" arrived four times over, in 13 s).
TEST_P(HandsDesktopTest, TypingIntoAFieldExposingNoTextIsUnverifiedAndTypedOnce) {
  if (toolkit() != Toolkit::kGtk3) GTEST_SKIP() << "the field is the GTK3 fixture's";
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(app->fixture().Command("select-tab Advanced").ok());
  std::string city;
  ASSERT_TRUE(WaitUntil([&] {
    city = FindId(*app, Role::kTextField, "City");
    return !city.empty();
  }));
  auto r = Act(Type(city, "Zürich", false, Via::kXTest));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(WaitUntil([&] { return *app->FieldText("city") == "Zürich"; }));
  EXPECT_EQ(*app->FieldText("city"), "Zürich");
  EXPECT_EQ(r->verification->effect, "unverified") << FormatActionResult(*r);
}

// set_value on a combo box (GTK) or a <select> (Chromium) chooses the
// option through accessibility — Selection or the option's action — never by
// keys (a <select> took ctrl+a for the whole page), and the choice is read
// back from the app; via xtest, the box is clicked open and the option
// clicked.
TEST_P(HandsDesktopTest, SetValueOnAComboBoxChoosesTheOption) {
  if (toolkit() != Toolkit::kGtk3 && toolkit() != Toolkit::kChromium) {
    GTEST_SKIP() << "the combo box is the GTK3 and web fixtures'";
  }
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(app->fixture().Command("select-tab Advanced").ok());
  auto combo_id = [&] {
    auto lease = workspace_->Acquire();
    if (!lease.ok()) return std::string();
    auto obs = lease->observer->Observe(ObserveRequest{});
    std::string id;
    if (!obs.ok()) return id;
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      // The colour combo (the web fixture also has a "Fruit" select, for
      // the reading tests; GTK names its unnamed combo by the chosen item).
      if (id.empty() && n.pid == app->pid() && n.role == Role::kComboBox && n.name != "Fruit") {
        id = n.id;
      }
    });
    return id;
  };
  std::string combo;
  ASSERT_TRUE(WaitUntil([&] { return !(combo = combo_id()).empty(); }));
  ActionRequest r;
  r.kind = ActionKind::kSetValue;
  r.target.id = combo;
  r.text = "Green";
  auto green = Act(r);
  ASSERT_TRUE(green.ok()) << green.error().message;
  EXPECT_EQ(green->via, "accessibility");
  EXPECT_NE(green->method.find("option \"Green\""), std::string::npos) << green->method;
  EXPECT_EQ(*app->fixture().Command("chosen colour"), "Green");
  EXPECT_EQ(*app->FieldText("email"), "") << "no keys went anywhere";

  r.target.id = combo_id();  // GTK names a combo box by its chosen item
  r.text = "blue";
  auto blue = Act(r);
  ASSERT_TRUE(blue.ok()) << blue.error().message;
  EXPECT_EQ(*app->fixture().Command("chosen colour"), "Blue");

  r.target.id = combo_id();
  r.text = "Purple";
  auto purple = Act(r);
  ASSERT_FALSE(purple.ok());
  EXPECT_EQ(purple.error().code, ErrorCode::kNotFound);
  EXPECT_NE(purple.error().message.find("\"Red\""), std::string::npos) << purple.error().message;
  // By input (issue 15): the box clicked open, the option clicked where it
  // shows; one that never shows closes the list again, and no keys but
  // Escape are sent.
  r.via = Via::kXTest;
  auto absent = Act(r);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().code, ErrorCode::kNotFound) << absent.error().message;
  EXPECT_EQ(*app->fixture().Command("chosen colour"), "Blue");
  EXPECT_EQ(*app->FieldText("email"), "") << "no keys went anywhere";
  if (toolkit() != Toolkit::kGtk3) return;
  r.target.id = combo_id();
  r.text = "Red";
  auto red = Act(r);
  ASSERT_TRUE(red.ok()) << red.error().message;
  EXPECT_EQ(red->via, "xtest");
  EXPECT_NE(red->method.find("clicked option \"Red\""), std::string::npos) << red->method;
  EXPECT_TRUE(WaitUntil([&] { return *app->fixture().Command("chosen colour") == "Red"; }))
      << *app->fixture().Command("chosen colour");
}

TEST_P(HandsDesktopTest, KeyChordsSelectAllAndDeleteEmptiesAField) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  const std::string email = Id(*app, Role::kTextField, "Email");
  auto set = Act(Type(email, "to be deleted", true));
  ASSERT_TRUE(set.ok()) << set.error().message;
  // Chromium's text fields have no EditableText interface (pyatspi lists
  // Accessible, Action, Collection, Component, Document, Hyperlink, Text
  // for the <input>), so replacing goes through input there.
  EXPECT_EQ(set->via, toolkit() == Toolkit::kChromium ? "xtest" : "editable_text");
  EXPECT_EQ(*app->FieldText("email"), "to be deleted");

  ActionRequest keys;
  keys.kind = ActionKind::kPressKeys;
  keys.target.id = email;
  keys.keys = {"ctrl+a", "Delete"};
  auto r = Act(keys);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*app->FieldText("email"), "");
  EXPECT_EQ(r->verification->effect, "observed");
  ASSERT_NE(ChangeOf(*r->verification, email), nullptr) << FormatActionResult(*r);
  EXPECT_EQ(ChangeOf(*r->verification, email)->fields[0].before, "to be deleted");
  EXPECT_EQ(ChangeOf(*r->verification, email)->fields[0].after, "");

  // A chord reaches the app's accelerators too: Tab moves the focus on.
  keys.keys = {"Tab"};
  auto tab = Act(keys);
  ASSERT_TRUE(tab.ok());
  EXPECT_EQ(tab->verification->effect, "observed") << FormatActionResult(*tab);
}

TEST_P(HandsDesktopTest, SetsAndDragsTheSlider) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  const std::string volume = Id(*app, Role::kSlider, "Volume");
  ActionRequest set;
  set.kind = ActionKind::kSetValue;
  set.target.id = volume;
  set.text = "80";
  auto r = Act(set);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->via, "value");
  EXPECT_DOUBLE_EQ(*app->Volume(), 80);
  EXPECT_EQ(r->verification->effect, "observed");
  ASSERT_NE(ChangeOf(*r->verification, volume), nullptr) << FormatActionResult(*r);
  EXPECT_EQ(ChangeOf(*r->verification, volume)->fields[0].field, "value");
  EXPECT_EQ(ChangeOf(*r->verification, volume)->fields[0].after, "80");

  set.text = "101";
  EXPECT_EQ(Act(set).error().code, ErrorCode::kInvalidArgument);

  // Drag the knob to a fifth of the way along.
  auto lease = workspace_->Acquire();
  auto obs = lease->observer->Observe(ObserveRequest{});
  const Node* slider = Find(obs->snapshot.roots, *app, Role::kSlider, "Volume");
  ASSERT_NE(slider, nullptr);
  ASSERT_TRUE(slider->bounds.has_value());
  const Rect b = *slider->bounds;
  lease->lock.unlock();
  ActionRequest drag;
  drag.kind = ActionKind::kDrag;
  drag.target.id = volume;
  drag.to.point = Point{b.x + b.w / 5, b.y + b.h / 2};
  auto dragged = Act(drag);
  ASSERT_TRUE(dragged.ok()) << dragged.error().message;
  const double now = *app->Volume();
  EXPECT_LT(now, 40) << "dragged to 20%";
  EXPECT_GT(now, 5);
  EXPECT_EQ(dragged->verification->effect, "observed");
  ASSERT_NE(ChangeOf(*dragged->verification, volume), nullptr) << FormatActionResult(*dragged);
  // Chromium (156.0.8078.79) leaves the accessible value of an <input
  // type=range> at the value of the press when the knob is dragged: after
  // `uiscope drag` from 80 to a fifth of the way, the page's value was 17
  // and the tree said 78 (or still 80 when the press hit the knob's
  // centre; then only the slider's focus changed), still 1.5 s later
  // (`uiscope observe`). The verification reports what the tree says, so
  // only the native toolkits can be held to the app's value here.
  if (toolkit() != Toolkit::kChromium) {
    const NodeChange* change = ChangeOf(*dragged->verification, volume);
    auto value = std::find_if(change->fields.begin(), change->fields.end(),
                              [](const FieldChange& f) { return f.field == "value"; });
    ASSERT_NE(value, change->fields.end()) << FormatActionResult(*dragged);
    EXPECT_EQ(value->before, "80");
    EXPECT_NEAR(std::atof(value->after.c_str()), now, 0.5)
        << "the verification reports the value the app has";
  }
}

// Whether a verification shows rows of a list scrolled: rows added (the
// native toolkits expose the rows in view), or rows moved (Chromium keeps
// rows scrolled out of view in its tree, so they move rather than come).
bool RowsScrolled(const Verification& v) {
  for (const AddedNode& a : v.tree.added) {
    if (a.node.role == Role::kListItem) return true;
  }
  for (const NodeChange& c : v.tree.changed) {
    if (c.role != Role::kListItem) continue;
    for (const FieldChange& f : c.fields) {
      if (f.field == "bounds") return true;
    }
  }
  return false;
}

TEST_P(HandsDesktopTest, ScrollsALongList) {
  test::AppOptions options;
  options.rows = 100;
  auto app = Launch(options);
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(*app->ListScroll(), 0);
  ActionRequest r;
  r.kind = ActionKind::kScroll;
  r.target.id = Id(*app, Role::kList, "Rows");
  r.dy = 5;
  auto down = Act(r);
  ASSERT_TRUE(down.ok()) << down.error().message;
  EXPECT_TRUE(WaitUntil([&] { return *app->ListScroll() > 0; }, milliseconds(3000)));
  EXPECT_EQ(down->verification->effect, "observed");
  EXPECT_TRUE(RowsScrolled(*down->verification))
      << "rows scrolled into view: " << FormatActionResult(*down);
  r.dy = -5;
  auto up = Act(r);
  ASSERT_TRUE(up.ok()) << up.error().message;
  EXPECT_EQ(up->verification->effect, "observed");
  EXPECT_TRUE(RowsScrolled(*up->verification))
      << "the first rows back in view: " << FormatActionResult(*up);
  // Back at the top; GTK 4 sums the wheel's deltas in floating point and
  // stops at 1.4e-14.
  EXPECT_TRUE(WaitUntil([&] { return *app->ListScroll() < 0.5; }, milliseconds(3000)))
      << *app->ListScroll();
}

TEST_P(HandsDesktopTest, ClickAtAPointAndTheEffectAppearsInTheDiff) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  auto lease = workspace_->Acquire();
  auto obs = lease->observer->Observe(ObserveRequest{});
  const Node* add = Find(obs->snapshot.roots, *app, Role::kButton, "Add row");
  ASSERT_NE(add, nullptr);
  const Point center = add->bounds->Center();
  lease->lock.unlock();
  ActionRequest r;
  r.kind = ActionKind::kClick;
  r.target.point = center;
  auto clicked = Act(r);
  ASSERT_TRUE(clicked.ok()) << clicked.error().message;
  EXPECT_EQ(clicked->verification->effect, "observed");
  EXPECT_NE(FormatDiff(clicked->verification->tree).find("New row 1"), std::string::npos)
      << FormatActionResult(*clicked);
}

TEST_P(HandsDesktopTest, UnknownIdsAndDeadAppsAreClearErrors) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  auto unknown = Act(Click("btn_0000"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("observe again"), std::string::npos);

  const std::string login = Id(*app, Role::kButton, "Login");
  ASSERT_TRUE(app->Terminate().ok());
  auto dead = Act(Click(login));
  ASSERT_FALSE(dead.ok());
  EXPECT_TRUE(dead.error().code == ErrorCode::kStale || dead.error().code == ErrorCode::kNotFound)
      << dead.error().ToString();
  EXPECT_NE(dead.error().message.find("observe again"), std::string::npos) << dead.error().message;
}

TEST_P(HandsDesktopTest, WaitsForTextChangesAndDepartures) {
  auto app = Launch();
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(app->StatusLater(300, "Saved at noon").ok());
  WaitForRequest text;
  text.condition.kind = WaitCondition::Kind::kText;
  text.condition.text = "saved at noon";
  text.condition.ocr = false;
  text.timeout = milliseconds(10000);
  auto seen = WaitFor(*workspace_, text);
  ASSERT_TRUE(seen.ok()) << seen.error().message;
  EXPECT_TRUE(seen->satisfied);
  EXPECT_EQ(seen->seen_in, "tree");
  EXPECT_GE(seen->waited_ms, 200);
  EXPECT_EQ(seen->matches[0].name, "Saved at noon");

  ASSERT_TRUE(app->StatusLater(200, "Changed").ok());
  WaitForRequest change;
  change.condition.kind = WaitCondition::Kind::kChange;
  change.pid = app->pid();
  change.timeout = milliseconds(10000);
  auto changed = WaitFor(*workspace_, change);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(changed->satisfied);

  WaitForRequest gone;
  gone.condition.kind = WaitCondition::Kind::kGone;
  gone.condition.id = Id(*app, Role::kButton, "Login");
  gone.timeout = milliseconds(10000);
  gone.progress = [&](double, int polls) {
    if (polls == 2) (void)app->Terminate();
  };
  auto departed = WaitFor(*workspace_, gone);
  ASSERT_TRUE(departed.ok());
  EXPECT_TRUE(departed->satisfied);
  EXPECT_GE(departed->polls, 3);
}

// The command line that starts this toolkit's fixture as a user would (no
// control channel): `title`, and for the native fixtures a position and an
// application name ("" = the fixture's default).
std::vector<std::string> AppCommand(Toolkit toolkit, const std::string& title,
                                    const std::string& position, const std::string& name) {
  std::vector<std::string> argv;
  switch (toolkit) {
    case Toolkit::kGtk3:
      argv = {UISCOPE_FIXTURE_GTK3};
      break;
    case Toolkit::kGtk4:
      argv = {UISCOPE_FIXTURE_GTK4};
      break;
    case Toolkit::kQt5:
      argv = {UISCOPE_FIXTURE_QT5};
      break;
    case Toolkit::kChromium: {
      // Each browser its own profile: a second Chromium on the same
      // profile hands its window to the first process and exits.
      std::string profile = TestDesktop::Shared().info().runtime_dir + "/chromium-app-XXXXXX";
      if (mkdtemp(profile.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << profile;
      return test::ChromiumAppCommand(profile, title);
    }
  }
  argv.insert(argv.end(), {"--title", title, "--position", position});
  if (!name.empty()) argv.insert(argv.end(), {"--name", name});
  return argv;
}

TEST_P(HandsDesktopTest, LaunchListFocusAndCloseApps) {
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  ASSERT_TRUE(lease.ok()) << lease.error().message;
  auto launch = [&](std::vector<std::string> argv) {
    LaunchRequest r;
    r.argv = std::move(argv);
    r.timeout = milliseconds(30000);
    return LaunchApp(*lease, r);
  };
  const bool web = toolkit() == Toolkit::kChromium;
  auto first = launch(AppCommand(toolkit(), "first", "40,40", ""));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->performed);
  ASSERT_TRUE(first->window.has_value());
  if (web) {
    // Chromium titles its window with the URL until the page has set its
    // title (document.title, from the query string).
    EXPECT_TRUE(WaitUntil(
        [&] {
          auto windows = ListDesktopWindows(*lease);
          if (!windows.ok()) return false;
          for (const WindowEntry& w : *windows) {
            if (w.window.pid == first->pid && w.window.title == "first") return true;
          }
          return false;
        },
        milliseconds(10000)));
  } else {
    EXPECT_EQ(first->window->title, "first");
  }
  EXPECT_TRUE(first->accessible);
  const char* const kDefaultNames[] = {"uiscope-fixture", "uiscope-fixture-gtk4",
                                       "uiscope-fixture-qt5", "Chromium"};
  EXPECT_EQ(first->app_name, kDefaultNames[static_cast<int>(toolkit())]);
  auto second = launch(AppCommand(toolkit(), "second", "300,200", "second-app"));
  ASSERT_TRUE(second.ok()) << second.error().message;
  // Chromium always calls itself "Chromium": the second is named by pid.
  const std::string second_name = web ? std::to_string(second->pid) : "second-app";

  auto apps = ListDesktopApps(*lease);
  ASSERT_TRUE(apps.ok());
  int launched = 0;
  for (const AppEntry& a : *apps) {
    if (a.pid == first->pid || a.pid == second->pid) {
      ++launched;
      EXPECT_TRUE(a.launched);
      EXPECT_TRUE(a.accessible);
      EXPECT_EQ(a.windows.size(), 1u);
    }
  }
  EXPECT_EQ(launched, 2);

  auto focus = FocusApp(*lease, std::to_string(first->pid));
  ASSERT_TRUE(focus.ok()) << focus.error().message;
  auto windows = ListDesktopWindows(*lease);
  ASSERT_TRUE(windows.ok());
  for (const WindowEntry& w : *windows) {
    if (w.window.pid == first->pid) {
      EXPECT_TRUE(w.window.focused);
    }
    if (w.window.pid == second->pid) {
      EXPECT_FALSE(w.window.focused);
    }
  }
  ASSERT_TRUE(FocusApp(*lease, second_name).ok());

  CloseRequest close;
  close.app = second_name;
  auto closed = CloseApp(*lease, close);
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  EXPECT_EQ(closed->stage, "closed");
  EXPECT_EQ(closed->exit_code, 0);
  EXPECT_FALSE(PidAlive(second->pid));

  close.app = std::to_string(first->pid);
  auto first_closed = CloseApp(*lease, close);
  ASSERT_TRUE(first_closed.ok()) << first_closed.error().message;
  EXPECT_EQ(first_closed->stage, "closed");
  close.app = "no-such-app";
  auto missing = CloseApp(*lease, close);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

// The stages after a polite close (SIGTERM, SIGKILL) do not depend on the
// toolkit; the GTK3 fixture can refuse the close and ignore SIGTERM.
TEST_P(HandsDesktopTest, CloseEscalatesToSigtermAndSigkill) {
  if (toolkit() != Toolkit::kGtk3) GTEST_SKIP() << "signals are toolkit-independent";
  auto lease = workspace_->Acquire("", Workspace::Need::kHands);
  ASSERT_TRUE(lease.ok()) << lease.error().message;
  auto launch = [&](std::vector<std::string> extra) {
    LaunchRequest r;
    r.argv = {UISCOPE_FIXTURE_GTK3};
    for (auto& e : extra) r.argv.push_back(std::move(e));
    r.timeout = milliseconds(20000);
    return LaunchApp(*lease, r);
  };
  CloseRequest close;
  auto stubborn = launch({"--title", "stubborn", "--refuse-close"});
  ASSERT_TRUE(stubborn.ok()) << stubborn.error().message;
  close.app = std::to_string(stubborn->pid);
  close.polite_timeout = milliseconds(500);
  auto terminated = CloseApp(*lease, close);
  ASSERT_TRUE(terminated.ok());
  EXPECT_EQ(terminated->stage, "terminated");

  auto deaf = launch({"--title", "deaf", "--refuse-close", "--ignore-sigterm"});
  ASSERT_TRUE(deaf.ok()) << deaf.error().message;
  close.app = std::to_string(deaf->pid);
  close.term_timeout = milliseconds(500);
  auto killed = CloseApp(*lease, close);
  ASSERT_TRUE(killed.ok());
  EXPECT_EQ(killed->stage, "killed");
  EXPECT_EQ(killed->exit_code, 128 + SIGKILL);
}

INSTANTIATE_TEST_SUITE_P(Toolkits, HandsDesktopTest,
                         ::testing::Values(Toolkit::kGtk3, Toolkit::kQt5, Toolkit::kGtk4,
                                           Toolkit::kChromium),
                         [](const ::testing::TestParamInfo<Toolkit>& info) {
                           return std::string(test::ToolkitName(info.param));
                         });

}  // namespace
}  // namespace uiscope

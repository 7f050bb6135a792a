// The action executor on a fake desktop: which path each action takes, what
// the gate is told, what input is sent, and whether the verification tells
// an effect from none.
#include "engine/act.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "core/diff.h"
#include "core/ids.h"
#include "support/fake_accessibility.h"
#include "support/fake_capture.h"
#include "support/fake_input.h"
#include "support/fake_windows.h"
#include "support/recording_gate.h"

namespace uiscope {
namespace {

constexpr uint64_t kWindow = 0x400001;

class ActTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ax = std::make_unique<test::FakeAccessibility>(
        test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/form.json"));
    ax_ = ax.get();
    auto input = std::make_unique<test::FakeInput>();
    input_ = input.get();
    WindowInfo w;
    w.id = kWindow;
    w.title = "Form";
    w.app_instance = "form-app";
    w.pid = 4343;
    w.bounds = Rect{100, 80, 600, 400};
    w.focused = true;
    auto windows = std::make_unique<test::FakeWindows>(std::vector<WindowInfo>{w});
    windows_ = windows.get();
    auto capture = std::make_unique<test::FakeCapture>(1920, 1080);
    capture_ = capture.get();
    workspace_ = std::make_unique<Workspace>(FakeDesktopParts{std::move(ax), Frame{1920, 1080, 1.0},
                                                              std::move(input), std::move(windows),
                                                              std::move(capture)});
    gate_ = std::make_shared<test::RecordingGate>();
    workspace_->SetActionGate(gate_);
  }

  // The ID an agent would read in an observation.
  std::string Id(Role role, const std::string& name) {
    auto lease = workspace_->Acquire();
    auto obs = lease->observer->Observe(ObserveRequest{});
    EXPECT_TRUE(obs.ok());
    std::string id;
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      if (id.empty() && n.role == role && n.name == name) id = n.id;
    });
    EXPECT_FALSE(id.empty()) << name;
    return id;
  }

  Result<ActionResult> Act(ActionRequest r) {
    auto lease = workspace_->Acquire("", Workspace::Need::kHands);
    if (!lease.ok()) return lease.error();
    if (r.verify.settle == VerifyOptions{}.settle) r.verify.settle = std::chrono::milliseconds(60);
    return PerformAction(*lease, r);
  }

  ActionRequest Click(const std::string& id, Via via = Via::kAuto) {
    ActionRequest r;
    r.kind = ActionKind::kClick;
    r.target.id = id;
    r.via = via;
    return r;
  }

  test::FakeAccessibility* ax_ = nullptr;
  test::FakeInput* input_ = nullptr;
  test::FakeWindows* windows_ = nullptr;
  test::FakeCapture* capture_ = nullptr;
  std::shared_ptr<test::RecordingGate> gate_;
  std::unique_ptr<Workspace> workspace_;
};

TEST_F(ActTest, ClickPrefersTheAccessibilityActionAndSeesItsEffect) {
  const std::string id = Id(Role::kCheckBox, "Remember me");
  auto r = Act(Click(id));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->performed);
  EXPECT_EQ(r->via, "accessibility");
  EXPECT_EQ(r->method, "action \"click\"");
  EXPECT_TRUE(input_->events().empty()) << "no input for an accessibility action";
  ASSERT_TRUE(r->verification.has_value());
  EXPECT_EQ(r->verification->effect, "observed");
  ASSERT_EQ(r->verification->tree.changed.size(), 1u);
  EXPECT_EQ(r->verification->tree.changed[0].id, id);
  EXPECT_EQ(r->verification->tree.changed[0].states_added, std::vector<std::string>{"checked"});
  EXPECT_EQ(r->target->id, id);

  auto entries = gate_->entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].action.tool, "click");
  EXPECT_EQ(entries[0].action.target_id, id);
  ASSERT_TRUE(entries[0].action.target.has_value());
  EXPECT_EQ(entries[0].action.target->name, "Remember me");
  EXPECT_EQ(entries[0].action.target_window, (Rect{100, 80, 600, 400}));
  EXPECT_EQ(entries[0].action.frame.width, 1920);
  EXPECT_FALSE(entries[0].action.screen_hash_before.empty());
  EXPECT_TRUE(entries[0].recorded);
  EXPECT_TRUE(entries[0].outcome.performed);
  EXPECT_EQ(entries[0].outcome.via, "accessibility");
  EXPECT_EQ(entries[0].outcome.effect, "observed");
}

TEST_F(ActTest, AClickOnAnInertLabelSaysNone) {
  auto r = Act(Click(Id(Role::kLabel, "Email")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->via, "xtest");
  EXPECT_EQ(input_->events().back(), "click left 140,110 x1");
  EXPECT_EQ(r->points, std::vector<Point>{(Point{140, 110})});
  EXPECT_EQ(r->verification->effect, "none");
  EXPECT_TRUE(r->verification->tree.empty());
  EXPECT_NE(r->verification->reason.find("60 ms"), std::string::npos);
  EXPECT_EQ(gate_->entries()[0].outcome.effect, "none");
  EXPECT_EQ(gate_->entries()[0].action.points, std::vector<Point>{(Point{140, 110})});
}

TEST_F(ActTest, PixelsChangingAtTheTargetAreAnEffectWhenTheTreeIsBlind) {
  input_->on_event = [&](const std::string& e) {
    if (e.starts_with("click")) capture_->Fill(Rect{110, 100, 60, 20}, 255, 0, 0);
  };
  auto r = Act(Click(Id(Role::kLabel, "Email")));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verification->effect, "observed");
  EXPECT_NE(r->verification->reason.find("pixels"), std::string::npos);
  ASSERT_TRUE(r->verification->pixels.bounds.has_value());
  EXPECT_EQ(*r->verification->pixels.bounds, (Rect{110, 100, 60, 20}));
  EXPECT_EQ(r->verification->pixels.region, (Rect{100, 80, 600, 400}));
  EXPECT_NEAR(r->verification->pixels.score, 1200.0 / 240000.0, 1e-9);
}

TEST_F(ActTest, PixelsChangingElsewhereOrLikeACaretAreNotTheEffect) {
  input_->on_event = [&](const std::string& e) {
    if (e.starts_with("click")) {
      capture_->Fill(Rect{500, 300, 40, 40}, 0, 255, 0);  // another widget repainting
      capture_->Fill(Rect{150, 102, 1, 16}, 0, 0, 255);   // a caret blinking at the target
    }
  };
  auto r = Act(Click(Id(Role::kLabel, "Email")));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verification->effect, "none");
  EXPECT_TRUE(r->verification->pixels.bounds.has_value()) << "still reported";
}

TEST_F(ActTest, AnUnknownIdIsNotFoundAndThePolicyHearsOfIt) {
  auto r = Act(Click("btn_ffff"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_NE(r.error().message.find("observe again"), std::string::npos);
  auto entries = gate_->entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].action.target_id, "btn_ffff");
  EXPECT_FALSE(entries[0].action.target.has_value());
  EXPECT_TRUE(entries[0].recorded);
  EXPECT_FALSE(entries[0].outcome.performed);
  EXPECT_FALSE(entries[0].outcome.error.empty());
  EXPECT_TRUE(input_->events().empty());
}

TEST_F(ActTest, AnIdWhoseElementWentIsStale) {
  const std::string id = Id(Role::kButton, "Login");
  auto& window = ax_->apps()[0].children[0].children;
  window.erase(
      std::remove_if(window.begin(), window.end(), [](const Node& n) { return n.name == "Login"; }),
      window.end());
  auto r = Act(Click(id));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kStale);
  EXPECT_NE(r.error().message.find("no longer on screen"), std::string::npos);
  EXPECT_EQ(gate_->entries().size(), 1u);
}

// Every ID `observe --all` prints is actionable (issue 15 §4): an element
// not showing is found, and acted on through accessibility or refused with
// what to do, never called unknown.
TEST_F(ActTest, AnIdFromObserveAllIsFoundEvenWhenNotShowing) {
  test::GiveBackendRefs(ax_->apps());
  ax_->honour_include_hidden = true;
  Node* remember = ax_->Find(Role::kCheckBox, "Remember me");
  ASSERT_NE(remember, nullptr);
  remember->states.Set(State::kShowing, false);
  std::string id;
  {
    auto lease = workspace_->Acquire();
    ObserveRequest all;
    all.include_hidden = true;
    auto obs = lease->observer->Observe(all);
    ASSERT_TRUE(obs.ok());
    ForEachNode(obs->snapshot.roots, [&](const Node& node, int) {
      if (node.role == Role::kCheckBox) id = node.id;
    });
    // A default observation (what an action re-observes) does not show it.
    auto shown = lease->observer->Observe(ObserveRequest{});
    ASSERT_TRUE(shown.ok());
    ASSERT_EQ(FindById(shown->snapshot.roots, id), nullptr);
  }
  ASSERT_FALSE(id.empty());
  auto refused = Act(Click(id));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kUnsupported) << refused.error().message;
  EXPECT_NE(refused.error().message.find("not showing"), std::string::npos)
      << refused.error().message;
  EXPECT_TRUE(input_->events().empty());

  auto done = Act(Click(id, Via::kAccessibility));
  ASSERT_TRUE(done.ok()) << done.error().message;
  const auto& calls = ax_->calls();
  EXPECT_NE(std::find(calls.begin(), calls.end(), "do_action Remember me click"), calls.end());
}

TEST_F(ActTest, NothingIsSentWhenTheGateRefuses) {
  gate_->answer = GateDecision{GateVerdict::kDrop, "R5", "outside the window", ""};
  const std::string id = Id(Role::kButton, "Login");
  auto r = Act(Click(id));
  ASSERT_TRUE(r.ok()) << "a refusal is a result";
  EXPECT_FALSE(r->performed);
  EXPECT_EQ(r->decision.rule, "R5");
  EXPECT_FALSE(r->verification.has_value());
  EXPECT_TRUE(input_->events().empty());
  for (const auto& c : ax_->calls()) EXPECT_FALSE(c.starts_with("do_action")) << c;
  auto entries = gate_->entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].recorded);
  EXPECT_FALSE(entries[0].outcome.performed);
  const std::string text = FormatActionResult(*r);
  EXPECT_NE(text.find("not performed, drop by rule R5: outside the window"), std::string::npos)
      << text;
  EXPECT_EQ(ActionResultToJson(*r)["decision"]["verdict"], "drop");
}

TEST_F(ActTest, AConfirmationTokenReachesTheGate) {
  gate_->answer = GateDecision{GateVerdict::kNeedsConfirmation, "R4", "approve it", "tok-1"};
  ActionRequest r = Click(Id(Role::kButton, "Login"));
  r.confirmation_token = "tok-0";
  r.arguments = {{"target", "x"}};
  auto result = Act(r);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->performed);
  EXPECT_EQ(result->decision.token, "tok-1");
  EXPECT_EQ(gate_->entries()[0].action.confirmation_token, "tok-0");
  EXPECT_EQ(gate_->entries()[0].action.arguments["target"], "x");
  EXPECT_NE(FormatActionResult(*result).find("confirmation token: tok-1"), std::string::npos);
}

TEST_F(ActTest, ViaForcesEitherPath) {
  const std::string login = Id(Role::kButton, "Login");
  auto xtest = Act(Click(login, Via::kXTest));
  ASSERT_TRUE(xtest.ok());
  EXPECT_EQ(xtest->via, "xtest");
  EXPECT_EQ(input_->events().back(), "click left 220,205 x1");

  auto none = Act(Click(Id(Role::kLabel, "Email"), Via::kAccessibility));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(none.error().message.find("via xtest"), std::string::npos);

  ActionRequest right = Click(login, Via::kAccessibility);
  right.button = MouseButton::kRight;
  EXPECT_EQ(Act(right).error().code, ErrorCode::kUnsupported);
}

TEST_F(ActTest, RightAndDoubleClicksAreInput) {
  ActionRequest r = Click(Id(Role::kButton, "Login"));
  r.button = MouseButton::kRight;
  ASSERT_TRUE(Act(r).ok());
  EXPECT_EQ(input_->events().back(), "click right 220,205 x1");
  r.button = MouseButton::kLeft;
  r.count = 2;
  ASSERT_TRUE(Act(r).ok());
  EXPECT_EQ(input_->events().back(), "click left 220,205 x2");
}

TEST_F(ActTest, TheWindowIsRaisedBeforeInputOnly) {
  windows_->windows()[0].focused = false;
  auto r = Act(Click(Id(Role::kLabel, "Email")));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(windows_->calls().size(), 1u);
  EXPECT_EQ(windows_->calls()[0], "activate " + std::to_string(kWindow));
  EXPECT_NE(r->notes[0].find("raised and focused window \"Form\""), std::string::npos);

  windows_->windows()[0].focused = false;
  ASSERT_TRUE(Act(Click(Id(Role::kCheckBox, "Remember me"))).ok());
  EXPECT_EQ(windows_->calls().size(), 1u) << "an accessibility action needs no focus";
}

TEST_F(ActTest, ClickAtAPoint) {
  ActionRequest r;
  r.kind = ActionKind::kClick;
  r.target.point = Point{250, 205};
  auto result = Act(r);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->via, "xtest");
  EXPECT_FALSE(result->target.has_value());
  EXPECT_EQ(input_->events().back(), "click left 250,205 x1");
  EXPECT_EQ(gate_->entries()[0].action.points, std::vector<Point>{(Point{250, 205})});
  EXPECT_EQ(gate_->entries()[0].action.target_window, (Rect{100, 80, 600, 400}));
}

// A pointer press focuses a button and only its release activates it: a
// tree read in between shows the focus move alone, which is not the click's
// effect yet (GTK 3's "Add row" was reported focused, its row missing).
TEST_F(ActTest, APointerClickOnAButtonWaitsPastTheFocusMoveForItsEffect) {
  const std::string login = Id(Role::kButton, "Login");
  std::optional<std::chrono::steady_clock::time_point> pressed;
  input_->on_event = [&](const std::string& e) {
    if (!e.starts_with("click")) return;
    ax_->Find(Role::kButton, "Login")->states.Set(State::kFocused);
    pressed = std::chrono::steady_clock::now();
  };
  ax_->before_tree = [&](test::FakeAccessibility& ax) {
    if (pressed && std::chrono::steady_clock::now() - *pressed > std::chrono::milliseconds(150)) {
      if (Node* status = ax.Find(Role::kLabel, "Not logged in")) status->name = "Logged in";
    }
  };
  ActionRequest r = Click(login, Via::kXTest);
  r.verify.settle = std::chrono::milliseconds(1000);
  auto result = Act(r);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->via, "xtest");
  EXPECT_EQ(result->verification->effect, "observed");
  EXPECT_NE(FormatDiff(result->verification->tree).find("Logged in"), std::string::npos)
      << FormatActionResult(*result);
}

TEST_F(ActTest, TypeFocusesTheFieldAppendsAndTypes) {
  input_->on_event = [&](const std::string& e) {
    if (e.starts_with("type ")) ax_->Find(Role::kTextField, "Email")->value += e.substr(5);
  };
  ActionRequest r;
  r.kind = ActionKind::kTypeText;
  r.target.id = Id(Role::kTextField, "Email");
  r.text = "Grüße, 東京";
  auto result = Act(r);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->via, "xtest");
  EXPECT_EQ(ax_->calls().back(), "grab_focus Email");
  EXPECT_EQ(input_->events(), (std::vector<std::string>{"chord End", "type Grüße, 東京"}));
  EXPECT_EQ(result->verification->effect, "observed");
  ASSERT_EQ(result->verification->tree.changed.size(), 1u);
  EXPECT_EQ(result->verification->tree.changed[0].fields[0].after, "Grüße, 東京");
  EXPECT_EQ(gate_->entries()[0].action.text, "Grüße, 東京");
  EXPECT_FALSE(gate_->entries()[0].action.sensitive);
  EXPECT_EQ(result->method, "typed 9 characters");
}

TEST_F(ActTest, TypeReplaceUsesEditableText) {
  ActionRequest r;
  r.kind = ActionKind::kTypeText;
  r.target.id = Id(Role::kTextField, "Email");
  r.text = "ada@example.org";
  r.replace = true;
  auto result = Act(r);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->via, "editable_text");
  EXPECT_EQ(ax_->calls().back(), "set_text Email 15 chars");
  EXPECT_TRUE(input_->events().empty());
  EXPECT_EQ(result->verification->effect, "observed");

  r.via = Via::kXTest;
  result = Act(r);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(input_->events(), (std::vector<std::string>{"chord ctrl+a", "type ada@example.org"}))
      << "replacing needs no End";
}

TEST_F(ActTest, TypingIntoAPasswordFieldIsMarkedSensitive) {
  ActionRequest r;
  r.kind = ActionKind::kTypeText;
  r.target.id = Id(Role::kTextField, "Password");
  r.text = "hunter2";
  auto result = Act(r);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(gate_->entries()[0].action.sensitive);
  EXPECT_EQ(ActionResultToJson(*result).dump().find("hunter2"), std::string::npos);
  EXPECT_EQ(FormatActionResult(*result).find("hunter2"), std::string::npos);
}

TEST_F(ActTest, KeysPressedIntoAPasswordFieldAreNeverEchoed) {
  ActionRequest r;
  r.kind = ActionKind::kPressKeys;
  r.target.id = Id(Role::kTextField, "Password");
  r.keys = {"g", "p", "n"};
  auto result = Act(r);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(input_->events(), (std::vector<std::string>{"chord g", "chord p", "chord n"}));
  EXPECT_TRUE(gate_->entries()[0].action.sensitive);
  EXPECT_EQ(result->method, "keys •••• (into a password field)");
  for (const std::string& text :
       {ActionResultToJson(*result).dump(), FormatActionResult(*result)}) {
    EXPECT_EQ(text.find("g p n"), std::string::npos) << text;
    EXPECT_EQ(text.find("keys g"), std::string::npos) << text;
  }
}

TEST_F(ActTest, SetValueUsesTheValueInterfaceWithinRange) {
  const std::string volume = Id(Role::kSlider, "Volume");
  ActionRequest r;
  r.kind = ActionKind::kSetValue;
  r.target.id = volume;
  r.text = "80";
  auto result = Act(r);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->via, "value");
  EXPECT_EQ(ax_->calls().back(), "set_value Volume 80");
  ASSERT_EQ(result->verification->tree.changed.size(), 1u);
  EXPECT_EQ(result->verification->tree.changed[0].fields[0].before, "25");
  EXPECT_EQ(result->verification->tree.changed[0].fields[0].after, "80");

  r.text = "150";
  auto out_of_range = Act(r);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(out_of_range.error().message.find("0..100"), std::string::npos);
  r.text = "loud";
  EXPECT_EQ(Act(r).error().code, ErrorCode::kInvalidArgument);
  r.via = Via::kXTest;
  r.text = "10";
  EXPECT_EQ(Act(r).error().code, ErrorCode::kUnsupported) << "a slider takes no typed value";

  ActionRequest text;
  text.kind = ActionKind::kSetValue;
  text.target.id = Id(Role::kTextField, "Email");
  text.text = "x@y.z";
  auto set_text = Act(text);
  ASSERT_TRUE(set_text.ok());
  EXPECT_EQ(set_text->via, "editable_text");
}

TEST_F(ActTest, KeysAreParsedBeforeAnythingHappens) {
  ActionRequest r;
  r.kind = ActionKind::kPressKeys;
  r.keys = {"ctrl+a", "Delete"};
  auto result = Act(r);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(input_->events(), (std::vector<std::string>{"chord ctrl+a", "chord Delete"}));
  EXPECT_EQ(result->method, "keys ctrl+a Delete");

  r.keys = {"ctrl+a", "ctrl+nosuchkey"};
  input_->clear();
  auto bad = Act(r);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(input_->events().empty());
  EXPECT_EQ(gate_->entries().size(), 1u) << "a malformed request is not an action";
}

TEST_F(ActTest, ScrollAndDragGoThroughInput) {
  ActionRequest scroll;
  scroll.kind = ActionKind::kScroll;
  scroll.target.id = Id(Role::kList, "Rows");
  scroll.dy = 3;
  ASSERT_TRUE(Act(scroll).ok());
  EXPECT_EQ(input_->events().back(), "scroll 490,200 dx=0 dy=3");

  ActionRequest drag;
  drag.kind = ActionKind::kDrag;
  drag.target.id = Id(Role::kSlider, "Volume");
  drag.to.point = Point{350, 275};
  auto result = Act(drag);
  ASSERT_TRUE(result.ok());
  // From the knob: 25 of 0..100 along the slider's 200 px, not its centre.
  EXPECT_EQ(input_->events().back(), "drag left 230,275 350,275");
  EXPECT_EQ(result->points, (std::vector<Point>{{230, 275}, {350, 275}}));

  scroll.via = Via::kAccessibility;
  EXPECT_EQ(Act(scroll).error().code, ErrorCode::kUnsupported);
}

TEST_F(ActTest, ADragFromASliderStartsOnItsKnob) {
  ActionRequest drag;
  drag.kind = ActionKind::kDrag;
  drag.target.id = Id(Role::kSlider, "Volume");  // bounds 180,260,200,30
  drag.to.point = Point{200, 275};
  auto knob_at = [&](double current, double minimum, double maximum) {
    ElementCapabilities caps;
    caps.value = true;
    caps.current = current;
    caps.minimum = minimum;
    caps.maximum = maximum;
    ax_->capabilities["Volume"] = caps;
    auto r = Act(drag);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->points.at(0) : Point{};
  };
  EXPECT_EQ(knob_at(80, 0, 100), (Point{340, 275}));
  EXPECT_EQ(knob_at(-5, -10, 10), (Point{230, 275}));
  // The ends stay a few pixels inside, on the knob.
  EXPECT_EQ(knob_at(0, 0, 100), (Point{186, 275}));
  EXPECT_EQ(knob_at(100, 0, 100), (Point{374, 275}));
  EXPECT_EQ(knob_at(500, 0, 100), (Point{374, 275}));
  // No range to place it by: the centre.
  EXPECT_EQ(knob_at(5, 0, 0), (Point{280, 275}));
}

TEST_F(ActTest, MalformedRequestsAreRefusedUpFront) {
  ActionRequest r = Click("");
  EXPECT_EQ(Act(r).error().code, ErrorCode::kInvalidArgument);
  r = Click(Id(Role::kButton, "Login"));
  r.count = 4;
  EXPECT_EQ(Act(r).error().code, ErrorCode::kInvalidArgument);
  ActionRequest scroll;
  scroll.kind = ActionKind::kScroll;
  scroll.target.point = Point{1, 1};
  EXPECT_EQ(Act(scroll).error().code, ErrorCode::kInvalidArgument);
  ActionRequest type;
  type.kind = ActionKind::kTypeText;
  type.text = "bell\x07";
  EXPECT_EQ(Act(type).error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(gate_->entries().empty());
}

TEST_F(ActTest, AFailedActionIsRecordedWithItsError) {
  ax_->fail_next = MakeError(ErrorCode::kStale, "the button is gone");
  // Capabilities is not asked for a click; the action itself fails.
  auto r = Act(Click(Id(Role::kButton, "Login")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kStale);
  auto entries = gate_->entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].recorded);
  EXPECT_FALSE(entries[0].outcome.performed);
  EXPECT_EQ(entries[0].outcome.error, "the button is gone");
}

TEST(ActTargetTest, ParsesIdsAndPoints) {
  auto id = ParseActionTarget("btn_1a2b");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->id, "btn_1a2b");
  auto point = ParseActionTarget("431,-5");
  ASSERT_TRUE(point.ok());
  EXPECT_EQ(*point->point, (Point{431, -5}));
  EXPECT_EQ(point->ToString(), "431,-5");
  for (const char* bad : {"", "1,", ",2", "a,b", "btn 1", "x=1"}) {
    EXPECT_FALSE(ParseActionTarget(bad).ok()) << bad;
  }
  EXPECT_EQ(*ParseVia("xtest"), Via::kXTest);
  EXPECT_FALSE(ParseVia("magic").ok());
}

}  // namespace
}  // namespace uiscope

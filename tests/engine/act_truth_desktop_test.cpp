// What an action's "effect" promises, on Python GTK 3 fixtures made for each
// mechanism (tests/fixtures/act_truth): text typed into a widget that reads
// its keys late arrives whole and is read back before it is "observed"; a
// label names the field beside it for typing; a click on a disabled button
// waits until it is enabled or is refused. Each fixture's state is read
// through its own control channel (control.py), never through accessibility.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "core/keys.h"
#include "engine/act.h"
#include "engine/named_target.h"
#include "support/desktop_fixture.h"
#include "support/fixture_app.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::TestDesktop;
using test::WaitUntil;

// 40 characters, 10 of them missing from a US keymap.
constexpr const char* kMixedLine = "Grüße aus Zürich: 東京 – Ōsaka, naïve çà!!";

class ActTruthDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(desktop().ok()) << desktop().error();
    WorkspaceOptions options;
    options.display = desktop().info().display_name;
    options.start_headless = false;
    workspace_ = std::make_unique<Workspace>(options);
  }

  static TestDesktop& desktop() { return TestDesktop::Shared(); }

  // Starts fixture `script` and waits for its "ready" line and for
  // `element` in its accessibility tree.
  std::unique_ptr<Process> Launch(const std::string& script, const std::string& element) {
    SpawnOptions options;
    options.argv = {"/usr/bin/python3", std::string(UISCOPE_ACT_FIXTURES) + "/" + script};
    options.pipe_stdin = true;
    options.capture_stdout = true;
    auto app = desktop().Launch(std::move(options));
    if (!app) return nullptr;
    while (true) {
      auto line = app->ReadLine(milliseconds(20000));
      if (!line.ok()) {
        ADD_FAILURE() << script << " did not get ready: " << line.error().message;
        return nullptr;
      }
      if (line->starts_with("ready ")) break;
    }
    pid_ = app->pid();
    if (!WaitUntil([&] { return !FindId(element).empty(); }, milliseconds(20000))) {
      ADD_FAILURE() << element << " never showed in " << script << "'s tree";
      return nullptr;
    }
    return app;
  }

  // The ID of the element of the fixture named `name`, of `role` when
  // given ("" until it shows).
  std::string FindId(const std::string& name, std::optional<Role> role = std::nullopt) {
    auto lease = workspace_->Acquire();
    if (!lease.ok()) return "";
    auto obs = lease->observer->Observe(ObserveRequest{});
    if (!obs.ok()) return "";
    std::string id;
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      if (id.empty() && n.pid == pid_ && n.name == name && n.role != Role::kApplication &&
          n.role != Role::kWindow && (!role || n.role == *role)) {
        id = n.id;
      }
    });
    return id;
  }

  static std::string Ask(Process& app, const std::string& command) {
    auto a = test::FixtureCommand(app, command);
    EXPECT_TRUE(a.ok()) << command << ": " << a.error().message;
    return a.ok() ? *a : "";
  }

  Result<ActionResult> Act(ActionRequest r, const NamedTarget* named = nullptr) {
    auto lease = workspace_->Acquire("", Workspace::Need::kHands);
    if (!lease.ok()) return lease.error();
    // Generous under load: "none" must mean nothing happened, not "late".
    if (r.verify.settle == VerifyOptions{}.settle) r.verify.settle = milliseconds(1500);
    auto result = named ? PerformActionOnNamed(*lease, r, *named) : PerformAction(*lease, r);
    if (result.ok() && std::getenv("UISCOPE_TEST_VERBOSE")) {
      std::cerr << FormatActionResult(*result);
    }
    return result;
  }

  static ActionRequest Type(const std::string& id, const std::string& text, bool replace = false) {
    ActionRequest r;
    r.kind = ActionKind::kTypeText;
    r.target.id = id;
    r.text = text;
    r.replace = replace;
    r.via = Via::kXTest;
    return r;
  }

  static std::string Escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\\') {
        out += "\\\\";
      } else {
        out += c;
      }
    }
    return out;
  }

  std::unique_ptr<Workspace> workspace_;
  int pid_ = 0;
};

// The busy widget stalls 300 ms on the first key of a burst, so it
// translates the keys after it 300 ms late: characters typed through spare
// key codes ('ä', '京') were lost when the keymap was restored 100 ms after
// they were sent ("Mär" arrived as "Mr", reported "observed"). Typing waits
// until the app has handled them, and the text is read back whole.
TEST_F(ActTruthDesktopTest, ABusyWidgetGetsEveryCharacterAndItIsReadBack) {
  auto app = Launch("slow_entry.py", "Slow notes");
  ASSERT_NE(app, nullptr);
  const std::string notes = FindId("Slow notes");
  const std::string text = "Jan 120\nFeb 95.5\nMär 3 ü 京\n";
  auto r = Act(Type(notes, text));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Ask(*app, "text notes"), Escaped(text));
  EXPECT_EQ(r->verification->effect, "observed") << FormatActionResult(*r);
  EXPECT_GE(std::atoi(Ask(*app, "stalls").c_str()), 1) << "the widget never stalled";

  const std::string line = FindId("Slow line");
  auto timed = Act(Type(line, kMixedLine));
  ASSERT_TRUE(timed.ok()) << timed.error().message;
  EXPECT_EQ(Ask(*app, "text line"), kMixedLine);
  EXPECT_EQ(timed->verification->effect, "observed") << FormatActionResult(*timed);
  EXPECT_NE(timed->verification->reason.find("40 of 40 characters delivered"), std::string::npos)
      << timed->verification->reason;
  std::fprintf(stderr, "busy widget: 40 characters (10 not on the keymap) in %.0f ms (act %.0f)\n",
               timed->total_ms, timed->act_ms);
}

// The same line into the GTK 3 fixture's field, for the speed it must keep.
TEST_F(ActTruthDesktopTest, AMixedLineIntoAGtkFieldArrivesWhole) {
  auto app = test::LaunchApp(desktop(), test::Toolkit::kGtk3);
  ASSERT_NE(app, nullptr);
  pid_ = app->pid();
  const std::string email = FindId("Email", Role::kTextField);
  ASSERT_FALSE(email.empty());
  auto r = Act(Type(email, kMixedLine, /*replace=*/true));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*app->Command("text email"), kMixedLine);
  EXPECT_EQ(r->verification->effect, "observed") << FormatActionResult(*r);
  std::fprintf(stderr, "gtk3 field: 40 characters (10 not on the keymap) in %.0f ms (act %.0f)\n",
               r->total_ms, r->act_ms);
}

// "type --name City" chose the label "City", clicked it and typed into the
// focused First name field. The fields here have no name and no relation to
// their labels: the one beside (or below) the label is typed into.
TEST_F(ActTruthDesktopTest, TypingByALabelGoesIntoTheFieldBesideIt) {
  auto app = Launch("label_beside.py", "City");
  ASSERT_NE(app, nullptr);
  NamedTarget city;
  city.name = "City";
  ActionRequest type = Type("", "Basel");
  auto r = Act(type, &city);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(WaitUntil([&] { return Ask(*app, "text city") == "Basel"; }))
      << Ask(*app, "text city");
  EXPECT_EQ(Ask(*app, "text first"), "") << "typed into the focused field instead";
  ASSERT_TRUE(r->target.has_value());
  EXPECT_NE(r->target->role, Role::kLabel) << FormatActionResult(*r);

  NamedTarget notes;
  notes.name = "Notes";
  auto below = Act(Type("", "bring umbrellas"), &notes);
  ASSERT_TRUE(below.ok()) << below.error().message;
  EXPECT_TRUE(WaitUntil([&] { return Ask(*app, "text notes") == "bring umbrellas"; }))
      << Ask(*app, "text notes");
  EXPECT_EQ(Ask(*app, "text first"), "");
}

// A Save button enabled 800 ms after a file name is typed, clicked right
// after the typing: the click waits until it is enabled, and the save
// happens (it was clicked while disabled, saved nothing, and reported
// "observed" for its "+enabled"). A button never enabled is refused.
TEST_F(ActTruthDesktopTest, AClickOnADisabledButtonWaitsForItOrIsRefused) {
  auto app = Launch("late_button.py", "Save");
  ASSERT_NE(app, nullptr);
  const std::string save = FindId("Save");
  const std::string never = FindId("Never");
  auto typed = Act(Type(FindId("File name"), "report.txt"));
  ASSERT_TRUE(typed.ok()) << typed.error().message;
  ASSERT_EQ(Ask(*app, "enabled"), "0") << "Save was enabled before the click: the test is moot";

  ActionRequest click;
  click.kind = ActionKind::kClick;
  click.target.id = save;
  auto r = Act(click);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(WaitUntil([&] { return Ask(*app, "saved") == "1"; })) << FormatActionResult(*r);
  bool said = false;
  for (const std::string& n : r->notes) said = said || n.find("was disabled") != std::string::npos;
  EXPECT_TRUE(said) << FormatActionResult(*r);
  EXPECT_EQ(r->verification->effect, "observed") << FormatActionResult(*r);

  click.target.id = never;
  click.timeout = milliseconds(500);
  auto refused = Act(click);
  ASSERT_FALSE(refused.ok()) << FormatActionResult(*refused);
  EXPECT_NE(refused.error().message.find("is disabled"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(Ask(*app, "never"), "0");
}

}  // namespace
}  // namespace uiscope

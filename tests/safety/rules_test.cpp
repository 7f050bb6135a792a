// The safety rules on plain data (no desktop): one test group per rule.
#include "safety/rules.h"

#include <gtest/gtest.h>

#include "safety/redact.h"

namespace uiscope::safety {
namespace {

Node Button(std::string name, std::string id, Rect bounds, std::string app = "calc") {
  Node n;
  n.role = Role::kButton;
  n.name = std::move(name);
  n.id = std::move(id);
  n.bounds = bounds;
  n.app = std::move(app);
  return n;
}

PlannedAction ClickOn(const Node& target, Rect window, Point at) {
  PlannedAction a;
  a.tool = "click";
  a.display = ":5";
  a.target_id = target.id;
  a.target = target;
  a.target_window = window;
  a.points = {at};
  a.frame = Frame{1920, 1080, 1.0};
  a.app = target.app;
  return a;
}

// --- R5: points -------------------------------------------------------------------

TEST(R5, PointInsideScreenAndWindowPasses) {
  Node ok = Button("OK", "btn_1", {110, 110, 50, 20});
  EXPECT_FALSE(CheckPoints(ClickOn(ok, {100, 100, 400, 300}, {135, 120})));
}

TEST(R5, PointOffScreenIsDropped) {
  Node ok = Button("OK", "btn_1", {110, 110, 50, 20});
  for (Point p :
       {Point{-1, 10}, Point{10, -1}, Point{1920, 10}, Point{10, 1080}, Point{100000, 5}}) {
    PlannedAction a = ClickOn(ok, {}, p);
    a.target_window.reset();
    auto d = CheckPoints(a);
    ASSERT_TRUE(d) << p.x << "," << p.y;
    EXPECT_EQ(d->verdict, GateVerdict::kDrop);
    EXPECT_EQ(d->rule, "R5");
    EXPECT_NE(d->reason.find("outside the screen"), std::string::npos) << d->reason;
    EXPECT_NE(d->reason.find("nothing was sent"), std::string::npos) << d->reason;
  }
}

TEST(R5, EdgesOfTheScreen) {
  Node ok = Button("OK", "btn_1", {0, 0, 10, 10});
  PlannedAction a = ClickOn(ok, {}, {0, 0});
  a.target_window.reset();
  EXPECT_FALSE(CheckPoints(a));
  a.points = {{1919, 1079}};
  EXPECT_FALSE(CheckPoints(a));
  a.points = {{1920, 1079}};
  EXPECT_TRUE(CheckPoints(a));
}

TEST(R5, PointOutsideTheTargetsWindowIsDropped) {
  Node ok = Button("OK", "btn_1", {110, 110, 50, 20});
  auto d = CheckPoints(ClickOn(ok, {100, 100, 400, 300}, {600, 120}));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, GateVerdict::kDrop);
  EXPECT_EQ(d->rule, "R5");
  EXPECT_NE(d->reason.find("outside the window of button \"OK\" btn_1"), std::string::npos)
      << d->reason;
}

TEST(R5, EveryPointOfADragIsChecked) {
  Node ok = Button("Handle", "sld_1", {110, 110, 50, 20});
  PlannedAction a = ClickOn(ok, {100, 100, 400, 300}, {120, 120});
  a.tool = "drag";
  a.points.push_back({450, 350});  // end inside the window
  EXPECT_FALSE(CheckPoints(a));
  a.points.push_back({2000, 350});  // off screen
  auto d = CheckPoints(a);
  ASSERT_TRUE(d);
  EXPECT_NE(d->reason.find("2000,350"), std::string::npos) << d->reason;
  a.points.back() = {700, 350};  // on screen, off the window
  d = CheckPoints(a);
  ASSERT_TRUE(d);
  EXPECT_NE(d->reason.find("outside the window"), std::string::npos) << d->reason;
}

TEST(R5, UnknownScreenSizeDropsRatherThanSendBlind) {
  Node ok = Button("OK", "btn_1", {110, 110, 50, 20});
  PlannedAction a = ClickOn(ok, {}, {10, 10});
  a.frame = Frame{};
  auto d = CheckPoints(a);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, GateVerdict::kDrop);
}

TEST(R5, ActionsWithoutPointsPass) {
  PlannedAction a;
  a.tool = "press_keys";
  EXPECT_FALSE(CheckPoints(a));
}

// --- R6: unknown and stale IDs ---------------------------------------------------

TEST(R6, UnknownIdIsRefusedWithAHintToObserve) {
  PlannedAction a;
  a.tool = "click";
  a.target_id = "btn_dead";
  auto d = CheckKnownTarget(a);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, GateVerdict::kDeny);
  EXPECT_EQ(d->rule, "R6");
  EXPECT_NE(d->reason.find("btn_dead"), std::string::npos);
  EXPECT_NE(d->reason.find("Observe again"), std::string::npos) << d->reason;
}

TEST(R6, DefunctTargetIsStale) {
  Node gone = Button("OK", "btn_1", {1, 1, 5, 5});
  gone.states.Set(State::kDefunct);
  PlannedAction a = ClickOn(gone, {}, {2, 2});
  auto d = CheckKnownTarget(a);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->rule, "R6");
}

TEST(R6, KnownTargetAndActionsWithoutIdPass) {
  Node ok = Button("OK", "btn_1", {1, 1, 5, 5});
  EXPECT_FALSE(CheckKnownTarget(ClickOn(ok, {}, {2, 2})));
  PlannedAction by_point;
  by_point.tool = "click";
  by_point.points = {{3, 3}};
  EXPECT_FALSE(CheckKnownTarget(by_point));
}

// --- R4: ambiguous targets --------------------------------------------------------

TEST(R4, SeveralMatchesNeedConfirmationAndAreListed) {
  Node a1 = Button("Save", "btn_a", {10, 10, 50, 20}, "gedit");
  Node a2 = Button("Save", "btn_b", {10, 50, 50, 20}, "gedit");
  Node a3 = Button("Save as", "btn_c", {10, 90, 50, 20}, "gedit");
  PlannedAction a = ClickOn(a1, {}, {20, 20});
  a.candidates = 3;
  a.candidate_nodes = {a1, a2, a3};
  auto d = CheckAmbiguous(a);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(d->rule, "R4");
  for (const char* id : {"btn_a", "btn_b", "btn_c"}) {
    EXPECT_NE(d->reason.find(id), std::string::npos) << d->reason;
  }
  EXPECT_NE(d->reason.find("3 elements match"), std::string::npos) << d->reason;
  EXPECT_NE(d->reason.find("would use button \"Save\" btn_a"), std::string::npos) << d->reason;
  EXPECT_TRUE(d->token.empty());  // the gate issues it
}

TEST(R4, LongCandidateListsAreCut) {
  PlannedAction a;
  a.tool = "click";
  a.candidates = 40;
  for (int i = 0; i < 40; ++i) {
    a.candidate_nodes.push_back(Button("Row", "lst_" + std::to_string(i), {0, i * 10, 5, 5}));
  }
  auto d = CheckAmbiguous(a, 5);
  ASSERT_TRUE(d);
  EXPECT_NE(d->reason.find("lst_4"), std::string::npos);
  EXPECT_EQ(d->reason.find("lst_5 "), std::string::npos);
  EXPECT_NE(d->reason.find("and 35 more"), std::string::npos) << d->reason;
}

TEST(R4, OneMatchPasses) {
  Node ok = Button("OK", "btn_1", {1, 1, 5, 5});
  EXPECT_FALSE(CheckAmbiguous(ClickOn(ok, {}, {2, 2})));
}

// --- R3: launch allow-list, deny list ----------------------------------------------

PlannedAction Launch(std::string command) {
  PlannedAction a;
  a.tool = "app_launch";
  a.command = std::move(command);
  return a;
}

TEST(R3, NoAllowListAllowsAnyProgram) {
  EXPECT_FALSE(CheckLaunchAllowList(Launch("rm -rf /tmp/x"), std::nullopt));
}

TEST(R3, AllowListByNameAndByPath) {
  const std::vector<std::string> allow = {"gedit", "/opt/tools/bin/calc"};
  EXPECT_FALSE(CheckLaunchAllowList(Launch("gedit notes.txt"), allow));
  EXPECT_FALSE(CheckLaunchAllowList(Launch("/usr/bin/gedit"), allow));
  EXPECT_FALSE(CheckLaunchAllowList(Launch("/opt/tools/bin/calc --x"), allow));
  auto d = CheckLaunchAllowList(Launch("calc"), allow);  // by path only
  ASSERT_TRUE(d);
  EXPECT_EQ(d->rule, "R3");
  EXPECT_EQ(d->verdict, GateVerdict::kDeny);
  EXPECT_NE(d->reason.find("gedit, /opt/tools/bin/calc"), std::string::npos) << d->reason;
  EXPECT_TRUE(CheckLaunchAllowList(Launch("xterm -e gedit"), allow));
  EXPECT_TRUE(CheckLaunchAllowList(Launch("/tmp/gedit/evil"), allow));
}

// By default app_launch starts applications: never uiscope itself, a shell
// or an interpreter running inline code, by any route (a wrapper, a path,
// a terminal's -e), through which an agent could approve its own held
// actions with `uiscope confirm`.
TEST(R3, ByDefaultNothingThatRunsCommandsIsLaunched) {
  const char* const kRefused[] = {
      "uiscope confirm abcdefghij --approve --grant 1000",
      "/usr/local/bin/uiscope confirm abcdefghij --approve",
      "sh -c 'uiscope confirm abcdefghij --approve'",
      "/bin/bash -c true",
      "bash",
      "env -i PATH=/usr/bin sh",
      "setsid -f dash -c true",
      "xterm -e sh -c 'uiscope confirm t --approve'",
      "xterm -e uiscope confirm t --approve",
      "python3 -c 'import os; os.system(\"uiscope confirm t --approve\")'",
      "/usr/bin/python3.11 -c pass",
      "perl -e 'system q(uiscope)'",
      "perl -Esay",
      "node --eval 1",
      "awk 'BEGIN{system(\"x\")}'",
  };
  for (const char* command : kRefused) {
    auto d = CheckLaunchAllowList(Launch(command), std::nullopt);
    ASSERT_TRUE(d) << command;
    EXPECT_EQ(d->rule, "R3") << command;
    EXPECT_EQ(d->verdict, GateVerdict::kDeny) << command;
    EXPECT_NE(d->reason.find("launch_allow"), std::string::npos) << d->reason;
  }
  const char* const kApps[] = {"gedit notes.txt", "xterm", "/usr/bin/gnumeric sheet.gnumeric",
                               "python3 /usr/share/app/main.py", "pythonista", "abiword --nosplash"};
  for (const char* command : kApps) {
    EXPECT_FALSE(CheckLaunchAllowList(Launch(command), std::nullopt)) << command;
  }
}

TEST(R3, LaunchAllowLetsThroughTheCommandRunnersItNames) {
  EXPECT_FALSE(CheckLaunchAllowList(Launch("sh -c 'make run'"), std::vector<std::string>{"sh"}));
  EXPECT_FALSE(CheckLaunchAllowList(Launch("/usr/bin/python3 -c pass"),
                                    std::vector<std::string>{"/usr/bin/python3"}));
  // Each runner on the line must be listed, not only the first program.
  auto d = CheckLaunchAllowList(Launch("xterm -e sh -c 'uiscope confirm t --approve'"),
                                std::vector<std::string>{"xterm", "sh"});
  ASSERT_TRUE(d);
  EXPECT_NE(d->reason.find("\"uiscope"), std::string::npos) << d->reason;
  EXPECT_FALSE(CheckLaunchAllowList(Launch("xterm -e sh"), std::vector<std::string>{"xterm", "sh"}));
}

TEST(R3, EmptyAllowListAllowsNothing) {
  auto d = CheckLaunchAllowList(Launch("gedit"), std::vector<std::string>{});
  ASSERT_TRUE(d);
  EXPECT_NE(d->reason.find("no program may be launched"), std::string::npos) << d->reason;
}

TEST(R3, OnlyAppLaunchIsConcerned) {
  PlannedAction click;
  click.tool = "click";
  EXPECT_FALSE(CheckLaunchAllowList(click, std::vector<std::string>{}));
}

TEST(R3, ProgramOfHandlesQuotesAndEscapes) {
  EXPECT_EQ(ProgramOf("  gedit a b"), "gedit");
  EXPECT_EQ(ProgramOf("'/opt/My App/app' --x"), "/opt/My App/app");
  EXPECT_EQ(ProgramOf("\"/opt/My \\\"App\\\"/a\" x"), "/opt/My \"App\"/a");
  EXPECT_EQ(ProgramOf("/opt/My\\ App/a x"), "/opt/My App/a");
  EXPECT_EQ(ProgramOf(""), "");
  EXPECT_EQ(BaseName("/usr/bin/gedit"), "gedit");
  EXPECT_EQ(BaseName("gedit"), "gedit");
}

TEST(DenyList, ActionsOnADeniedAppAreRefused) {
  Node field = Button("Master password", "txt_1", {1, 1, 5, 5}, "KeePassXC");
  PlannedAction a = ClickOn(field, {}, {2, 2});
  a.app.clear();
  auto d = CheckDenyList(a, {"keepassxc"});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, GateVerdict::kDeny);
  EXPECT_EQ(d->rule, "deny_list");
  EXPECT_NE(d->reason.find("KeePassXC"), std::string::npos) << d->reason;
  EXPECT_FALSE(CheckDenyList(a, {"gedit"}));
  EXPECT_FALSE(CheckDenyList(a, {}));
}

TEST(DenyList, LaunchFocusCloseAndCandidates) {
  EXPECT_TRUE(CheckDenyList(Launch("/usr/bin/keepassxc --lock"), {"keepassxc"}));
  PlannedAction focus;
  focus.tool = "app_focus";
  focus.app = "Seahorse";
  EXPECT_TRUE(CheckDenyList(focus, {"seahorse"}));
  PlannedAction ambiguous;
  ambiguous.tool = "click";
  ambiguous.candidates = 2;
  ambiguous.candidate_nodes = {Button("OK", "btn_a", {}, "gedit"),
                               Button("OK", "btn_b", {}, "1Password")};
  EXPECT_TRUE(CheckDenyList(ambiguous, {"1password"}));
}

TEST(DenyList, Wildcards) {
  EXPECT_TRUE(AppPatternMatches("*pass*", "KeePassXC"));
  EXPECT_TRUE(AppPatternMatches("org.gnome.*", "org.gnome.Seahorse"));
  EXPECT_TRUE(AppPatternMatches("gedi?", "gedit"));
  EXPECT_FALSE(AppPatternMatches("gedi?", "gedits"));
  EXPECT_FALSE(AppPatternMatches("gedit", "gedit2"));
  EXPECT_FALSE(AppPatternMatches("", "gedit"));
  // The word that selects an app (`--app keepassxc`) denies it too.
  EXPECT_TRUE(AppPatternMatches("keepassxc", "org.keepassxc.KeePassXC"));
  EXPECT_TRUE(AppPatternMatches("*pass*", "org.keepassxc.KeePassXC"));
  EXPECT_FALSE(AppPatternMatches("keepassxc.KeePassXC", "org.keepassxc.KeePassXC"));
  EXPECT_FALSE(AppPatternMatches("gnome", "org.gnome.Seahorse"));
  EXPECT_TRUE(AppPatternMatches("*", "anything"));
  EXPECT_FALSE(MatchingPattern({"*"}, ""));  // an unnamed app is not "anything"
  // Backtracking patterns stay fast.
  EXPECT_FALSE(AppPatternMatches("*a*a*a*a*a*a*a*b", std::string(200, 'a')));
}

// --- confirm_tools, sensitivity, redaction ------------------------------------------

TEST(ConfirmTools, ListedToolsNeedConfirmation) {
  PlannedAction a;
  a.tool = "session_stop";
  auto d = CheckConfirmTools(a, {"app_close", "session_stop"});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(d->rule, "confirm_tools");
  a.tool = "click";
  EXPECT_FALSE(CheckConfirmTools(a, {"app_close", "session_stop"}));
}

TEST(ConfirmTools, PlanStepsAskedForOrAllOfThem) {
  PlannedAction a;
  a.tool = "click";
  a.plan_step = true;
  EXPECT_FALSE(CheckConfirmTools(a, {"session_stop"}));
  auto all = CheckConfirmTools(a, {"plan"});  // "execute_plan" in the file
  ASSERT_TRUE(all);
  EXPECT_EQ(all->rule, "confirm_tools");
  a.require_confirmation = true;
  auto asked = CheckConfirmTools(a, {});
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->verdict, GateVerdict::kNeedsConfirmation);
  EXPECT_EQ(asked->rule, "plan");
  a.plan_step = false;
  a.require_confirmation = false;
  EXPECT_FALSE(CheckConfirmTools(a, {"plan"}));  // the click tool itself
}

TEST(Secrets, PasswordTargetsAreSensitive) {
  Node pw;
  pw.role = Role::kTextField;
  pw.id = "txt_pw";
  pw.states.Set(State::kPassword);
  PlannedAction a;
  a.tool = "type_text";
  EXPECT_FALSE(IsSensitive(a));
  a.target = pw;
  EXPECT_TRUE(IsSensitive(a));
  a.target.reset();
  a.sensitive = true;
  EXPECT_TRUE(IsSensitive(a));
}

TEST(Secrets, RedactionMasksTypedTextAtAnyDepth) {
  nlohmann::json args = {{"id", "txt_pw"},
                         {"text", "hunter2"},
                         {"steps", {{{"type", "type_text"}, {"args", {{"text", "hunter2"}}}}}},
                         {"keys", {"h", "u"}},
                         {"empty", {{"text", ""}}}};
  nlohmann::json r = RedactArguments(args, true);
  EXPECT_EQ(r["text"], std::string(kMask));
  EXPECT_EQ(r["steps"][0]["args"]["text"], std::string(kMask));
  EXPECT_EQ(r["keys"], std::string(kMask));
  EXPECT_EQ(r["id"], "txt_pw");
  EXPECT_EQ(r["empty"]["text"], "");
  EXPECT_EQ(r.dump().find("hunter2"), std::string::npos);
  EXPECT_EQ(RedactArguments(args, false), args);
  EXPECT_EQ(Redacted("hunter2", true), kMask);
  EXPECT_EQ(Redacted("hello", false), "hello");
}

}  // namespace
}  // namespace uiscope::safety

// The hands tools through the real server on a fake desktop: every
// structuredContent (refusals included) is checked against the tool's
// outputSchema.
#include <gtest/gtest.h>
#include <signal.h>

#include "mcp/json_schema.h"
#include "mcp/server.h"
#include "mcp/tools/tools.h"
#include "support/fake_accessibility.h"
#include "support/fake_capture.h"
#include "support/fake_input.h"
#include "support/fake_sessions.h"
#include "support/fake_windows.h"
#include "support/recording_gate.h"

namespace uiscope::mcp {
namespace {

class Inbox final : public Outbound {
 public:
  bool Send(const json& message) override {
    messages.push_back(message);
    return true;
  }
  std::vector<json> messages;
};

class HandsToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ax = std::make_unique<test::FakeAccessibility>(
        test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/form.json"));
    ax_ = ax.get();
    auto input = std::make_unique<test::FakeInput>();
    input_ = input.get();
    WindowInfo w;
    w.id = 0x400001;
    w.title = "Form";
    w.app_instance = "form-app";
    w.pid = 4343;
    w.bounds = Rect{100, 80, 600, 400};
    w.focused = true;
    auto windows = std::make_unique<test::FakeWindows>(std::vector<WindowInfo>{w});
    windows_ = windows.get();
    workspace_ = std::make_unique<Workspace>(FakeDesktopParts{
        std::move(ax), Frame{1920, 1080, 1.0}, std::move(input), std::move(windows),
        std::make_unique<test::FakeCapture>(1920, 1080), /*allow_launch=*/true});
    gate_ = std::make_shared<test::RecordingGate>();
    workspace_->SetActionGate(gate_);
    ASSERT_TRUE(RegisterAllTools(registry_, *workspace_, sessions_).ok());
    ServerOptions options;
    options.tools_inline = true;
    options.validate_output = true;
    server_ = std::make_unique<Server>(registry_, options);
    session_ = server_->NewSession();
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", 0},
                      {"method", "initialize"},
                      {"params", {{"protocolVersion", "2025-11-25"}}}},
                     inbox_);
  }

  // The tools/call result; its structuredContent must match the outputSchema
  // even when the result is an error.
  json Call(const std::string& tool, json arguments) {
    inbox_.messages.clear();
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", ++id_},
                      {"method", "tools/call"},
                      {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}},
                     inbox_);
    for (const json& m : inbox_.messages) {
      if (m.contains("id") && m["id"] == id_) {
        EXPECT_TRUE(m.contains("result")) << m.dump();
        json result = m.value("result", json::object());
        if (result.contains("structuredContent")) {
          auto err = ValidateJson(registry_.Find(tool)->output_schema, result["structuredContent"]);
          EXPECT_FALSE(err.has_value()) << tool << ": " << *err;
        }
        return result;
      }
    }
    ADD_FAILURE() << "no reply to " << tool;
    return json::object();
  }

  static std::string Text(const json& result) {
    std::string text;
    for (const json& c : result["content"]) text += c.value("text", "");
    return text;
  }

  std::string Id(const std::string& name) {
    json found = Call("find", {{"name", name}, {"exact", true}});
    return found["structuredContent"]["matches"][0]["id"];
  }

  test::FakeAccessibility* ax_ = nullptr;
  test::FakeInput* input_ = nullptr;
  test::FakeWindows* windows_ = nullptr;
  std::shared_ptr<test::RecordingGate> gate_;
  std::unique_ptr<Workspace> workspace_;
  test::FakeSessions sessions_;
  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Session> session_;
  Inbox inbox_;
  int id_ = 0;
};

TEST_F(HandsToolsTest, AnnotationsSayWhatChangesState) {
  for (const char* name : {"click", "type_text", "press_keys", "drag", "set_value", "app_close"}) {
    EXPECT_TRUE(registry_.Find(name)->annotations.destructive) << name;
    EXPECT_FALSE(registry_.Find(name)->annotations.read_only) << name;
  }
  for (const char* name : {"wait_for", "windows", "app_list"}) {
    EXPECT_TRUE(registry_.Find(name)->annotations.read_only) << name;
  }
  EXPECT_FALSE(registry_.Find("scroll")->annotations.destructive);
}

TEST_F(HandsToolsTest, ClickReturnsItsVerification) {
  json r = Call("click", {{"target", Id("Remember me")}, {"settle_ms", 100}});
  ASSERT_FALSE(r["isError"].get<bool>()) << r.dump();
  const json& s = r["structuredContent"];
  EXPECT_EQ(s["via"], "accessibility");
  EXPECT_EQ(s["effect"], "observed");
  EXPECT_EQ(s["verification"]["tree"]["changed"][0]["states_added"][0], "checked");
  EXPECT_EQ(s["display"], ":fake");
  EXPECT_NE(Text(r).find("effect: observed"), std::string::npos) << Text(r);
  EXPECT_NE(Text(r).find("states +checked"), std::string::npos) << Text(r);

  json label = Call("click", {{"target", Id("Email")}, {"settle_ms", 50}});
  ASSERT_FALSE(label["isError"].get<bool>()) << label.dump();
  EXPECT_EQ(label["structuredContent"]["effect"], "none");
  EXPECT_EQ(label["structuredContent"]["via"], "xtest");

  json point = Call("click", {{"target", {{"x", 250}, {"y", 205}}}, {"settle_ms", 50}});
  ASSERT_FALSE(point["isError"].get<bool>()) << point.dump();
  EXPECT_EQ(input_->events().back(), "click left 250,205 x1");
  EXPECT_EQ(point["structuredContent"]["points"][0]["x"], 250);
}

TEST_F(HandsToolsTest, FailuresAndRefusalsAreToolErrors) {
  json unknown = Call("click", {{"target", "btn_ffff"}});
  EXPECT_TRUE(unknown["isError"].get<bool>());
  EXPECT_NE(Text(unknown).find("observe again"), std::string::npos) << Text(unknown);
  json bad = Call("click", {{"target", "not an id"}});
  EXPECT_TRUE(bad["isError"].get<bool>());
  json via = Call("click", {{"target", Id("Login")}, {"via", "telepathy"}});
  EXPECT_TRUE(via["isError"].get<bool>()) << "the schema lists the choices";

  gate_->answer = GateDecision{GateVerdict::kNeedsConfirmation, "R4", "ask first", "tok-9"};
  json held = Call("click", {{"target", Id("Login")}});
  EXPECT_TRUE(held["isError"].get<bool>());
  EXPECT_FALSE(held["structuredContent"]["performed"].get<bool>());
  EXPECT_EQ(held["structuredContent"]["decision"]["verdict"], "needs_confirmation");
  EXPECT_EQ(held["structuredContent"]["decision"]["token"], "tok-9");
  EXPECT_NE(Text(held).find("tok-9"), std::string::npos);
  EXPECT_TRUE(input_->events().empty());
  for (const auto& c : ax_->calls()) EXPECT_FALSE(c.starts_with("do_action")) << c;
}

TEST_F(HandsToolsTest, TypeKeysScrollDragAndSetValue) {
  json typed =
      Call("type_text", {{"target", Id("Email")}, {"text", "Grüße, 東京"}, {"settle_ms", 50}});
  ASSERT_FALSE(typed["isError"].get<bool>()) << typed.dump();
  EXPECT_EQ(input_->events().back(), "type Grüße, 東京");
  EXPECT_EQ(gate_->entries().back().action.text, "Grüße, 東京");
  // The gate gets the arguments as given and decides what the audit log
  // keeps: the PolicyGate masks text that goes into a sensitive field.
  EXPECT_EQ(gate_->entries().back().action.arguments.value("text", ""), "Grüße, 東京");
  EXPECT_FALSE(gate_->entries().back().action.sensitive);

  json keys = Call("press_keys", {{"keys", "ctrl+a Delete"}, {"settle_ms", 50}});
  ASSERT_FALSE(keys["isError"].get<bool>()) << keys.dump();
  json keys_array = Call("press_keys", {{"keys", {"ctrl+a", "Delete"}}, {"settle_ms", 50}});
  ASSERT_FALSE(keys_array["isError"].get<bool>());
  EXPECT_EQ(input_->events().back(), "chord Delete");
  json bad_keys = Call("press_keys", {{"keys", "ctrl+wat"}});
  EXPECT_TRUE(bad_keys["isError"].get<bool>());
  EXPECT_NE(Text(bad_keys).find("unknown key \"wat\""), std::string::npos) << Text(bad_keys);

  json scrolled = Call("scroll", {{"target", Id("Rows")}, {"dy", 3}, {"settle_ms", 50}});
  ASSERT_FALSE(scrolled["isError"].get<bool>()) << scrolled.dump();
  EXPECT_EQ(input_->events().back(), "scroll 490,200 dx=0 dy=3");

  json dragged =
      Call("drag", {{"from", Id("Volume")}, {"to", {{"x", 350}, {"y", 275}}}, {"settle_ms", 50}});
  ASSERT_FALSE(dragged["isError"].get<bool>()) << dragged.dump();
  // From the knob (value 25 of 0-100: a quarter along the track), not the
  // slider's centre (see SliderKnob in engine/act.cpp).
  EXPECT_EQ(input_->events().back(), "drag left 230,275 350,275");

  json value = Call("set_value", {{"target", Id("Volume")}, {"value", 80}, {"settle_ms", 50}});
  ASSERT_FALSE(value["isError"].get<bool>()) << value.dump();
  EXPECT_EQ(value["structuredContent"]["via"], "value");
  EXPECT_EQ(ax_->calls().back(), "set_value Volume 80");
  json text = Call("set_value", {{"target", Id("Email")}, {"value", "x@y.z"}, {"settle_ms", 50}});
  EXPECT_EQ(text["structuredContent"]["via"], "editable_text");
}

TEST_F(HandsToolsTest, ObserveDiffShowsOnlyWhatChanged) {
  json first = Call("observe", {{"format", "diff"}});
  ASSERT_FALSE(first["isError"].get<bool>()) << first.dump();
  EXPECT_TRUE(first["structuredContent"]["baseline"].get<bool>());
  EXPECT_NE(Text(first).find("[button \"Login\""), std::string::npos) << Text(first);

  json same = Call("observe", {{"format", "diff"}});
  EXPECT_FALSE(same["structuredContent"]["baseline"].get<bool>());
  EXPECT_NE(Text(same).find("no change"), std::string::npos) << Text(same);

  ax_->Find(Role::kCheckBox, "Remember me")->states.Set(State::kChecked);
  json changed = Call("observe", {{"format", "diff"}});
  ASSERT_FALSE(changed["isError"].get<bool>()) << changed.dump();
  const json& diff = changed["structuredContent"]["diff"];
  ASSERT_EQ(diff["changed"].size(), 1u) << changed.dump();
  EXPECT_EQ(diff["changed"][0]["states_added"][0], "checked");
  EXPECT_EQ(Text(changed).find("Login"), std::string::npos) << "only the change";

  json paged = Call("observe", {{"format", "diff"}, {"cursor", "n:1"}});
  EXPECT_TRUE(paged["isError"].get<bool>());
}

TEST_F(HandsToolsTest, WaitFor) {
  json seen = Call("wait_for", {{"name", "Login"}, {"role", "button"}});
  ASSERT_FALSE(seen["isError"].get<bool>()) << seen.dump();
  EXPECT_TRUE(seen["structuredContent"]["satisfied"].get<bool>());
  EXPECT_EQ(seen["structuredContent"]["matches"][0]["name"], "Login");

  json late = Call("wait_for", {{"text", "Welcome"}, {"ocr", false}, {"timeout_ms", 100}});
  EXPECT_TRUE(late["isError"].get<bool>());
  EXPECT_FALSE(late["structuredContent"]["satisfied"].get<bool>());
  EXPECT_NE(Text(late).find("timed out after"), std::string::npos) << Text(late);

  json two = Call("wait_for", {{"id", "x"}, {"gone", "y"}});
  EXPECT_TRUE(two["isError"].get<bool>());
  EXPECT_NE(Text(two).find("exactly one condition"), std::string::npos);
}

TEST_F(HandsToolsTest, WindowsAndApps) {
  json windows = Call("windows", json::object());
  ASSERT_FALSE(windows["isError"].get<bool>()) << windows.dump();
  EXPECT_EQ(windows["structuredContent"]["windows"][0]["id"], "0x400001");
  EXPECT_EQ(windows["structuredContent"]["windows"][0]["app"], "form-app");

  json apps = Call("app_list", json::object());
  ASSERT_FALSE(apps["isError"].get<bool>()) << apps.dump();
  EXPECT_EQ(apps["structuredContent"]["apps"][0]["pid"], 4343);
  EXPECT_TRUE(apps["structuredContent"]["apps"][0]["accessible"].get<bool>());

  windows_->windows()[0].focused = false;
  json focus = Call("app_focus", {{"app", "form-app"}});
  ASSERT_FALSE(focus["isError"].get<bool>()) << focus.dump();
  EXPECT_TRUE(windows_->windows()[0].focused);

  json launched = Call("app_launch", {{"command", "sleep 30"}, {"wait", false}});
  ASSERT_FALSE(launched["isError"].get<bool>()) << launched.dump();
  const int pid = launched["structuredContent"]["pid"];
  ASSERT_GT(pid, 0);
  EXPECT_EQ(gate_->entries().back().action.command, "sleep 30");
  json listed = Call("app_list", json::object());
  bool found = false;
  for (const json& a : listed["structuredContent"]["apps"]) {
    found = found || (a["pid"] == pid && a["launched"].get<bool>());
  }
  EXPECT_TRUE(found) << listed.dump();
  json closed = Call("app_close", {{"app", std::to_string(pid)}, {"term_timeout_ms", 2000}});
  ASSERT_FALSE(closed["isError"].get<bool>()) << closed.dump();
  EXPECT_EQ(closed["structuredContent"]["stage"], "terminated");
  EXPECT_EQ(closed["structuredContent"]["exit_code"], 128 + SIGTERM);

  json unknown = Call("app_close", {{"app", "gedit"}});
  EXPECT_TRUE(unknown["isError"].get<bool>());
  EXPECT_NE(Text(unknown).find("form-app (pid 4343)"), std::string::npos) << Text(unknown);
  json unquoted = Call("app_launch", {{"command", "sleep '30"}});
  EXPECT_TRUE(unquoted["isError"].get<bool>());
}

TEST_F(HandsToolsTest, ExecutePlanValidatesTheWholePlanFirst) {
  json bad = Call("execute_plan", {{"plan",
                                    {{{"type", "click"}, {"args", {{"uiElementId", Id("Login")}}}},
                                     {{"type", "type_text"}, {"args", {{"text", 42}}}}}}});
  EXPECT_TRUE(bad["isError"].get<bool>());
  EXPECT_NE(Text(bad).find("plan step 2"), std::string::npos) << Text(bad);
  EXPECT_NE(Text(bad).find("nothing was run"), std::string::npos) << Text(bad);
  EXPECT_TRUE(gate_->entries().empty());
  EXPECT_TRUE(input_->events().empty());
  for (const auto& c : ax_->calls()) EXPECT_FALSE(c.starts_with("do_action")) << c;
}

TEST_F(HandsToolsTest, ExecutePlanRunsEachStepThroughTheGate) {
  const std::string login = Id("Login");
  json plan = {{{"type", "click"}, {"args", {{"uiElementId", login}}}},
               {{"type", "wait"}, {"args", {{"delayMs", 10}}}},
               {{"type", "type_text"},
                {"args", {{"target", "Email"}, {"text", "ada"}, {"requireConfirmation", true}}}},
               {{"type", "press_keys"}, {"args", {{"keys", "ctrl+a"}}}}};
  json done = Call("execute_plan", {{"plan", plan}, {"settle_ms", 20}});
  ASSERT_FALSE(done["isError"].get<bool>()) << done.dump();
  const json& s = done["structuredContent"];
  EXPECT_EQ(s["status"], "done");
  EXPECT_EQ(s["steps_done"], 4);
  ASSERT_EQ(s["steps"].size(), 4u);
  EXPECT_TRUE(s["steps"][0].contains("reobservation"));
  EXPECT_FALSE(s["steps"][1].contains("reobservation"));  // a wait is no action
  auto entries = gate_->entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].action.tool, "click");
  EXPECT_EQ(entries[0].action.target_id, login);
  EXPECT_EQ(entries[1].action.tool, "type_text");
  EXPECT_EQ(entries[1].action.target->role, Role::kTextField);  // the field, by its label
  EXPECT_TRUE(entries[1].action.require_confirmation);
  EXPECT_FALSE(entries[0].action.require_confirmation);
  for (const auto& e : entries) {
    EXPECT_TRUE(e.action.plan_step);
    EXPECT_TRUE(e.recorded);
  }
}

TEST_F(HandsToolsTest, ExecutePlanStopsAtTheFirstRefusal) {
  gate_->answer.verdict = GateVerdict::kDeny;
  gate_->answer.rule = "deny_list";
  gate_->answer.reason = "test";
  json plan = {{{"type", "press_keys"}, {"args", {{"keys", "ctrl+a"}}}},
               {{"type", "press_keys"}, {"args", {{"keys", "Delete"}}}}};
  json stopped = Call("execute_plan", {{"plan", plan}, {"settle_ms", 20}});
  EXPECT_TRUE(stopped["isError"].get<bool>());
  EXPECT_EQ(stopped["structuredContent"]["status"], "stopped");
  EXPECT_EQ(stopped["structuredContent"]["steps_done"], 0);
  EXPECT_EQ(stopped["structuredContent"]["steps"].size(), 1u);
  EXPECT_EQ(gate_->entries().size(), 1u);
  EXPECT_TRUE(input_->events().empty());
}

}  // namespace
}  // namespace uiscope::mcp

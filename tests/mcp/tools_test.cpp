// uiscope's tools through the real server, on a fake desktop: every
// structuredContent is checked against the tool's outputSchema.
#include "mcp/tools/tools.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "mcp/server.h"
#include "memory/shortcut_store.h"
#include "memory/state_db.h"
#include "support/fake_accessibility.h"
#include "support/fake_sessions.h"

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

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fake = std::make_unique<test::FakeAccessibility>(
        test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json"));
    accessibility_ = fake.get();
    workspace_ = std::make_unique<Workspace>(std::move(fake), Frame{1920, 1080, 1.0});
    // The shortcut registries in a state database of the test's own.
    dir_ = std::filesystem::temp_directory_path() /
           ("uiscope-tools-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto db = memory::OpenStateDatabase((dir_ / "uiscope.db").string());
    ASSERT_TRUE(db.ok()) << db.error().message;
    const Status registered =
        RegisterAllTools(registry_, *workspace_, sessions_, nullptr,
                         std::make_shared<memory::ShortcutStore>(std::move(db).value()));
    ASSERT_TRUE(registered.ok()) << registered.error().message;
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

  // The tools/call result (asserting it is not a protocol error).
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
        return m.value("result", json::object());
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

  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  test::FakeAccessibility* accessibility_ = nullptr;
  std::unique_ptr<Workspace> workspace_;
  test::FakeSessions sessions_;
  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Session> session_;
  Inbox inbox_;
  int id_ = 0;
};

TEST_F(ToolsTest, RegistersTheFirstTools) {
  std::vector<std::string> names;
  for (const Tool& t : registry_.tools()) names.push_back(t.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "observe",       "find",          "screenshot",   "read_text",    "click",
                "type_text",     "press_keys",    "scroll",       "drag",         "set_value",
                "wait_for",      "windows",       "app_launch",   "app_list",     "app_focus",
                "app_close",     "session_start", "session_list", "session_stop", "execute_plan",
                "clipboard_get", "clipboard_set", "shortcuts",    "discover",     "menu"}));
  EXPECT_TRUE(registry_.Find("observe")->annotations.read_only);
  EXPECT_TRUE(registry_.Find("session_stop")->annotations.destructive);
}

// The toolkit specialists on a tree without menus or key bindings: what
// there is, and clear failures naming what exists.
TEST_F(ToolsTest, SpecialistsSayWhatTheAppHas) {
  json found = Call("discover", {{"app", "login-app"}});
  ASSERT_FALSE(found["isError"].get<bool>()) << found.dump();
  EXPECT_EQ(found["structuredContent"]["roles"]["button"], 1);
  EXPECT_EQ(found["structuredContent"]["windows"][0], "window \"Sign in\"");
  EXPECT_EQ(found["structuredContent"]["shortcut_count"], 0);
  EXPECT_FALSE(found["structuredContent"]["schema_available"].get<bool>());

  json shortcuts = Call("shortcuts", {{"app", "login-app"}});
  ASSERT_FALSE(shortcuts["isError"].get<bool>()) << shortcuts.dump();
  EXPECT_EQ(shortcuts["structuredContent"]["count"], 0);

  json menu = Call("menu", {{"app", "login-app"}, {"path", "File > Save"}});
  EXPECT_TRUE(menu["isError"].get<bool>()) << menu.dump();
  EXPECT_NE(Text(menu).find("no \"File\""), std::string::npos) << Text(menu);
  EXPECT_NE(Text(menu).find("\"Login\""), std::string::npos) << Text(menu);
  EXPECT_TRUE(Call("menu", {{"app", "login-app"}, {"path", "File >"}})["isError"].get<bool>());

  json keys = Call("press_keys", {{"action", "Save"}, {"app", "login-app"}});
  EXPECT_TRUE(keys["isError"].get<bool>()) << keys.dump();
  EXPECT_NE(Text(keys).find("no shortcut for \"Save\""), std::string::npos) << Text(keys);
  EXPECT_TRUE(Call("press_keys", {{"action", "Save"}})["isError"].get<bool>()) << "app needed";
  EXPECT_TRUE(Call("press_keys", json::object())["isError"].get<bool>()) << "keys or action";
}

// shortcuts {app, teach: "CHORD=ACTION"} teaches a person's entry, which the
// app's registry then holds first; "CHORD=" forgets it.
TEST_F(ToolsTest, ShortcutsTeachAndForgetAPersonsEntry) {
  json added =
      Call("shortcuts",
           {{"app", "login-app"}, {"teach", "<Primary><Alt>l=Login"}, {"category", "account"}});
  ASSERT_FALSE(added["isError"].get<bool>()) << added.dump();
  EXPECT_EQ(added["structuredContent"]["added"]["keys"], "Ctrl+Alt+L");
  EXPECT_EQ(added["structuredContent"]["added"]["source"], "user");
  EXPECT_EQ(added["structuredContent"]["added"]["category"], "account");
  json equal = Call("shortcuts", {{"app", "login-app"}, {"teach", "ctrl+==Zoom In"}});
  ASSERT_FALSE(equal["isError"].get<bool>()) << equal.dump();
  EXPECT_EQ(equal["structuredContent"]["added"]["keys"], "Ctrl+=");
  EXPECT_EQ(equal["structuredContent"]["added"]["action"], "Zoom In");
  json registry = Call("shortcuts", {{"app", "login-app"}});
  ASSERT_FALSE(registry["isError"].get<bool>()) << registry.dump();
  ASSERT_EQ(registry["structuredContent"]["count"], 2) << registry.dump();
  // press_keys {action} finds it (the fake desktop has no keyboard to press it with).
  json press = Call("press_keys", {{"action", "login"}, {"app", "login-app"}});
  EXPECT_EQ(Text(press).find("no shortcut for"), std::string::npos) << Text(press);

  for (const char* bad : {"ctrl+nokey=X", "no equals sign"}) {
    json r = Call("shortcuts", {{"app", "login-app"}, {"teach", bad}});
    EXPECT_TRUE(r["isError"].get<bool>()) << bad;
  }
  json removed = Call("shortcuts", {{"app", "login-app"}, {"teach", "ctrl+alt+l="}});
  ASSERT_FALSE(removed["isError"].get<bool>()) << removed.dump();
  EXPECT_EQ(removed["structuredContent"]["removed"], 1);
  EXPECT_EQ(Call("shortcuts", {{"app", "login-app"}})["structuredContent"]["count"], 1);
  json again = Call("shortcuts", {{"app", "login-app"}, {"teach", "ctrl+alt+l="}});
  EXPECT_TRUE(again["isError"].get<bool>());
  EXPECT_NE(Text(again).find("no user or learned shortcut Ctrl+Alt+L"), std::string::npos)
      << Text(again);
}

// A fake desktop has no selections: the clipboard tools say so, and no
// holder process is started (the fuzzer runs on such a desktop).
TEST_F(ToolsTest, ClipboardNeedsAnXDisplay) {
  for (const auto& [tool, args] : {std::pair<std::string, json>{"clipboard_set", {{"text", "x"}}},
                                   {"clipboard_get", json::object()}}) {
    json r = Call(tool, args);
    EXPECT_TRUE(r["isError"].get<bool>()) << r.dump();
    EXPECT_NE(Text(r).find("has no X display"), std::string::npos) << r.dump();
  }
}

TEST_F(ToolsTest, ObserveInEveryFormat) {
  json compact = Call("observe", json::object());
  ASSERT_FALSE(compact["isError"].get<bool>()) << compact.dump();
  EXPECT_EQ(compact["structuredContent"]["format"], "compact");
  EXPECT_NE(Text(compact).find("[button \"Login\" id=btn_"), std::string::npos) << Text(compact);
  // The tree goes once: as text for the model, not again in structuredContent.
  EXPECT_FALSE(compact["structuredContent"].contains("tree")) << compact.dump();
  EXPECT_TRUE(compact["structuredContent"].contains("stats"));
  EXPECT_EQ(compact["structuredContent"]["page"]["nodes_total"].get<int>() > 0, true);
  EXPECT_EQ(compact["structuredContent"]["frame"]["width"], 1920);
  // The password field's value is never shown; the email's is.
  EXPECT_NE(Text(compact).find("ada@example.org"), std::string::npos);

  json j = Call("observe", {{"format", "json"}});
  ASSERT_FALSE(j["isError"].get<bool>()) << j.dump();
  EXPECT_EQ(j["structuredContent"]["nodes"][0]["role"], "application");
  EXPECT_EQ(j["structuredContent"]["nodes"][0]["children"][0]["name"], "Sign in");

  json semantic = Call("observe", {{"format", "semantic"}, {"app", "login-app"}});
  ASSERT_FALSE(semantic["isError"].get<bool>()) << semantic.dump();
  bool login = false;
  for (const json& b : semantic["structuredContent"]["buttons"])
    login = login || b["label"] == "Login";
  EXPECT_TRUE(login) << semantic.dump();
}

TEST_F(ToolsTest, IdsAreStableAcrossCalls) {
  json a = Call("observe", {{"format", "json"}});
  json b = Call("observe", {{"format", "json"}});
  EXPECT_EQ(a["structuredContent"]["nodes"], b["structuredContent"]["nodes"]);
}

TEST_F(ToolsTest, CursorPagesTheSameObservation) {
  json first = Call("observe", {{"max_nodes", 3}});
  ASSERT_FALSE(first["isError"].get<bool>()) << first.dump();
  const json page = first["structuredContent"]["page"];
  ASSERT_TRUE(page["truncated"].get<bool>());
  const size_t walks = accessibility_->requests().size();
  std::string cursor = page["next_cursor"];
  int seen = page["nodes_emitted"];
  while (!cursor.empty()) {
    json next = Call("observe", {{"max_nodes", 3}, {"cursor", cursor}});
    ASSERT_FALSE(next["isError"].get<bool>()) << next.dump();
    seen += next["structuredContent"]["page"]["nodes_emitted"].get<int>();
    cursor = next["structuredContent"]["page"]["next_cursor"];
  }
  EXPECT_EQ(seen, page["nodes_total"].get<int>());
  EXPECT_EQ(accessibility_->requests().size(), walks) << "a cursor must not walk the tree again";

  // A cursor for a scope never observed is refused with what to do.
  json stray = Call("observe", {{"app", "login-app"}, {"cursor", "n:3"}});
  EXPECT_TRUE(stray["isError"].get<bool>());
  EXPECT_NE(Text(stray).find("call observe without a cursor first"), std::string::npos);
}

TEST_F(ToolsTest, ObserveFailuresAreToolErrors) {
  // OCR and vision read pixels; the fake desktop has none.
  json vision = Call("observe", {{"sources", {"ax", "vision"}}});
  EXPECT_TRUE(vision["isError"].get<bool>());
  EXPECT_NE(Text(vision).find("\"vision\" needs the screen"), std::string::npos) << Text(vision);
  json vision_find = Call("find", {{"name", "Login"}, {"sources", {"ax", "vision"}}});
  EXPECT_TRUE(vision_find["isError"].get<bool>());
  json ocr = Call("observe", {{"sources", {"ax", "ocr"}}});
  EXPECT_TRUE(ocr["isError"].get<bool>());
  EXPECT_NE(Text(ocr).find("needs the screen"), std::string::npos) << Text(ocr);
  json no_ax = Call("observe", {{"sources", {"ocr"}}});
  EXPECT_TRUE(no_ax["isError"].get<bool>());
  EXPECT_NE(Text(no_ax).find("must include \"ax\" or \"vision\""), std::string::npos)
      << Text(no_ax);
  // Vision alone is a source of its own now, and needs the screen too.
  json vision_alone = Call("observe", {{"sources", {"vision"}}});
  EXPECT_TRUE(vision_alone["isError"].get<bool>());
  EXPECT_NE(Text(vision_alone).find("\"vision\" needs the screen"), std::string::npos)
      << Text(vision_alone);
  json unknown = Call("observe", {{"sources", {"vision", "pixels"}}});
  EXPECT_TRUE(unknown["isError"].get<bool>());
  json app = Call("observe", {{"app", "nonexistent"}});
  EXPECT_TRUE(app["isError"].get<bool>());
  EXPECT_NE(Text(app).find("not_found: no accessible application"), std::string::npos) << Text(app);
  json session = Call("observe", {{"session", "s12345"}});
  EXPECT_TRUE(session["isError"].get<bool>());
  json typo = Call("observe", {{"fromat", "json"}});
  EXPECT_TRUE(typo["isError"].get<bool>());
  EXPECT_NE(Text(typo).find("unknown property \"fromat\""), std::string::npos) << Text(typo);
}

TEST_F(ToolsTest, FindByNameAndRole) {
  json login = Call("find", {{"name", "log"}});
  ASSERT_FALSE(login["isError"].get<bool>()) << login.dump();
  // Prefixes before inner matches; the button before the application.
  ASSERT_EQ(login["structuredContent"]["total"], 3);
  EXPECT_EQ(login["structuredContent"]["matches"][0]["name"], "Login");
  EXPECT_EQ(login["structuredContent"]["matches"][1]["name"], "login-app");
  EXPECT_EQ(login["structuredContent"]["matches"][2]["name"], "Not logged in");

  json fields = Call("find", {{"role", "text_field"}});
  EXPECT_EQ(fields["structuredContent"]["total"], 2);
  json exact = Call("find", {{"name", "Email"}, {"role", "text_field"}, {"exact", true}});
  ASSERT_EQ(exact["structuredContent"]["total"], 1);
  EXPECT_EQ(exact["structuredContent"]["matches"][0]["value"], "ada@example.org");
  json limited = Call("find", {{"role", "label"}, {"limit", 1}});
  EXPECT_EQ(limited["structuredContent"]["matches"].size(), 1u);
  EXPECT_NE(Text(limited).find("more matches"), std::string::npos);

  json none = Call("find", {{"name", "Logout"}});
  EXPECT_FALSE(none["isError"].get<bool>()) << "not finding is an answer, not a failure";
  EXPECT_EQ(none["structuredContent"]["total"], 0);
  EXPECT_FALSE(none["structuredContent"]["found"].get<bool>());
  EXPECT_NE(Text(none).find("No elements matching 'Logout' found. Similar: 'Login' (button)"),
            std::string::npos)
      << Text(none);
  EXPECT_EQ(none["structuredContent"]["similar"][0]["name"], "Login");

  // Fuzzy: case, accents and a typo in a long word; short words with a typo
  // are suggestions, not matches.
  json accents = Call("find", {{"name", "ÉMAIL"}, {"role", "text_field"}});
  ASSERT_EQ(accents["structuredContent"]["total"], 1) << accents.dump();
  json typo = Call("find", {{"name", "Pasword"}});
  ASSERT_GE(typo["structuredContent"]["total"], 1) << typo.dump();
  EXPECT_EQ(typo["structuredContent"]["matches"][0]["name"], "Password");
  EXPECT_LT(typo["structuredContent"]["matches"][0]["score"].get<double>(), 1.0);
  json logn = Call("find", {{"name", "Logn"}});
  EXPECT_FALSE(logn["structuredContent"]["found"].get<bool>());
  EXPECT_NE(logn["structuredContent"]["suggestion"].get<std::string>().find("'Login'"),
            std::string::npos);
  json button = Call("find", {{"name", "Login"}, {"role", "button"}});
  ASSERT_GE(button["structuredContent"]["total"], 1);
  const json& first = button["structuredContent"]["matches"][0];
  EXPECT_EQ(first["role"], "button");
  EXPECT_EQ(first["source"], "ax");
  EXPECT_EQ(first["confidence"], 1.0);
  const json& b = first["bounds"];
  EXPECT_EQ(first["click_point"]["x"], b["x"].get<int>() + b["w"].get<int>() / 2);
  EXPECT_EQ(first["click_point"]["y"], b["y"].get<int>() + b["h"].get<int>() / 2);

  json bad_role = Call("find", {{"name", "x"}, {"role", "buton"}});
  EXPECT_TRUE(bad_role["isError"].get<bool>());
  EXPECT_NE(Text(bad_role).find("unknown role \"buton\""), std::string::npos);
  json empty = Call("find", json::object());
  EXPECT_TRUE(empty["isError"].get<bool>());
}

TEST_F(ToolsTest, SessionTools) {
  json started = Call("session_start", {{"width", 800}, {"height", 600}});
  ASSERT_FALSE(started["isError"].get<bool>()) << started.dump();
  EXPECT_EQ(started["structuredContent"]["width"], 800);
  const std::string id = started["structuredContent"]["id"];
  EXPECT_EQ(started["structuredContent"]["env"]["DISPLAY"],
            started["structuredContent"]["display_name"]);
  json list = Call("session_list", json::object());
  ASSERT_EQ(list["structuredContent"]["sessions"].size(), 1u);
  json stopped = Call("session_stop", {{"id", id}});
  EXPECT_FALSE(stopped["isError"].get<bool>());
  json again = Call("session_stop", {{"id", id}});
  EXPECT_TRUE(again["isError"].get<bool>());
  json tiny = Call("session_start", {{"width", 10}});
  EXPECT_TRUE(tiny["isError"].get<bool>());
}

}  // namespace
}  // namespace uiscope::mcp

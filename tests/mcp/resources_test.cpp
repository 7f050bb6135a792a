// Resources and prompts (mcp/resources.h, mcp/tools/context_provider.h)
// through the real server, on a fake desktop.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "mcp/server.h"
#include "mcp/tools/context_provider.h"
#include "mcp/tools/tools.h"
#include "memory/state_db.h"
#include "support/fake_accessibility.h"
#include "support/fake_sessions.h"

namespace uiscope::mcp {
namespace {

class Inbox final : public Outbound {
 public:
  bool Send(const json& message) override {
    std::lock_guard lock(mutex_);
    messages_.push_back(message);
    return true;
  }
  std::vector<json> Take() {
    std::lock_guard lock(mutex_);
    return std::move(messages_);
  }
  int CountUpdates(const std::string& uri) {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (const json& m : messages_) {
      n += m.value("method", "") == "notifications/resources/updated" && m["params"]["uri"] == uri;
    }
    return n;
  }

 private:
  std::mutex mutex_;
  std::vector<json> messages_;
};

class ResourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fake = std::make_unique<test::FakeAccessibility>(
        test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json"));
    accessibility_ = fake.get();
    // A value the backend would never report: nothing may show it.
    accessibility_->Find(Role::kTextField, "Password")->value = "hunter2-secret";
    workspace_ = std::make_unique<Workspace>(std::move(fake), Frame{1920, 1080, 1.0});
    ASSERT_TRUE(RegisterAllTools(registry_, *workspace_, sessions_).ok());
    ServerOptions options;
    options.tools_inline = true;
    server_ = std::make_unique<Server>(registry_, options);
    const ContextSources context{&registry_, workspace_.get(), audit_, memory_};
    server_->SetResources(MakeResourceProvider(context));
    server_->SetPrompts(MakePromptProvider(context));
    session_ = server_->NewSession();
    session_->SetNotifier(notifications_);
    initialize_ = Request("initialize", {{"protocolVersion", "2025-11-25"}});
  }
  void TearDown() override { session_->Close(); }

  // The whole reply (result or error).
  json Request(const std::string& method, json params) {
    Inbox inbox;
    const int id = ++id_;
    session_->Handle({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}},
                     inbox);
    for (const json& m : inbox.Take()) {
      if (m.contains("id") && m["id"] == id) return m;
    }
    ADD_FAILURE() << "no reply to " << method;
    return json::object();
  }

  // Moves the fake desktop's focus to `name`, under the desktop's lease as
  // an action would (the watch reads it on its own thread).
  void Focus(const std::string& name) {
    auto lease = workspace_->Acquire();
    ASSERT_TRUE(lease.ok());
    ForEachNodeMutable(accessibility_->apps(),
                       [&](Node& n, int) { n.states.Set(State::kFocused, n.name == name); });
  }

  static bool Eventually(const std::function<bool()>& done, int ms = 5000) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < end) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  }

  test::FakeAccessibility* accessibility_ = nullptr;
  std::unique_ptr<Workspace> workspace_;
  // Set by a test before SetUp's providers are made (AuditAndMemory).
  std::shared_ptr<memory::AuditLog> audit_;
  std::shared_ptr<memory::TargetStore> memory_;
  test::FakeSessions sessions_;
  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
  std::shared_ptr<Inbox> notifications_ = std::make_shared<Inbox>();
  std::unique_ptr<Session> session_;
  json initialize_;
  int id_ = 0;
};

TEST_F(ResourcesTest, DeclaresBothCapabilities) {
  const json& caps = initialize_["result"]["capabilities"];
  EXPECT_EQ(caps["resources"]["subscribe"], true) << caps.dump();
  EXPECT_TRUE(caps.contains("prompts")) << caps.dump();
}

TEST_F(ResourcesTest, ListsReadsAndRefuses) {
  json list = Request("resources/list", json::object());
  std::vector<std::string> uris;
  for (const json& r : list["result"]["resources"]) uris.push_back(r["uri"]);
  for (const char* uri : {"uiscope://sessions", "uiscope://session/default/tree",
                          "uiscope://session/default/screenshot"}) {
    EXPECT_NE(std::find(uris.begin(), uris.end(), uri), uris.end()) << uri << list.dump();
  }
  // No audit log, no memory: not listed.
  EXPECT_EQ(list.dump().find("/audit"), std::string::npos);
  json templates = Request("resources/templates/list", json::object());
  EXPECT_EQ(templates["result"]["resourceTemplates"].size(), 4u) << templates.dump();

  json tree = Request("resources/read", {{"uri", "uiscope://session/default/tree"}});
  const json& contents = tree["result"]["contents"];
  ASSERT_EQ(contents.size(), 1u) << tree.dump();
  EXPECT_EQ(contents[0]["mimeType"], "text/plain");
  EXPECT_NE(contents[0]["text"].get<std::string>().find("[button \"Login\""), std::string::npos);
  EXPECT_EQ(tree.dump().find("hunter2"), std::string::npos);

  json sessions = Request("resources/read", {{"uri", "uiscope://sessions"}});
  EXPECT_TRUE(json::parse(sessions["result"]["contents"][0]["text"].get<std::string>())
                  .contains("sessions"))
      << sessions.dump();

  // MCP's "resource not found" for names that are not there.
  for (const char* uri : {"uiscope://session/s999/tree", "uiscope://nothing",
                          "uiscope://session/default/memory/gedit", "file:///etc/passwd"}) {
    json missing = Request("resources/read", {{"uri", uri}});
    EXPECT_EQ(missing["error"]["code"], -32002) << uri << missing.dump();
  }
  // A fake desktop has no screen: an error that says so.
  json shot = Request("resources/read", {{"uri", "uiscope://session/default/screenshot"}});
  EXPECT_EQ(shot["error"]["code"], -32603) << shot.dump();
  EXPECT_NE(shot["error"]["message"].get<std::string>().find("screen capture"), std::string::npos)
      << shot.dump();
  EXPECT_EQ(Request("resources/list", {{"cursor", "x"}})["error"]["code"], -32602);
}

// seed 001's R1 on a subscription: a focus change notifies (the fake desktop
// has no pixels), an unchanged screen does not, unsubscribing stops it.
TEST_F(ResourcesTest, SubscriptionNotifiesOnFocusChangeOnly) {
  const std::string uri = "uiscope://session/default/tree";
  json sub = Request("resources/subscribe", {{"uri", uri}});
  ASSERT_TRUE(sub.contains("result")) << sub.dump();
  // Unchanged for three watch intervals: nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * kWatchIntervalMs));
  EXPECT_EQ(notifications_->CountUpdates(uri), 0);
  Focus("Email");
  ASSERT_TRUE(Eventually([&] { return notifications_->CountUpdates(uri) == 1; }));
  ASSERT_TRUE(Request("resources/unsubscribe", {{"uri", uri}}).contains("result"));
  Focus("Login");
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * kWatchIntervalMs));
  EXPECT_EQ(notifications_->CountUpdates(uri), 1);

  // Only trees can be watched; a session that does not exist is not found.
  EXPECT_EQ(Request("resources/subscribe", {{"uri", "uiscope://sessions"}})["error"]["code"],
            -32602);
  EXPECT_EQ(
      Request("resources/subscribe", {{"uri", "uiscope://session/s42/tree"}})["error"]["code"],
      -32002);
}

// Over HTTP the notifier is the session's GET event stream: an update that
// comes while none is open is held, once per URI, and sent when one opens;
// an update of a URI unsubscribed meanwhile, or never subscribed, is not.
TEST_F(ResourcesTest, AnUpdateWithoutAStreamIsHeldUntilOneOpens) {
  const std::string uri = "uiscope://session/default/tree";
  ASSERT_TRUE(Request("resources/subscribe", {{"uri", uri}}).contains("result"));
  const json update = MakeNotification("notifications/resources/updated", {{"uri", uri}});
  const json other =
      MakeNotification("notifications/resources/updated", {{"uri", "uiscope://session/s9/tree"}});
  session_->SetNotifier(nullptr);
  EXPECT_FALSE(session_->Notify(update));
  EXPECT_FALSE(session_->Notify(update));  // the screen changed again: still one
  EXPECT_FALSE(session_->Notify(other));   // not subscribed: dropped
  EXPECT_FALSE(session_->Notify(MakeNotification("notifications/message", {{"level", "info"}})));
  EXPECT_EQ(notifications_->CountUpdates(uri), 0);
  session_->SetNotifier(notifications_);
  EXPECT_EQ(notifications_->CountUpdates(uri), 1);
  EXPECT_EQ(notifications_->CountUpdates("uiscope://session/s9/tree"), 0);
  EXPECT_EQ(notifications_->Take().size(), 1u) << "only the held update";
  // Sent once: another stream opening later gets nothing more.
  session_->SetNotifier(nullptr);
  session_->SetNotifier(notifications_);
  EXPECT_EQ(notifications_->CountUpdates(uri), 0);

  // Unsubscribed while held: the update goes with the subscription.
  session_->SetNotifier(nullptr);
  EXPECT_FALSE(session_->Notify(update));
  ASSERT_TRUE(Request("resources/unsubscribe", {{"uri", uri}}).contains("result"));
  session_->SetNotifier(notifications_);
  EXPECT_EQ(notifications_->CountUpdates(uri), 0);
}

TEST_F(ResourcesTest, SubscriptionsAreBounded) {
  const std::string uri = "uiscope://session/default/tree";
  // The same URI again replaces the watch: still one subscription.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(Request("resources/subscribe", {{"uri", uri}}).contains("result"));
  }
  std::vector<std::string> ids;
  for (size_t i = 0; i < Server::kMaxSubscriptions; ++i) {
    auto started = sessions_.Start(DesktopOptions{});
    ASSERT_TRUE(started.ok());
    ids.push_back(started->id);
  }
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    json sub = Request("resources/subscribe", {{"uri", "uiscope://session/" + ids[i] + "/tree"}});
    ASSERT_TRUE(sub.contains("result")) << sub.dump();
  }
  json over =
      Request("resources/subscribe", {{"uri", "uiscope://session/" + ids.back() + "/tree"}});
  EXPECT_EQ(over["error"]["code"], -32600) << over.dump();
  EXPECT_TRUE(session_->RemoveSubscription(uri));
  EXPECT_FALSE(session_->RemoveSubscription(uri));
}

TEST_F(ResourcesTest, PromptsCarryTheRedactedContext) {
  json list = Request("prompts/list", json::object());
  ASSERT_EQ(list["result"]["prompts"].size(), 2u) << list.dump();
  EXPECT_EQ(list["result"]["prompts"][0]["name"], "plan_actions");
  EXPECT_EQ(list["result"]["prompts"][0]["arguments"][0]["required"], true);

  json plan = Request("prompts/get",
                      {{"name", "plan_actions"}, {"arguments", {{"goal", "log in as ada"}}}});
  ASSERT_TRUE(plan.contains("result")) << plan.dump();
  const std::string text = plan["result"]["messages"][0]["content"]["text"];
  EXPECT_EQ(plan["result"]["messages"][0]["role"], "user");
  // The context is JSON ({context_json} of seed 001's wrapper): the tree
  // is a string in it.
  for (const char* part : {"STRICT JSON", "log in as ada", "[button \\\"Login\\\"", "uiElementId",
                           "click_by_bounds", "\"metadata\"", "\"ocr\""}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
  EXPECT_EQ(text.find("hunter2"), std::string::npos);

  json describe = Request("prompts/get", {{"name", "describe_screen"}});
  ASSERT_TRUE(describe.contains("result")) << describe.dump();
  EXPECT_NE(describe.dump().find("Describe what is on this screen"), std::string::npos);

  EXPECT_EQ(Request("prompts/get", {{"name", "plan_actions"}})["error"]["code"], -32602);
  EXPECT_EQ(Request("prompts/get", {{"name", "nope"}})["error"]["code"], -32602);
  EXPECT_EQ(Request("prompts/get",
                    {{"name", "plan_actions"}, {"arguments", {{"goal", 3}}}})["error"]["code"],
            -32602);
}

// With a database: the audit of each session (entries as recorded, so
// redacted) and what memory holds of an app.
class ResourcesWithDatabaseTest : public ResourcesTest {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("uiscope-resources-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    auto db = memory::OpenStateDatabase((dir_ / "uiscope.db").string());
    ASSERT_TRUE(db.ok()) << db.error().message;
    audit_ = std::make_shared<memory::AuditLog>(*db);
    auto store = memory::OpenTargetStore((dir_ / "memory.db").string(), false);
    ASSERT_TRUE(store.ok()) << store.error().message;
    memory_ = *store;
    ResourcesTest::SetUp();
  }
  void TearDown() override {
    ResourcesTest::TearDown();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::filesystem::path dir_;
};

TEST_F(ResourcesWithDatabaseTest, AuditAndMemory) {
  safety::AuditEntry typed;
  typed.time_ms = 1000;
  typed.tool = "type_text";
  typed.arguments = {{"text", "••••"}};  // as the gate records a secret
  typed.decision = "done";
  ASSERT_TRUE(audit_->Append(typed).ok());
  safety::AuditEntry elsewhere = typed;
  elsewhere.session = "s7";
  elsewhere.tool = "click";
  ASSERT_TRUE(audit_->Append(elsewhere).ok());
  LearnedTarget target;
  target.id = "lrn_1";
  target.role = Role::kButton;
  target.label = "Print";
  ASSERT_TRUE(memory_->Save(AppSignature{"gedit", "gedit", "gtk3"}, {target}, {}, 1000).ok());
  ASSERT_TRUE(
      memory_->Save(AppSignature{"GNU Image/Editor", "gimp", "gtk3"}, {target}, {}, 1000).ok());

  json list = Request("resources/list", json::object());
  const std::string listed = list.dump();
  EXPECT_NE(listed.find("uiscope://session/default/audit"), std::string::npos) << listed;
  EXPECT_NE(listed.find("uiscope://session/default/memory/gedit"), std::string::npos) << listed;
  // A name that is not a URI segment as it is: percent-encoded.
  const std::string gimp = "uiscope://session/default/memory/GNU%20Image%2FEditor";
  EXPECT_NE(listed.find(gimp), std::string::npos) << listed;
  EXPECT_TRUE(Request("resources/read", {{"uri", gimp}}).contains("result"));

  json audit = Request("resources/read", {{"uri", "uiscope://session/default/audit"}});
  const json entries = json::parse(audit["result"]["contents"][0]["text"].get<std::string>());
  ASSERT_EQ(entries.size(), 1u) << entries.dump();  // only the default desktop's
  EXPECT_EQ(entries[0]["tool"], "type_text");
  EXPECT_EQ(entries[0]["arguments"]["text"], "••••");

  json remembered = Request("resources/read", {{"uri", "uiscope://session/default/memory/gedit"}});
  EXPECT_NE(remembered["result"]["contents"][0]["text"].get<std::string>().find("Print"),
            std::string::npos)
      << remembered.dump();
  EXPECT_EQ(Request("resources/read",
                    {{"uri", "uiscope://session/default/memory/kcalc"}})["error"]["code"],
            -32002);
}

// A server without providers declares neither and knows neither.
TEST(ResourcesAbsentTest, NotDeclaredNotServed) {
  ToolRegistry registry;
  ServerOptions options;
  options.tools_inline = true;
  Server server(registry, options);
  auto session = server.NewSession();
  Inbox inbox;
  session->Handle({{"jsonrpc", "2.0"},
                   {"id", 1},
                   {"method", "initialize"},
                   {"params", {{"protocolVersion", "2025-11-25"}}}},
                  inbox);
  session->Handle({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "resources/list"}}, inbox);
  session->Handle({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "prompts/list"}}, inbox);
  auto replies = inbox.Take();
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_FALSE(replies[0]["result"]["capabilities"].contains("resources"));
  EXPECT_FALSE(replies[0]["result"]["capabilities"].contains("prompts"));
  EXPECT_EQ(replies[1]["error"]["code"], -32601);
  EXPECT_EQ(replies[2]["error"]["code"], -32601);
}

}  // namespace
}  // namespace uiscope::mcp

// `teach` and `memory` through the real server on a fake desktop with the
// real store: a taught target shows in observe and find (source learned),
// `memory` lists it, bad arguments are tool errors; every structuredContent
// is checked against the tool's outputSchema.
#include "mcp/tools/memory_tools.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "mcp/server.h"
#include "mcp/tools/tools.h"
#include "support/fake_accessibility.h"

namespace uiscope::mcp {
namespace {

namespace fs = std::filesystem;

class Inbox final : public Outbound {
 public:
  bool Send(const json& message) override {
    messages.push_back(message);
    return true;
  }
  std::vector<json> messages;
};

class MemoryToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("uiscope-memory-tools-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    auto store = memory::OpenTargetStore((dir_ / "memory.db").string(), false);
    ASSERT_TRUE(store.ok());
    auto fake = std::make_unique<test::FakeAccessibility>(
        test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json"));
    workspace_ = std::make_unique<Workspace>(std::move(fake), Frame{1920, 1080, 1.0});
    auto learner = std::make_shared<Learner>(*store);
    learner_ = learner;
    workspace_->SetLearner(learner);
    ASSERT_TRUE(RegisterDesktopTools(registry_, *workspace_).ok());
    ASSERT_TRUE(RegisterMemoryTools(registry_, *workspace_, *store, learner).ok());
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
  void TearDown() override { fs::remove_all(dir_); }

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

  fs::path dir_;
  std::shared_ptr<Learner> learner_;
  std::unique_ptr<Workspace> workspace_;
  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Session> session_;
  Inbox inbox_;
  int id_ = 0;
};

TEST_F(MemoryToolsTest, ATaughtTargetIsObservedFoundAndListed) {
  json taught = Call("teach", {{"label", "Help icon"}, {"x", 480}, {"y", 100}, {"role", "icon"}});
  ASSERT_FALSE(taught.value("isError", false)) << taught.dump();
  const json& s = taught["structuredContent"];
  EXPECT_EQ(s["app"], "login-app");
  EXPECT_EQ(s["title_pattern"], "Sign in");
  EXPECT_FALSE(s["fingerprint"].get<bool>()) << "a fake desktop has no pixels";
  const std::string id = s["id"];

  json observed = Call("observe", json::object());
  std::string text;
  for (const json& c : observed["content"]) text += c.value("text", "");
  EXPECT_NE(text.find("[icon \"Help icon\" id=" + id + " bounds=455,85,50,30 source=learned"),
            std::string::npos)
      << text;
  json found = Call("find", {{"name", "help icon"}});
  ASSERT_FALSE(found.value("isError", false)) << found.dump();
  EXPECT_EQ(found["structuredContent"]["matches"][0]["id"], id);

  json listed = Call("memory", json::object());
  ASSERT_FALSE(listed.value("isError", false)) << listed.dump();
  ASSERT_EQ(listed["structuredContent"]["apps"].size(), 1u);
  EXPECT_EQ(listed["structuredContent"]["apps"][0]["app"], "login-app");
  EXPECT_EQ(listed["structuredContent"]["apps"][0]["taught"], 1);
  json shown = Call("memory", {{"app", "login-app"}});
  EXPECT_NE(shown["structuredContent"].dump().find("Help icon"), std::string::npos);
  EXPECT_TRUE(registry_.Find("memory")->annotations.read_only);
}

// find ranks learned hits first (seed 002 §5): the label "Email" outranks
// the field "Email" (an actable role) once clicks on it had their effect.
TEST_F(MemoryToolsTest, FindRanksLearnedHitsFirst) {
  json before = Call("find", {{"name", "Email"}, {"exact", true}});
  ASSERT_FALSE(before.value("isError", false)) << before.dump();
  ASSERT_EQ(before["structuredContent"]["matches"].size(), 2u);
  EXPECT_EQ(before["structuredContent"]["matches"][0]["role"], "text_field");

  std::vector<Node> roots;
  {
    auto lease = workspace_->Acquire();
    ASSERT_TRUE(lease.ok());
    auto obs = lease->observer->Observe(ObserveRequest{});
    ASSERT_TRUE(obs.ok());
    roots = obs->snapshot.roots;
  }
  const Node* label = nullptr;
  ForEachNode(roots, [&](const Node& n, int) {
    if (n.role == Role::kLabel && n.name == "Email") label = &n;
  });
  ASSERT_NE(label, nullptr);
  std::vector<std::string> warnings;
  {
    auto lease = workspace_->Acquire();
    for (int i = 0; i < 2; ++i) learner_->RecordAction(*label, roots, "observed", warnings);
  }
  EXPECT_TRUE(warnings.empty());
  json after = Call("find", {{"name", "Email"}, {"exact", true}});
  ASSERT_FALSE(after.value("isError", false)) << after.dump();
  EXPECT_EQ(after["structuredContent"]["matches"][0]["role"], "label") << after.dump();
  EXPECT_EQ(after["structuredContent"]["matches"][0]["id"], label->id);
}

// observe format "targets" (seed 002's list): compact lines for the model,
// the structured form valid against the outputSchema; a taught target is
// among them, learned.
TEST_F(MemoryToolsTest, ObserveTargetsListsTaughtTargetsAsLearned) {
  json taught = Call("teach", {{"label", "Help icon"}, {"x", 480}, {"y", 100}, {"role", "icon"}});
  ASSERT_FALSE(taught.value("isError", false)) << taught.dump();
  const std::string id = taught["structuredContent"]["id"];
  json observed = Call("observe", {{"format", "targets"}});
  ASSERT_FALSE(observed.value("isError", false)) << observed.dump();
  const json& s = observed["structuredContent"];
  EXPECT_EQ(s["format"], "targets");
  EXPECT_EQ(s["app"], "login-app");
  EXPECT_EQ(s["window"], "Sign in");
  bool found = false;
  for (const json& t : s["targets"]) {
    EXPECT_NE(t["role"], "label") << "only what an agent acts on";
    if (t["id"] != id) continue;
    found = true;
    EXPECT_TRUE(t["learned"].get<bool>());
    // Taught at 455,85 50x30: its window ends at x=500, so the click
    // lands in the middle of the part inside it (as an action aims).
    EXPECT_EQ(t["click"], (json{{"x", 477}, {"y", 100}}));
  }
  EXPECT_TRUE(found) << s.dump();
  const std::string text = observed["content"][0]["text"];
  EXPECT_TRUE(text.starts_with("app \"login-app\" window \"Sign in\"")) << text;
  EXPECT_NE(text.find("[icon \"Help icon\" id=" + id + " click=477,100"), std::string::npos)
      << text;
}

TEST_F(MemoryToolsTest, BadArgumentsAreToolErrors) {
  EXPECT_TRUE(Call("teach", {{"label", "x"}, {"x", 5000}, {"y", 5000}}).value("isError", false));
  EXPECT_TRUE(Call("teach", {{"label", " "}, {"x", 480}, {"y", 100}}).value("isError", false));
  EXPECT_TRUE(Call("teach", {{"label", "x"}, {"x", 480}, {"y", 100}, {"role", "wizard"}})
                  .value("isError", false));
  EXPECT_TRUE(Call("memory", {{"app", "nothing-here"}}).value("isError", false));
}

}  // namespace
}  // namespace uiscope::mcp

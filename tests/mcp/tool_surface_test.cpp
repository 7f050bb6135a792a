// The size of uiscope's tool surface (issue 21): tools/list, whole and the
// part a model reads (name, description, inputSchema), for the tools
// `uiscope mcp` registers, against budgets. Every character of tools/list
// is paid for by every agent in every conversation.
//
// Playwright MCP (@playwright/mcp 0.0.83, pinned in tests/mcp/js, run with
// Debian's chromium; bench_mcp measures both in the same run):
//   tools/list whole          20,296 characters (25 tools)
//   model-visible part        17,565 characters
// uiscope before issue 21: 143,151 whole and 38,614 model-visible (28 tools).
//
// Also: execute_goal is listed only to clients that declared sampling.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "mcp/server.h"
#include "mcp/tools/context_provider.h"
#include "mcp/tools/goal_tool.h"
#include "mcp/tools/memory_tools.h"
#include "mcp/tools/tools.h"
#include "support/fake_accessibility.h"
#include "support/fake_sessions.h"

namespace uiscope::mcp {
namespace {

namespace fs = std::filesystem;

// Budgets, in characters of compact JSON (no spaces), with sampling (every
// tool listed). Raise them only with a reason in the commit.
constexpr size_t kPlaywrightWhole = 20296;
constexpr size_t kPlaywrightModelVisible = 17565;
constexpr size_t kWholeBudget = 42500;
constexpr size_t kModelVisibleBudget = 27500;

class Inbox final : public Outbound {
 public:
  bool Send(const json& message) override {
    messages.push_back(message);
    return true;
  }
  std::vector<json> messages;
};

class ToolSurfaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("uiscope-tool-surface-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    auto store = memory::OpenTargetStore((dir_ / "memory.db").string(), false);
    ASSERT_TRUE(store.ok());
    auto fake = std::make_unique<test::FakeAccessibility>(
        test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json"));
    workspace_ = std::make_unique<Workspace>(std::move(fake), Frame{1920, 1080, 1.0});
    // As `uiscope mcp` registers them (mcp/serve.cpp).
    ASSERT_TRUE(RegisterAllTools(registry_, *workspace_, sessions_,
                                 std::make_shared<Confirmer>(nullptr))
                    .ok());
    ASSERT_TRUE(RegisterMemoryTools(registry_, *workspace_, *store, nullptr).ok());
    const ContextSources context{&registry_, workspace_.get(), nullptr, *store};
    ASSERT_TRUE(RegisterGoalTool(registry_, MakePromptProvider(context)).ok());
    server_ = std::make_unique<Server>(registry_, ServerOptions{});
  }
  void TearDown() override { fs::remove_all(dir_); }

  // tools/list's result for a client declaring `capabilities`.
  json ListTools(json capabilities) {
    auto session = server_->NewSession();
    Inbox inbox;
    session->Handle({{"jsonrpc", "2.0"},
                     {"id", 1},
                     {"method", "initialize"},
                     {"params",
                      {{"protocolVersion", "2025-11-25"},
                       {"capabilities", std::move(capabilities)},
                       {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}},
                    inbox);
    session->Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, inbox);
    session->Handle({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}}, inbox);
    session->Drain();
    for (const json& m : inbox.messages) {
      if (m.value("id", 0) == 2) return m.at("result");
    }
    ADD_FAILURE() << "no tools/list reply";
    return json::object();
  }

  static size_t ModelVisible(const json& list) {
    size_t n = 0;
    for (const json& t : list["tools"]) {
      n += json({{"name", t["name"]},
                 {"description", t["description"]},
                 {"inputSchema", t["inputSchema"]}})
               .dump()
               .size();
    }
    return n;
  }

  fs::path dir_;
  std::unique_ptr<Workspace> workspace_;
  test::FakeSessions sessions_;
  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
};

TEST_F(ToolSurfaceTest, ToolsListStaysWithinItsBudget) {
  const json list = ListTools({{"sampling", json::object()}});
  const size_t whole = list.dump().size();
  const size_t visible = ModelVisible(list);
  std::cout << "tools/list: " << list["tools"].size() << " tools, " << whole
            << " characters (Playwright MCP " << kPlaywrightWhole << "), model-visible " << visible
            << " (Playwright MCP " << kPlaywrightModelVisible << ")\n";
  EXPECT_LE(whole, kWholeBudget) << "tools/list grew past its budget";
  EXPECT_LE(visible, kModelVisibleBudget) << "the model-visible part grew past its budget";
}

TEST_F(ToolSurfaceTest, PublishedOutputSchemasStopAtTheTopLevel) {
  const json list = ListTools({{"sampling", json::object()}});
  for (const json& t : list["tools"]) {
    if (!t.contains("outputSchema")) continue;
    const json& s = t["outputSchema"];
    EXPECT_EQ(s.value("type", ""), "object") << t["name"];
    const json properties = s.value("properties", json::object());  // outlives the loop
    for (const auto& [key, property] : properties.items()) {
      for (const auto& [keyword, value] : property.items()) {
        EXPECT_TRUE(keyword == "type" || keyword == "enum" || keyword == "const")
            << t["name"] << "." << key << " keeps " << keyword;
      }
    }
  }
}

TEST_F(ToolSurfaceTest, ExecuteGoalIsListedOnlyWithSampling) {
  auto names = [](const json& list) {
    std::vector<std::string> out;
    for (const json& t : list["tools"]) out.push_back(t["name"]);
    return out;
  };
  const auto with = names(ListTools({{"sampling", json::object()}}));
  const auto without = names(ListTools(json::object()));
  EXPECT_NE(std::find(with.begin(), with.end(), "execute_goal"), with.end());
  EXPECT_EQ(std::find(without.begin(), without.end(), "execute_goal"), without.end());
  EXPECT_EQ(with.size(), without.size() + 1);
}

}  // namespace
}  // namespace uiscope::mcp

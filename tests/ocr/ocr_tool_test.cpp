// The read_text MCP tool: schemas, errors on a fake desktop, and a real read
// of an xterm whose structuredContent must satisfy the outputSchema.
#include <gtest/gtest.h>

#include <functional>

#include "mcp/json_schema.h"
#include "mcp/tools/ocr_tools.h"
#include "ocr_test_support.h"
#include "platform/x11/x11_display.h"
#include "platform/x11/x11_windows.h"
#include "support/desktop_fixture.h"
#include "support/fake_accessibility.h"

namespace uiscope::mcp {
namespace {

using std::chrono::milliseconds;

class QuietContext final : public ToolContext {
 public:
  bool cancelled() const override { return false; }
  void Progress(double, double, const std::string&) override {}
  void Log(LogLevel, const std::string& message) override { logs.push_back(message); }
  std::vector<std::string> logs;
};

ToolResult Call(const Tool& tool, const json& args) {
  QuietContext ctx;
  return tool.handler(args, ctx);
}

std::string AllText(const ToolResult& r) {
  std::string text;
  for (const Content& c : r.content) text += c.text;
  return text;
}

TEST(ReadTextToolTest, SchemasAcceptTheDocumentedArgumentsOnly) {
  Workspace workspace(std::make_unique<test::FakeAccessibility>(std::vector<Node>{}),
                      Frame{800, 600, 1.0});
  ToolRegistry registry;
  ASSERT_TRUE(RegisterOcrTools(registry, workspace).ok());
  const Tool* tool = registry.Find("read_text");
  ASSERT_NE(tool, nullptr);
  EXPECT_TRUE(tool->annotations.read_only);
  const json good = {{"region", {{"x", 0}, {"y", 0}, {"w", 10}, {"h", 10}}},
                     {"scale", 2},
                     {"lang", "eng"},
                     {"session", "s1"}};
  EXPECT_FALSE(ValidateJson(tool->input_schema, good).has_value());
  EXPECT_FALSE(ValidateJson(tool->input_schema, json{{"window", "0x1e00007"}}).has_value());
  EXPECT_FALSE(ValidateJson(tool->input_schema, json{{"window", 31457287}}).has_value());
  EXPECT_TRUE(ValidateJson(tool->input_schema, json{{"scale", 9}}).has_value());
  EXPECT_TRUE(ValidateJson(tool->input_schema, json{{"region", {{"x", 0}}}}).has_value());
  EXPECT_TRUE(ValidateJson(tool->input_schema, json{{"colour", "red"}}).has_value());
  // The installed languages are named in the schema.
  EXPECT_NE(tool->input_schema.dump().find("installed: "), std::string::npos);
}

TEST(ReadTextToolTest, FakeDesktopHasNoScreenToRead) {
  Workspace workspace(std::make_unique<test::FakeAccessibility>(std::vector<Node>{}),
                      Frame{800, 600, 1.0});
  ToolRegistry registry;
  ASSERT_TRUE(RegisterOcrTools(registry, workspace).ok());
  ToolResult r = Call(*registry.Find("read_text"), json::object());
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(AllText(r).find("unsupported: "), std::string::npos) << AllText(r);
  ToolResult bad_lang = Call(*registry.Find("read_text"), json{{"lang", "tlh"}});
  EXPECT_TRUE(bad_lang.is_error);
  EXPECT_NE(AllText(bad_lang).find("installed languages: "), std::string::npos)
      << AllText(bad_lang);
  ToolResult both =
      Call(*registry.Find("read_text"),
           json{{"window", "0x1"}, {"region", {{"x", 0}, {"y", 0}, {"w", 5}, {"h", 5}}}});
  EXPECT_TRUE(both.is_error);
  EXPECT_NE(AllText(both).find("not both"), std::string::npos) << AllText(both);
}

TEST(ReadTextToolDesktopTest, ReadsAnXtermWithStructuredContentMatchingItsSchema) {
  test::TestDesktop desktop;
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  SpawnOptions options;
  const std::string script =
      "cat '" UISCOPE_TEST_IMAGES "/terminal.txt'; printf '\\033[?25l'; sleep 100000";
  options.argv = {"xterm", "-geometry", "70x12+0+0", "-fa", "DejaVu Sans Mono", "-fs", "10",
                  "-e",    "sh",        "-c",        script};
  auto xterm = desktop.Launch(std::move(options));
  ASSERT_NE(xterm, nullptr);

  WorkspaceOptions wo;
  wo.display = desktop.info().display_name;
  wo.start_headless = false;
  Workspace workspace(wo);
  ToolRegistry registry;
  ASSERT_TRUE(RegisterOcrTools(registry, workspace).ok());
  const Tool* tool = registry.Find("read_text");
  ASSERT_NE(tool, nullptr);
  // The xterm's client area, by its X window ID (no title bar, which
  // changes when the window manager focuses the window).
  auto display = x11::X11Display::Open(desktop.info().display_name);
  ASSERT_TRUE(display.ok());
  uint64_t window = 0;
  Rect bounds;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        auto listed = x11::ListClientWindows(**display);
        if (!listed.ok()) return false;
        for (const WindowInfo& t : *listed) {
          if (t.pid == xterm->pid()) {
            window = t.id;
            bounds = t.bounds;
          }
        }
        return window != 0;
      },
      milliseconds(10000)));
  const json args = {{"window", window}};
  const std::string truth = test::ReadFile(UISCOPE_TEST_IMAGES "/terminal.txt");
  ToolResult r;
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        r = Call(*tool, args);
        if (r.is_error || !r.structured.is_object()) return false;
        std::string text;  // the lines, as the model's text content has them
        for (const auto& l : r.structured["lines"]) text += l["text"].get<std::string>() + "\n";
        return test::CharacterAccuracy(truth, text) >= 0.98;
      },
      milliseconds(15000)))
      << AllText(r);
  // The text goes once, as text content (issue 21).
  EXPECT_FALSE(r.structured.contains("text"));
  auto problem = ValidateJson(tool->output_schema, r.structured);
  EXPECT_FALSE(problem.has_value()) << *problem;
  EXPECT_EQ(r.structured["region"]["w"], bounds.w);
  EXPECT_EQ(r.structured["region"]["x"], bounds.x);
  EXPECT_EQ(r.structured["display"], desktop.info().display_name);
  ASSERT_GE(r.structured["lines"].size(), 8u);
  EXPECT_EQ(r.structured["words"].size(), [&] {
    size_t n = 0;
    for (const auto& l : r.structured["lines"]) n += l["words"].size();
    return n;
  }());
  EXPECT_NE(AllText(r).find("The quick brown fox"), std::string::npos);

  ToolResult again = Call(*tool, args);
  ASSERT_FALSE(again.is_error) << AllText(again);
  EXPECT_TRUE(again.structured["cached"].get<bool>());
  EXPECT_EQ(again.structured["regions_read"], 0);
  EXPECT_FALSE(ValidateJson(tool->output_schema, again.structured).has_value());
}

}  // namespace
}  // namespace uiscope::mcp

// The `screenshot` tool through the real server: on a fake desktop (no
// screen: a tool error) and on the GTK3 fixture (image content that decodes,
// structuredContent checked against the outputSchema by the server).
#include "mcp/tools/screenshot_tool.h"

#include <gtest/gtest.h>

#include "image/test_decode.h"
#include "mcp/json_schema.h"
#include "mcp/server.h"
#include "mcp/tools/tools.h"
#include "support/desktop_fixture.h"
#include "support/fake_accessibility.h"

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

std::string FromBase64(const std::string& in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const auto pos = kAlphabet.find(c);
    if (pos == std::string::npos) continue;
    acc = (acc << 6) | static_cast<uint32_t>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

class ScreenshotToolTest : public ::testing::Test {
 protected:
  // With `observe`: observe and find too (observe screenshot: true calls
  // the screenshot tool).
  void Serve(Workspace& workspace, bool observe = false) {
    if (observe) {
      ASSERT_TRUE(RegisterDesktopTools(registry_, workspace).ok());
    }
    ASSERT_TRUE(RegisterScreenshotTools(registry_, workspace).ok());
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

  json Call(json arguments, const std::string& tool = "screenshot") {
    inbox_.messages.clear();
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", ++id_},
                      {"method", "tools/call"},
                      {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}},
                     inbox_);
    for (const json& m : inbox_.messages) {
      if (m.contains("id") && m["id"] == id_) {
        EXPECT_TRUE(m.contains("result")) << m.dump().substr(0, 2000);
        return m.value("result", json::object());
      }
    }
    ADD_FAILURE() << "no reply";
    return json::object();
  }

  static std::string Text(const json& result) {
    std::string text;
    for (const json& c : result["content"]) text += c.value("text", "");
    return text;
  }

  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Session> session_;
  Inbox inbox_;
  int id_ = 0;
};

TEST_F(ScreenshotToolTest, DeclaredReadOnlyWithSchemas) {
  Workspace workspace(std::make_unique<test::FakeAccessibility>(std::vector<Node>{}),
                      Frame{800, 600, 1.0});
  Serve(workspace);
  const Tool* tool = registry_.Find("screenshot");
  ASSERT_NE(tool, nullptr);
  EXPECT_TRUE(tool->annotations.read_only);
  EXPECT_FALSE(tool->annotations.destructive);
  EXPECT_FALSE(CheckSchema(tool->input_schema).has_value());
  EXPECT_FALSE(CheckSchema(tool->output_schema).has_value());
}

TEST_F(ScreenshotToolTest, FakeWorkspaceHasNoScreen) {
  Workspace workspace(std::make_unique<test::FakeAccessibility>(std::vector<Node>{}),
                      Frame{800, 600, 1.0});
  Serve(workspace);
  json result = Call(json::object());
  EXPECT_TRUE(result["isError"].get<bool>());
  EXPECT_NE(Text(result).find("screen capture is not available on this desktop"), std::string::npos)
      << Text(result);
}

TEST_F(ScreenshotToolTest, BadArgumentsAreToolErrors) {
  Workspace workspace(std::make_unique<test::FakeAccessibility>(std::vector<Node>{}),
                      Frame{800, 600, 1.0});
  Serve(workspace);
  for (const json& args :
       {json{{"encoding", "gif"}}, json{{"region", {{"x", 0}, {"y", 0}, {"w", 0}, {"h", 10}}}},
        json{{"region", {{"x", 0}, {"y", 0}}}}, json{{"max_width", -5}}, json{{"window", true}},
        json{{"marks", "yes"}}}) {
    json result = Call(args);
    EXPECT_TRUE(result.value("isError", false)) << args.dump() << " -> " << result.dump();
  }
}

// observe screenshot: true on a fake desktop: the tree comes, and the
// failed capture is a warning, not the call's failure; marks alone is refused.
TEST_F(ScreenshotToolTest, ObserveScreenshotWithoutAScreenKeepsTheTree) {
  Node app;
  app.id = "app_1";
  app.role = Role::kApplication;
  app.name = "demo";
  Workspace workspace(std::make_unique<test::FakeAccessibility>(std::vector<Node>{app}),
                      Frame{800, 600, 1.0});
  Serve(workspace, /*observe=*/true);
  json result = Call({{"screenshot", true}}, "observe");
  ASSERT_FALSE(result["isError"].get<bool>()) << result.dump();
  EXPECT_NE(Text(result).find("warning: screenshot: "), std::string::npos) << Text(result);
  EXPECT_FALSE(result["structuredContent"].contains("screenshot"));
  json marks_alone = Call({{"marks", true}}, "observe");
  EXPECT_TRUE(marks_alone["isError"].get<bool>());
  EXPECT_NE(Text(marks_alone).find("pass screenshot: true"), std::string::npos);
}

// Seed 003's debug_ui mode "both": the tree and the app window's pixels,
// with marks, in one observe.
TEST_F(ScreenshotToolTest, DesktopObserveWithScreenshot) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto fixture = desktop.LaunchFixture({"--position", "50,60"});
  ASSERT_NE(fixture, nullptr);
  WorkspaceOptions options;
  options.display = desktop.info().display_name;
  options.start_headless = false;
  Workspace workspace(options);
  Serve(workspace, /*observe=*/true);
  json result;
  ASSERT_TRUE(test::WaitUntil([&] {
    result =
        Call({{"pid", fixture->pid()}, {"screenshot", true}, {"marks", true}, {"max_width", 200}},
             "observe");
    return !result.value("isError", true) &&
           Text(result).find("[button \"Login\"") != std::string::npos &&
           result["structuredContent"].contains("screenshot");
  })) << result.dump().substr(0, 3000);
  ASSERT_EQ(result["content"][0]["type"], "text");  // the tree first
  EXPECT_FALSE(result["structuredContent"].contains("tree"));
  const json& shot = result["structuredContent"]["screenshot"];
  ASSERT_EQ(result["content"][1]["type"], "image") << result.dump().substr(0, 2000);
  auto image = test::DecodePng(FromBase64(result["content"][1]["data"].get<std::string>()));
  ASSERT_TRUE(image.ok()) << image.error().ToString();
  EXPECT_EQ(image->width, shot["width"].get<int>());
  EXPECT_LE(image->width, 200);
  // The fixture's window, not the 1920-pixel screen.
  EXPECT_LT(shot["region"]["w"].get<int>(), 1920) << shot.dump();
  EXPECT_GT(shot["marks_drawn"].get<int>(), 0) << shot.dump();
}

TEST_F(ScreenshotToolTest, DesktopImageContentAndMarks) {
  test::TestDesktop& desktop = test::TestDesktop::Shared();
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto fixture = desktop.LaunchFixture({"--position", "50,60"});
  ASSERT_NE(fixture, nullptr);
  WorkspaceOptions options;
  options.display = desktop.info().display_name;
  options.start_headless = false;
  Workspace workspace(options);
  Serve(workspace);

  json args = {{"marks", true}, {"max_width", 960}, {"pid", fixture->pid()}};
  json result;
  ASSERT_TRUE(test::WaitUntil([&] {
    result = Call(args);
    if (result.value("isError", true)) return false;
    for (const json& m : result["structuredContent"]["marks"])
      if (m["role"] == "button" && m["name"] == "Login") return true;
    return false;
  })) << result.dump().substr(0, 3000);
  const json& s = result["structuredContent"];
  EXPECT_EQ(s["width"], 960);
  EXPECT_EQ(s["height"], 540);
  EXPECT_DOUBLE_EQ(s["scale"].get<double>(), 0.5);
  EXPECT_EQ(s["mime_type"], "image/png");
  EXPECT_EQ(s["frame"]["width"], 1920);
  EXPECT_EQ(s["display"], desktop.info().display_name);
  ASSERT_EQ(result["content"][0]["type"], "image");
  EXPECT_EQ(result["content"][0]["mimeType"], "image/png");
  const std::string png = FromBase64(result["content"][0]["data"].get<std::string>());
  EXPECT_EQ(png.size(), s["bytes"].get<size_t>());
  auto image = test::DecodePng(png);
  ASSERT_TRUE(image.ok()) << image.error().ToString();
  EXPECT_EQ(image->width, 960);
  EXPECT_NE(Text(result).find("button \"Login\""), std::string::npos) << Text(result);

  // A window by its element ID from the marks' tree, as WebP.
  std::string window_id;
  for (const json& m : s["marks"])
    if (m["role"] == "button" && m["name"] == "Login") window_id = m["id"];
  json region_shot = Call({{"window", window_id}, {"encoding", "webp"}});
  ASSERT_FALSE(region_shot["isError"].get<bool>()) << Text(region_shot);
  EXPECT_EQ(region_shot["content"][0]["mimeType"], "image/webp");
  auto webp = test::DecodeWebp(FromBase64(region_shot["content"][0]["data"]));
  ASSERT_TRUE(webp.ok());
  EXPECT_EQ(webp->width, region_shot["structuredContent"]["width"].get<int>());

  json outside = Call({{"region", {{"x", 5000}, {"y", 0}, {"w", 10}, {"h", 10}}}});
  EXPECT_TRUE(outside["isError"].get<bool>());
  EXPECT_NE(Text(outside).find("1920x1080"), std::string::npos) << Text(outside);
  json no_window = Call({{"window", 0x7ffffff1}});
  EXPECT_TRUE(no_window["isError"].get<bool>());
  EXPECT_NE(Text(no_window).find("not_found"), std::string::npos) << Text(no_window);
}

}  // namespace
}  // namespace uiscope::mcp

// `clipboard_get` / `clipboard_set` through the real MCP server on a real
// headless desktop (issue 15 part 10): text as text content, an image as
// image content, what the gate is shown (never the text), bad arguments.
// Every structuredContent is checked against the tool's outputSchema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "image/image.h"
#include "mcp/json_schema.h"
#include "mcp/server.h"
#include "mcp/tools/tools.h"
#include "support/desktop_fixture.h"
#include "support/fake_sessions.h"
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

std::string Base64(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(buffer >> bits) & 0x3F];
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (6 - bits)) & 0x3F];
  while (out.size() % 4 != 0) out += '=';
  return out;
}

class ClipboardToolsDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::TestDesktop& desktop = test::TestDesktop::Shared();
    ASSERT_TRUE(desktop.ok()) << desktop.error();
    WorkspaceOptions options;
    options.display = desktop.info().display_name;
    options.start_headless = false;
    workspace_ = std::make_unique<Workspace>(options);
    gate_ = std::make_shared<test::RecordingGate>();
    workspace_->SetActionGate(gate_);
    ASSERT_TRUE(RegisterAllTools(registry_, *workspace_, sessions_).ok());
    ServerOptions server_options;
    server_options.tools_inline = true;
    server_options.validate_output = true;
    server_ = std::make_unique<Server>(registry_, server_options);
    session_ = server_->NewSession();
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", 0},
                      {"method", "initialize"},
                      {"params", {{"protocolVersion", "2025-11-25"}}}},
                     inbox_);
  }

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

  std::shared_ptr<test::RecordingGate> gate_;
  std::unique_ptr<Workspace> workspace_;
  test::FakeSessions sessions_;
  ToolRegistry registry_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Session> session_;
  Inbox inbox_;
  int id_ = 0;
};

TEST_F(ClipboardToolsDesktopTest, TextRoundTripAndWhatTheGateSees) {
  json set = Call("clipboard_set", {{"text", "from MCP ✓ secret"}});
  ASSERT_FALSE(set.value("isError", false)) << set.dump();
  EXPECT_TRUE(set["structuredContent"]["performed"].get<bool>());
  EXPECT_TRUE(set["structuredContent"]["verified"].get<bool>());
  const int holder = set["structuredContent"]["holder_pid"];

  auto entries = gate_->entries();
  ASSERT_EQ(entries.size(), 1u);
  const PlannedAction& a = entries[0].action;
  EXPECT_EQ(a.tool, "clipboard_set");
  EXPECT_TRUE(a.text.empty());
  EXPECT_EQ(a.arguments, (json{{"selection", "clipboard"},
                               {"mime", "text/plain"},
                               {"bytes", std::string("from MCP ✓ secret").size()}}));
  EXPECT_TRUE(entries[0].outcome.performed);
  EXPECT_EQ(entries[0].outcome.verification.dump().find("secret"), std::string::npos);

  json got = Call("clipboard_get", json::object());
  ASSERT_FALSE(got.value("isError", false)) << got.dump();
  EXPECT_EQ(got["content"][0]["type"], "text");
  EXPECT_EQ(got["content"][0]["text"], "from MCP ✓ secret");
  EXPECT_EQ(got["structuredContent"]["owner"]["pid"], holder);
  EXPECT_EQ(gate_->entries().size(), 1u) << "reading is no action";
}

TEST_F(ClipboardToolsDesktopTest, ImageComesBackAsImageContent) {
  Image image = MakeImage(40, 30);
  for (int y = 0; y < 30; ++y) {
    for (int x = 0; x < 40; ++x) image.Pixel(x, y)[0] = static_cast<uint8_t>(x * 6);
  }
  auto png = EncodePng(image);
  ASSERT_TRUE(png.ok());
  json set = Call("clipboard_set", {{"data_base64", Base64(*png)}, {"mime", "image/png"}});
  ASSERT_FALSE(set.value("isError", false)) << set.dump();
  json got = Call("clipboard_get", {{"mime", "image/png"}});
  ASSERT_FALSE(got.value("isError", false)) << got.dump();
  EXPECT_EQ(got["content"][0]["type"], "image");
  EXPECT_EQ(got["content"][0]["mimeType"], "image/png");
  EXPECT_EQ(got["content"][0]["data"], Base64(*png));
  EXPECT_EQ(got["structuredContent"]["bytes"], png->size());

  json text = Call("clipboard_get", json::object());
  EXPECT_TRUE(text.value("isError", false)) << text.dump();
  EXPECT_NE(text.dump().find("image/png"), std::string::npos) << text.dump();
}

TEST_F(ClipboardToolsDesktopTest, BadArgumentsAreClearErrors) {
  for (const json& args :
       {json{{"text", "a"}, {"data_base64", "YQ=="}}, json::object(), json{{"data_base64", "YQ=="}},
        json{{"data_base64", "not base64!"}, {"mime", "image/png"}},
        json{{"data_base64", "YQ=="}, {"mime", "image/png"}},
        json{{"text", "x"}, {"selection", "secondary"}}}) {
    json r = Call("clipboard_set", args);
    EXPECT_TRUE(r.value("isError", false) || r.contains("error")) << args.dump() << r.dump();
  }
  EXPECT_TRUE(gate_->entries().empty()) << "refused before the gate";
  json r = Call("clipboard_get", {{"mime", "application/pdf"}});
  EXPECT_TRUE(r.value("isError", false)) << r.dump();
}

}  // namespace
}  // namespace uiscope::mcp

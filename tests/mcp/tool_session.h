// Tests only: one initialized MCP session on a Server over a tool registry,
// driven in process, the way the tool tests talk to their tools: Call sends
// tools/call and returns its result. Tools run inline (no worker thread) and
// their structuredContent is checked against the outputSchema by the server.
//
// The tool tests that still build this by hand (tools_test, hands_tools_test,
// memory_tools_test, clipboard_tools_test, screenshot_tool_test) can use it
// too. In uiscope::test, not uiscope::mcp::test, so that `test::` keeps
// naming the fakes of tests/support inside namespace uiscope::mcp.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "mcp/server.h"
#include "mcp/tool_registry.h"

namespace uiscope::test {

// Keeps every message the server sends.
class Inbox final : public mcp::Outbound {
 public:
  bool Send(const nlohmann::json& message) override {
    messages.push_back(message);
    return true;
  }
  std::vector<nlohmann::json> messages;
};

class ToolSession {
 public:
  // `registry` must outlive this.
  explicit ToolSession(const mcp::ToolRegistry& registry)
      : server_(registry, Options()), session_(server_.NewSession()) {
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", 0},
                      {"method", "initialize"},
                      {"params", {{"protocolVersion", "2025-11-25"}}}},
                     inbox_);
  }
  // Ends what is still in flight or held (an elicitation, a waiting call).
  ~ToolSession() { session_->Close(); }
  ToolSession(const ToolSession&) = delete;
  ToolSession& operator=(const ToolSession&) = delete;

  // The tools/call result (asserting it is not a protocol error).
  nlohmann::json Call(const std::string& tool, nlohmann::json arguments) {
    inbox_.messages.clear();
    session_->Handle({{"jsonrpc", "2.0"},
                      {"id", ++id_},
                      {"method", "tools/call"},
                      {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}},
                     inbox_);
    for (const nlohmann::json& m : inbox_.messages) {
      if (m.contains("id") && m["id"] == id_) {
        EXPECT_TRUE(m.contains("result")) << m.dump();
        return m.value("result", nlohmann::json::object());
      }
    }
    ADD_FAILURE() << "no reply to " << tool;
    return nlohmann::json::object();
  }

  // The text content of a result, its parts joined.
  static std::string Text(const nlohmann::json& result) {
    std::string text;
    for (const nlohmann::json& c : result["content"]) text += c.value("text", "");
    return text;
  }

 private:
  static mcp::ServerOptions Options() {
    mcp::ServerOptions options;
    options.tools_inline = true;
    options.validate_output = true;
    return options;
  }

  mcp::Server server_;
  std::unique_ptr<mcp::Session> session_;
  Inbox inbox_;
  int id_ = 0;
};

}  // namespace uiscope::test

// libFuzzer target: bytes in as HTTP/1.1 requests on one connection, through
// uiscope's own request handling — the parser of the HTTP transport's
// connection loop (mcp/http_request.h) and the endpoint behind it
// (McpHttpEndpoint: security checks, sessions, JSON-RPC, tool-call
// streams) — without sockets. Requests are parsed one after another as a
// pipelining client sends them; each complete one is handled and its reply
// (or tool-call stream) serialised. A header value "SESSION" is replaced by
// the session id the last reply carried, so the fuzzer reaches what lies
// behind initialize.
//
// The endpoint is built once (sessions persist across inputs, as on a real
// server; max_sessions is small so eviction is exercised too); its one tool
// returns at once. Built by scripts/test with clang
// (-fsanitize=fuzzer,address,undefined), run from the seeds in
// fuzz/corpus/http.
#include "mcp/http_request.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "mcp/http_endpoint.h"
#include "serialiser.h"

namespace {

using namespace uiscope;
using namespace uiscope::mcp;

ToolRegistry MakeTools() {
  ToolRegistry r;
  auto st = r.Add(Tool{"echo",
                       "Echo",
                       "returns its text",
                       {{"type", "object"},
                        {"required", {"text"}},
                        {"properties", {{"text", {{"type", "string"}, {"maxLength", 100}}}}}},
                       nullptr,
                       ToolAnnotations{},
                       [](const json& args, ToolContext& ctx) {
                         ctx.Progress(0.5, 1, "halfway");
                         ToolResult result;
                         result.content.push_back(Content::Text(args["text"].get<std::string>()));
                         return result;
                       }});
  if (!st.ok()) abort();
  return r;
}

struct World {
  World() : tools(MakeTools()), server(tools, Options()), endpoint(server, Http(), true) {}
  static ServerOptions Options() {
    ServerOptions o;
    o.tools_inline = true;
    return o;
  }
  static HttpOptions Http() {
    HttpOptions o;
    o.max_sessions = 16;
    o.max_sessions_per_client = 8;
    o.token = "";
    o.max_message_bytes = 64 * 1024;
    return o;
  }
  ToolRegistry tools;
  Server server;
  McpHttpEndpoint endpoint;
  std::string last_session;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = new World();
  HttpRequestParser::Limits limits;
  limits.max_body_bytes = 64 * 1024;
  HttpRequestParser parser(limits);
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (int requests = 0; requests < 64 && !bytes.empty(); ++requests) {
    bytes.remove_prefix(parser.Feed(bytes));
    if (parser.state() == HttpRequestParser::State::kError) {
      HttpReply refusal = McpHttpEndpoint::Refusal(parser.error_status(), parser.error_message());
      (void)refusal;
      break;
    }
    if (parser.state() != HttpRequestParser::State::kDone) break;  // needs more bytes
    HttpRequest request = parser.TakeRequest();
    parser.Reset();
    for (auto& [name, value] : request.headers) {
      if (value == "SESSION") value = world->last_session;
    }
    HttpReply reply = world->endpoint.Handle(request, HttpPeer{"127.0.0.1:1"});
    for (const auto& [name, value] : reply.headers) {
      if (name == "Mcp-Session-Id") world->last_session = value;
    }
    if (reply.stream) {
      Serialiser out;
      reply.stream(out);
    }
    if (reply.events) {
      reply.events->End();
      reply.events->Closed();  // the client hangs up at once
    }
  }
  return 0;
}

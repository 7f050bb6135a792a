// `uiscope mcp`: the MCP server with every uiscope tool, on stdio or
// Streamable HTTP, until end of input, a `shutdown` request, or SIGINT /
// SIGTERM / SIGHUP. A headless desktop the server started for itself is
// stopped on the way out.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "mcp/server.h"
#include "mcp/stdio_transport.h"

namespace uiscope::mcp {

struct ServeOptions {
  std::string version;      // the server's version in serverInfo
  std::string display;      // --display; "" = $DISPLAY, else a headless desktop on first need
  std::string session;      // --session: the default desktop is this session ("" = as above)
  std::string config_path;  // --config: the safety policy ("" = the default place)
  bool http = false;
  // Over HTTP the web page (web/web_site.h) is served beside /mcp, under a
  // token of its own (`page_token`, else a new random one), never the MCP
  // token: an agent holding that one must not open the page, where held
  // actions are approved. Its URL, token included, goes to stderr (the
  // person's terminal).
  // `uiscope web`: the page alone (no /mcp), its URL on stdout.
  bool web = false;
  std::string page_token;
  std::string http_host = "127.0.0.1";
  int http_port = 0;
  std::string token;  // "" = none
  std::vector<std::string> allowed_origins;
  size_t max_message_bytes = kDefaultMaxMessageBytes;
  // HTTP limits (--max-connections, --max-sessions, --max-sessions-per-client);
  // 0 = the HttpOptions default.
  int max_connections = 0;
  int max_sessions = 0;
  int max_sessions_per_client = 0;
  // --full-schemas: tools/list publishes everything (ToolListing's
  // defaults): every argument in every inputSchema, the shared ones too,
  // each tool's outputSchema, and annotations at their default values; for
  // clients that only pass what a schema lists or validate structured
  // results.
  bool full_schemas = false;
};

// Parses "HOST:PORT", "[V6]:PORT" or ":PORT" (host 127.0.0.1). InvalidArgument
// otherwise.
Status ParseListenAddress(const std::string& text, std::string* host, int* port);

// Serves until done. Returns the process exit code (0, or 1 with the reason
// on stderr).
int Serve(const ServeOptions& options);

// The protocol server's options for `options`: version, the instructions
// (what the tools are for, and the arguments they share, described once),
// the shared arguments left out of tools/list unless full_schemas, and
// HTTP's threading.
ServerOptions ServerOptionsFor(const ServeOptions& options);

}  // namespace uiscope::mcp

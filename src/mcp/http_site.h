// HttpSite: what the Streamable HTTP transport serves beside `/mcp` (the
// web page of DESIGN §9, src/web/). The endpoint hands it every request
// whose path is not `/mcp`, before any MCP check: the site applies its own
// security rules (it may use IsAllowedOrigin, IsLoopbackHost and
// TokenMatches of mcp/http_endpoint.h so they stay the same as /mcp's).
//
// Who implements it: web::WebSite. Tests may implement it.
//
// Thread safety: Handle is called from several request threads at once.
// A reply's `stream` runs on a call thread and may block until its client
// goes.
#pragma once

#include "mcp/http_endpoint.h"

namespace uiscope::mcp {

class HttpSite {
 public:
  virtual ~HttpSite() = default;
  // Never throws.
  virtual HttpReply Handle(const HttpRequest& request) = 0;
};

}  // namespace uiscope::mcp

// The JSON API behind the web page (web_site.h lists the routes): each
// handler takes the request's query or body and answers an HttpReply.
// Security is the site's (web_site.cpp), done before any handler runs.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "mcp/http_endpoint.h"
#include "web/web_site.h"
#include "web/web_tiles.h"

namespace uiscope::web {

using Query = std::map<std::string, std::string>;

// "a=1&b=x%20y" -> {a: "1", b: "x y"} (the last of a repeated name wins).
Query ParseQuery(std::string_view query);

// A JSON reply; an error is {"error": message} with the status its code
// calls for (400 InvalidArgument, 404 NotFound, 409 Stale, 503 Unavailable).
mcp::HttpReply JsonOk(const nlohmann::json& body);
mcp::HttpReply JsonError(const Error& error);

// Each GET handler takes the query (used or not) and each POST handler the
// body, so that the site routes them from one table.
class WebApi {
 public:
  WebApi(WebOptions options, WebServices services)
      : options_(std::move(options)), services_(std::move(services)) {}

  mcp::HttpReply Sessions(const Query& q);
  mcp::HttpReply Tiles(const Query& q);  // the event stream
  mcp::HttpReply TileImage(const Query& q);
  mcp::HttpReply Screenshot(const Query& q);
  mcp::HttpReply Tree(const Query& q);
  mcp::HttpReply Confirmations(const Query& q);
  mcp::HttpReply Crop(const Query& q);
  mcp::HttpReply Decide(const nlohmann::json& body);
  mcp::HttpReply Audit(const Query& q);
  mcp::HttpReply Memory(const Query& q);
  mcp::HttpReply Forget(const nlohmann::json& body);

 private:
  // The display of session `id`: NotFound when unknown, Unavailable when
  // not alive.
  Result<std::string> DisplayOf(const std::string& id);
  // The screen areas of deny-listed apps' windows on session `id`'s desktop
  // ("" = the default one), engine/privacy.h. Unavailable when they cannot
  // be known (then nothing is shown: failing open would show them).
  Result<std::vector<Rect>> HiddenAreas(const std::string& id);
  // A capture of session `id`'s screen ("" = the default desktop), opened
  // from its Desktop through the workspace (any backend: X11, VNC).
  Result<std::unique_ptr<ScreenCapture>> OpenCapture(const std::string& id,
                                                     const CaptureOptions& options);

  WebOptions options_;
  WebServices services_;
  TileCache tiles_;
  std::atomic<int> tile_streams_{0};
};

}  // namespace uiscope::web

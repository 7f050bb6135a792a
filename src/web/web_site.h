// The web page of DESIGN §9 (issue 22), served by the Streamable HTTP
// transport beside /mcp: a wall of live session tiles, a session view
// (screenshot, element boxes, tree), the pending confirmations (approve /
// deny / approve with a grant, from the keyboard), the audit log with
// filters, and what memory holds per app (forget).
//
// Routes (all GET unless said):
//   /                         the page (/app.js, /app.css: its script and style)
//   /api/sessions             the sessions (SessionControl::List), each with the
//                             apps on its accessibility bus
//   /api/tiles                event stream: {"type":"tile","session","version"} when a
//                             session's pixels changed (frame hash), at most every
//                             tile_interval; the image is /api/tile?session=S&v=N
//   /api/tile?session=S       the last tile image of S (JPEG)
//   /api/screenshot?session=S the whole screen of S now (PNG)
//   /api/tree?session=S       the accessibility tree of S: {frame, nodes}
//   /api/confirmations        pending confirmations and live grants
//   /api/crop?confirmation=T  where a held action acts: a crop of its screen with
//                             the target (or each candidate) boxed (PNG)
//   POST /api/decide          {token, decision: "approve"|"deny", grant?: "30m"}
//   /api/audit?since&tool&decision&app&session&limit   audit entries, newest last
//   /api/memory               the apps memory holds; ?app=NAME: what it holds of one
//   POST /api/forget          {app}
//
// Security: the rules of /mcp (mcp/http_endpoint.h), made to fit a browser,
// which cannot send an Authorization header when a person opens a URL, and
// a token of the page's own:
//   - the page's token is not the MCP token (mcp/serve.h): an agent holds
//     that one, and with it could approve its own held actions here, which
//     confirmations.agent_may_confirm false forbids;
//   - the token comes in the URL the server prints, in its fragment
//     (`/#token=T`), which the browser sends to no server. The page's
//     script takes it from there, clears the address bar, keeps it in
//     memory only and sends it as `Authorization: Bearer T` with every API
//     request (images and the tile stream included). No cookie: cookies are
//     not scoped by port, so one would reach every other server on
//     127.0.0.1. The page itself (/, /app.js, /app.css) holds nothing of
//     the desktop and needs no token; every /api request does (401). A
//     `/?token=T` URL is redirected to `/#token=T`; `?token=` anywhere else
//     is refused, so it never lands in logs of API calls;
//   - a request with an Origin must come from this server's own origin
//     (http://HOST:PORT as the Host header says) or an --allow-origin one,
//     as /mcp's (403);
//   - when bound to loopback, the Host must be a loopback name (DNS
//     rebinding; 403);
//   - a POST must carry `X-Uiscope: web` and a JSON body: a cross-origin
//     page cannot send that header without a CORS preflight, which is
//     never granted (CSRF);
//   - replies forbid framing and sniffing and keep scripts to the page's own
//     (Content-Security-Policy), and are not cached.
//
// Thread safety: Handle may be called from any number of threads at once.
// Ownership: the site keeps the shared stores; `sessions` and `workspace`
// (may be null) must outlive it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/workspace.h"
#include "mcp/http_site.h"
#include "memory/audit_log.h"
#include "memory/target_store.h"
#include "safety/confirmations.h"
#include "session/sessions.h"

namespace uiscope::web {

struct WebOptions {
  std::string token;  // the page's own token; "" = no authentication (tests only)
  std::vector<std::string> allowed_origins;
  bool loopback = true;  // bound to loopback: the Host must name it
  // Tiles: how often the pixels are checked (a few frames a second at
  // most) and how wide a tile image is. Each open wall holds one of the
  // transport's call threads (HttpOptions::threads, shared with tool
  // calls), so at most `max_tile_streams` are served at once (503 beyond).
  std::chrono::milliseconds tile_interval{250};
  int tile_width = 480;
  int max_tile_streams = 4;
};

// What the page shows and changes. Null members make their part of the
// page say it is unavailable.
struct WebServices {
  std::shared_ptr<safety::ConfirmationStore> confirmations;
  std::shared_ptr<memory::AuditLog> audit;  // also records decisions
  std::shared_ptr<memory::TargetStore> memory;
  SessionControl* sessions = nullptr;
  Workspace* workspace = nullptr;  // trees (session view, a held target's box)
  // The policy hides apps (deny_apps): their windows are blacked out, which
  // needs the desktop's lease. False skips that (no lease on the tile path).
  bool hides_apps = true;
};

class WebSite final : public mcp::HttpSite {
 public:
  WebSite(WebOptions options, WebServices services);
  ~WebSite() override;

  mcp::HttpReply Handle(const mcp::HttpRequest& request) override;

  // The URL a person opens: "http://127.0.0.1:PORT/#token=T".
  static std::string PageUrl(const std::string& host, int port, const std::string& token);
  // Whether `token` can travel in a URL (and a header) as it is: letters,
  // digits and - . _ ~ only. The page's URL is refused otherwise.
  static bool IsPageSafeToken(std::string_view token);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace uiscope::web

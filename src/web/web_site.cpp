#include "web/web_site.h"

#include "core/ascii.h"
#include "mcp/http_endpoint.h"
#include "mcp/json_rpc.h"
#include "web/web_api.h"
#include "web/web_assets.h"

namespace uiscope::web {
namespace {

using mcp::HttpReply;
using mcp::HttpRequest;
using nlohmann::json;

HttpReply Refuse(int status, const std::string& message) {
  HttpReply r = JsonError(MakeError(ErrorCode::kDenied, message));
  r.status = status;
  return r;
}

// What every reply of the site carries: no framing, no sniffing, only the
// page's own scripts and styles, nothing cached, no referrer.
void AddSecurityHeaders(HttpReply& r) {
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("X-Frame-Options", "DENY");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'none'; script-src 'self'; style-src 'self'; "
                         "img-src 'self' blob:; connect-src 'self'; base-uri 'none'; "
                         "form-action 'none'; frame-ancestors 'none'");
  bool cache = false;
  for (const auto& [name, value] : r.headers) cache |= AsciiLower(name) == "cache-control";
  if (!cache) r.headers.emplace_back("Cache-Control", "no-store");
}

}  // namespace

class WebSite::Impl {
 public:
  Impl(WebOptions options, WebServices services)
      : options_(options), api_(std::move(options), std::move(services)) {}

  HttpReply Handle(const HttpRequest& req) {
    HttpReply reply;
    if (!IsRoute(req.path)) {
      // What is not the page's is 404 before any credential is asked for:
      // the routes are no secret, and a client that took the wrong path
      // (POST /not-mcp) gets the answer /mcp's neighbours always gave.
      reply = JsonError(MakeError(ErrorCode::kNotFound, "not found: " + req.path +
                                                            " (the MCP endpoint is /mcp, the "
                                                            "web page /)"));
    } else if (auto refusal = Screen(req)) {
      reply = std::move(*refusal);
    } else {
      reply = Route(req);
    }
    AddSecurityHeaders(reply);
    return reply;
  }

 private:
  // Host, Origin, fetch metadata and credentials; a refusal, or none (the
  // page's token redirect is one "refusal" that is a success).
  std::optional<HttpReply> Screen(const HttpRequest& req) {
    const std::string host(req.Header("Host"));
    if (options_.loopback && !mcp::IsLoopbackHost(host)) {
      return Refuse(403, "forbidden: Host " + host +
                             " is not a loopback name; this server answers only to localhost "
                             "(DNS rebinding protection)");
    }
    if (req.HasHeader("Origin") &&
        !mcp::IsAllowedOrigin(req.Header("Origin"), host, options_.allowed_origins)) {
      return Refuse(403, "forbidden: Origin " + std::string(req.Header("Origin")) +
                             " is not this page's origin");
    }
    // Browsers say where a request comes from; a page of another site (or
    // of another local port, same-site for cookies) gets nothing here.
    const std::string site = AsciiLower(req.Header("Sec-Fetch-Site"));
    if (site == "cross-site" || (site == "same-site" && req.path != "/")) {
      return Refuse(403, "forbidden: a request from another site (Sec-Fetch-Site: " + site + ")");
    }
    if (req.method != "GET" && req.method != "POST") {
      // OPTIONS included: no cross-origin request is ever granted.
      HttpReply r = Refuse(405, "method not allowed: the page uses GET and POST");
      r.headers.emplace_back("Allow", "GET, POST");
      return r;
    }
    const size_t q = req.target.find('?');
    const Query query = q == std::string::npos ? Query{} : ParseQuery(req.target.substr(q + 1));
    const auto given = query.find("token");
    if (options_.token.empty()) {
      if (given != query.end()) return Redirect("");
      return std::nullopt;
    }
    if (given != query.end()) {
      // The page's URL as an earlier uiscope printed it: the token moves to
      // the fragment, which the page's script reads (and no server is ever
      // sent).
      if (req.path != "/" || req.method != "GET") {
        return Refuse(400,
                      "the token goes only in the page's URL (/#token=...); the page's script "
                      "then sends it with each request");
      }
      if (!mcp::TokenMatches(given->second, options_.token)) return Unauthorized(req);
      if (!WebSite::IsPageSafeToken(options_.token)) {
        return Refuse(400,
                      "this server's token has characters a URL cannot carry as they are; start "
                      "it with a token of letters, digits and - . _ ~ (or none: `uiscope web` "
                      "makes one)");
      }
      return Redirect(options_.token);
    }
    // The page itself (its HTML, script and style) holds nothing of the
    // desktop: it is served to anyone who passed the checks above, and its
    // script brings the token to the API.
    if (req.method == "GET" && FindWebAsset(req.path) != nullptr) return std::nullopt;
    const std::string auth(req.Header("Authorization"));
    if (auth.size() > 7 && AsciiLower(auth.substr(0, 7)) == "bearer " &&
        mcp::TokenMatches(std::string_view(auth).substr(7), options_.token)) {
      return std::nullopt;
    }
    return Unauthorized(req);
  }

  // 303 to the page, the token (if any) in the fragment of its URL.
  static HttpReply Redirect(const std::string& token) {
    HttpReply r;
    r.status = 303;
    r.headers.emplace_back("Location", token.empty() ? "/" : "/#token=" + token);
    return r;
  }

  HttpReply Unauthorized(const HttpRequest& req) {
    HttpReply r;
    r.status = 401;
    r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"uiscope\"");
    if (req.path.rfind("/api/", 0) == 0) {
      r.content_type = "application/json";
      r.body =
          mcp::DumpMessage(json{{"error",
                                 "unauthorized: open the URL `uiscope web` printed (it carries the "
                                 "token), or send `Authorization: Bearer TOKEN`"}});
    } else {
      r.content_type = "text/html; charset=utf-8";
      r.body =
          "<!doctype html><html lang=en><meta charset=utf-8><title>uiscope: token needed</title>"
          "<h1>uiscope: this page needs the server's token</h1><p>Open the URL that "
          "<code>uiscope web</code> (or <code>uiscope mcp --http</code>) printed: it ends in "
          "<code>/#token=&hellip;</code>.</p></html>";
    }
    return r;
  }

  HttpReply Route(const HttpRequest& req) {
    const size_t q = req.target.find('?');
    const Query query = q == std::string::npos ? Query{} : ParseQuery(req.target.substr(q + 1));
    if (req.method == "POST") {
      if (req.Header("X-Uiscope") != "web") {
        return Refuse(403, "forbidden: the page's requests carry `X-Uiscope: web`");
      }
      if (AsciiLower(req.Header("Content-Type")).rfind("application/json", 0) != 0) {
        return Refuse(415, "the body must be application/json");
      }
      json body;
      try {
        body = json::parse(req.body);
      } catch (const std::exception&) {
        return JsonError(MakeError(ErrorCode::kInvalidArgument, "the body is not valid JSON"));
      }
      for (const PostRoute& r : kPostRoutes) {
        if (r.path == req.path) return (api_.*r.handler)(body);
      }
      return JsonError(MakeError(ErrorCode::kNotFound, "no POST " + req.path));
    }
    if (const WebAsset* asset = FindWebAsset(req.path)) {
      HttpReply r;
      r.content_type = std::string(asset->content_type);
      r.body = std::string(asset->body);
      return r;
    }
    for (const GetRoute& r : kGetRoutes) {
      if (r.path == req.path) return (api_.*r.handler)(query);
    }
    return JsonError(MakeError(ErrorCode::kNotFound, "no GET " + req.path));
  }

  // The API, in one place (web_site.h lists what each does).
  struct GetRoute {
    std::string_view path;
    HttpReply (WebApi::*handler)(const Query&);
  };
  struct PostRoute {
    std::string_view path;
    HttpReply (WebApi::*handler)(const json&);
  };
  static constexpr GetRoute kGetRoutes[] = {
      {"/api/sessions", &WebApi::Sessions}, {"/api/tiles", &WebApi::Tiles},
      {"/api/tile", &WebApi::TileImage},    {"/api/screenshot", &WebApi::Screenshot},
      {"/api/tree", &WebApi::Tree},         {"/api/confirmations", &WebApi::Confirmations},
      {"/api/crop", &WebApi::Crop},         {"/api/audit", &WebApi::Audit},
      {"/api/memory", &WebApi::Memory},
  };
  static constexpr PostRoute kPostRoutes[] = {
      {"/api/decide", &WebApi::Decide},
      {"/api/forget", &WebApi::Forget},
  };

  static bool IsRoute(std::string_view path) {
    if (FindWebAsset(path) != nullptr) return true;
    for (const GetRoute& r : kGetRoutes) {
      if (r.path == path) return true;
    }
    for (const PostRoute& r : kPostRoutes) {
      if (r.path == path) return true;
    }
    return false;
  }

  WebOptions options_;
  WebApi api_;
};

WebSite::WebSite(WebOptions options, WebServices services)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(services))) {}
WebSite::~WebSite() = default;

HttpReply WebSite::Handle(const HttpRequest& request) {
  try {
    return impl_->Handle(request);
  } catch (const std::exception& e) {
    (void)e;
    return JsonError(
        MakeError(ErrorCode::kInternal, "internal error: the request could not be handled"));
  }
}

std::string WebSite::PageUrl(const std::string& host, int port, const std::string& token) {
  const bool v6 = host.find(':') != std::string::npos;
  std::string url = "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/";
  if (!token.empty()) url += "#token=" + token;
  return url;
}

}  // namespace uiscope::web

namespace uiscope::web {

bool WebSite::IsPageSafeToken(std::string_view token) {
  if (token.empty()) return false;
  for (char c : token) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (!safe) return false;
  }
  return true;
}

}  // namespace uiscope::web

// The web page's server side (web/web_site.h): who gets in (the page's
// token as a bearer header, never a cookie; Host, Origin, fetch metadata,
// the POST header), and the API handlers on real stores:
// confirmations decided from the page, the audit filter, memory forget.
#include "web/web_site.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/clock.h"
#include "mcp/http_endpoint.h"
#include "mcp/http_site.h"
#include "mcp/server.h"
#include "mcp/tool_registry.h"
#include "memory/state_db.h"
#include "safety/policy_gate.h"
#include "support/fake_sessions.h"
#include "web/web_api.h"
#include "web/web_assets.h"

namespace uiscope::web {
namespace {

namespace fs = std::filesystem;
using mcp::HttpReply;
using mcp::HttpRequest;
using nlohmann::json;

constexpr char kToken[] = "0123456789abcdef0123456789abcdef";
constexpr char kHost[] = "127.0.0.1:8765";
constexpr char kBearer[] = "Bearer 0123456789abcdef0123456789abcdef";

HttpRequest Get(const std::string& target, mcp::HttpHeaders headers = {}) {
  HttpRequest r;
  r.method = "GET";
  r.target = target;
  r.path = target.substr(0, target.find('?'));
  r.headers = {{"Host", kHost}};
  for (auto& h : headers) r.headers.push_back(h);
  return r;
}

HttpRequest Authed(const std::string& target) { return Get(target, {{"Authorization", kBearer}}); }

HttpRequest Post(const std::string& path, const json& body, bool marked = true) {
  HttpRequest r = Get(path, {{"Authorization", kBearer},
                             {"Content-Type", "application/json"},
                             {"Origin", std::string("http://") + kHost}});
  r.method = "POST";
  if (marked) r.headers.emplace_back("X-Uiscope", "web");
  r.body = body.dump();
  return r;
}

std::string HeaderOf(const HttpReply& r, const std::string& name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) return v;
  }
  return "";
}

json Body(const HttpReply& r) { return json::parse(r.body); }

class WebSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("uiscope-web-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto db = memory::OpenStateDatabase((dir_ / "state.db").string());
    ASSERT_TRUE(db.ok()) << db.error().message;
    services_.audit = std::make_shared<memory::AuditLog>(*db);
    services_.confirmations = std::make_shared<safety::MemoryConfirmationStore>();
    auto store = memory::OpenTargetStore((dir_ / "memory.db").string(), false);
    ASSERT_TRUE(store.ok()) << store.error().message;
    services_.memory = *store;
    services_.sessions = &sessions_;
    options_.token = kToken;
  }
  void TearDown() override { fs::remove_all(dir_); }

  WebSite& Site() {
    if (!site_) site_ = std::make_unique<WebSite>(options_, services_);
    return *site_;
  }

  safety::Confirmation Held(const std::string& token, const std::string& rule = "R4") {
    safety::Confirmation c;
    c.token = token;
    c.created_ms = UnixNowMs();
    c.expires_ms = c.created_ms + 60000;
    c.tool = "click";
    c.target = "button \"Open\"";
    c.app = "fixture";
    c.display = ":99";
    c.rule = rule;
    c.reason = "2 elements match";
    EXPECT_TRUE(services_.confirmations->Create(c).ok());
    return c;
  }

  fs::path dir_;
  test::FakeSessions sessions_;
  WebServices services_;
  WebOptions options_;
  std::unique_ptr<WebSite> site_;
};

TEST_F(WebSiteTest, RefusesEveryApiPathWithoutTheToken) {
  for (const char* path : {"/api/confirmations", "/api/audit", "/api/tiles", "/api/sessions"}) {
    HttpReply r = Site().Handle(Get(path));
    EXPECT_EQ(r.status, 401) << path;
  }
  EXPECT_EQ(Site().Handle(Get("/api/audit", {{"Authorization", "Bearer wrong"}})).status, 401);
  // A cookie is no credential, not even one holding the token: cookies are
  // not scoped by port, so every local server would receive it.
  for (const char* name : {"uiscope_8765=", "uiscope_9999=", "token="}) {
    EXPECT_EQ(
        Site().Handle(Get("/api/confirmations", {{"Cookie", std::string(name) + kToken}})).status,
        401)
        << name;
  }
  EXPECT_EQ(Site().Handle(Get("/?token=wrong")).status, 401);
  // What is no route of the page is 404, token or not.
  EXPECT_EQ(Site().Handle(Get("/not-mcp")).status, 404);
  EXPECT_EQ(Site().Handle(Authed("/api/nope")).status, 404);
}

TEST_F(WebSiteTest, ThePageNeedsNoTokenAndSetsNoCookie) {
  // The page (HTML, script, style) holds nothing of the desktop; its script
  // brings the token to the API.
  for (const char* path : {"/", "/app.js", "/app.css"}) {
    HttpReply r = Site().Handle(Get(path));
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(HeaderOf(r, "Set-Cookie"), "") << path;
  }
  HttpReply page = Site().Handle(Get("/"));
  EXPECT_EQ(page.content_type.rfind("text/html", 0), 0u);
  EXPECT_NE(page.body.find("/app.js"), std::string::npos);
  EXPECT_NE(HeaderOf(page, "Content-Security-Policy").find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(HeaderOf(page, "X-Frame-Options"), "DENY");
  // The page's URL carries the token in its fragment, which no browser
  // sends to a server; an old-style URL is moved there, without a cookie.
  EXPECT_EQ(WebSite::PageUrl("127.0.0.1", 8765, kToken),
            std::string("http://127.0.0.1:8765/#token=") + kToken);
  HttpReply r = Site().Handle(Get(std::string("/?token=") + kToken));
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(HeaderOf(r, "Location"), std::string("/#token=") + kToken);
  EXPECT_EQ(HeaderOf(r, "Set-Cookie"), "");
  // The script sends it as a bearer token.
  EXPECT_EQ(Site().Handle(Authed("/api/confirmations")).status, 200);
  // Anywhere but the page URL, a token in the query is refused (it would
  // end up in history and logs).
  EXPECT_EQ(Site().Handle(Get(std::string("/api/audit?token=") + kToken)).status, 400);
}

TEST_F(WebSiteTest, RefusesForeignOriginsHostsAndCrossSiteRequests) {
  auto with = [&](mcp::HttpHeaders h) {
    h.emplace_back("Authorization", kBearer);
    return Site().Handle(Get("/api/confirmations", h)).status;
  };
  EXPECT_EQ(with({{"Origin", "http://127.0.0.1:8765"}}), 200);
  EXPECT_EQ(with({{"Origin", "https://evil.example"}}), 403);
  // Another local port is another origin (and same-site for cookies).
  EXPECT_EQ(with({{"Origin", "http://127.0.0.1:3000"}}), 403);
  EXPECT_EQ(with({{"Origin", "http://localhost:8765"}}), 403);
  EXPECT_EQ(with({{"Sec-Fetch-Site", "cross-site"}}), 403);
  EXPECT_EQ(with({{"Sec-Fetch-Site", "same-site"}}), 403);
  EXPECT_EQ(with({{"Sec-Fetch-Site", "same-origin"}}), 200);
  HttpRequest rebinding = Authed("/api/confirmations");
  rebinding.headers[0].second = "attacker.example:8765";
  EXPECT_EQ(Site().Handle(rebinding).status, 403);
  HttpRequest preflight = Authed("/api/decide");
  preflight.method = "OPTIONS";
  HttpReply p = Site().Handle(preflight);
  EXPECT_EQ(p.status, 405);
  EXPECT_EQ(HeaderOf(p, "Access-Control-Allow-Origin"), "");
  // An --allow-origin origin is let in.
  options_.allowed_origins = {"https://console.example"};
  site_.reset();
  EXPECT_EQ(with({{"Origin", "https://console.example"}}), 200);
}

TEST_F(WebSiteTest, PostsNeedTheirHeaderAndJson) {
  Held("tok1");
  EXPECT_EQ(Site()
                .Handle(Post("/api/decide", {{"token", "tok1"}, {"decision", "approve"}}, false))
                .status,
            403);
  HttpRequest form = Post("/api/decide", {{"token", "tok1"}, {"decision", "approve"}});
  for (auto& [n, v] : form.headers) {
    if (n == "Content-Type") v = "application/x-www-form-urlencoded";
  }
  EXPECT_EQ(Site().Handle(form).status, 415);
  HttpRequest bad = Post("/api/decide", {});
  bad.body = "{not json";
  EXPECT_EQ(Site().Handle(bad).status, 400);
  auto c = services_.confirmations->Get("tok1", UnixNowMs());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->status, safety::ConfirmationStatus::kPending);
}

TEST_F(WebSiteTest, ListsPendingConfirmationsAndDecidesThem) {
  Held("tok1");
  Held("tok2", "rate");
  HttpReply list = Site().Handle(Authed("/api/confirmations"));
  ASSERT_EQ(list.status, 200) << list.body;
  json items = Body(list)["confirmations"];
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["token"], "tok1");
  EXPECT_EQ(items[0]["rule"], "R4");
  EXPECT_EQ(items[0]["grantable"], false);
  EXPECT_EQ(items[1]["grantable"], true);

  HttpReply approved =
      Site().Handle(Post("/api/decide", {{"token", "tok1"}, {"decision", "approve"}}));
  ASSERT_EQ(approved.status, 200) << approved.body;
  auto c = services_.confirmations->Get("tok1", UnixNowMs());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->status, safety::ConfirmationStatus::kApproved);
  EXPECT_EQ(c->decided_by, "a person, on the web page");
  // The first decision wins.
  EXPECT_EQ(Site().Handle(Post("/api/decide", {{"token", "tok1"}, {"decision", "deny"}})).status,
            409);
  // Only a grantable hold takes a grant; a bad one is refused, nothing decided.
  EXPECT_EQ(Site()
                .Handle(Post("/api/decide",
                             {{"token", "tok2"}, {"decision", "approve"}, {"grant", "forever"}}))
                .status,
            400);
  // A grant that is no string is refused too, rather than read as none (an
  // approval without the grant the person asked for).
  for (const json& grant : {json(10), json(true), json::object(), json::array({"30m"})}) {
    EXPECT_EQ(Site()
                  .Handle(Post("/api/decide",
                               {{"token", "tok2"}, {"decision", "approve"}, {"grant", grant}}))
                  .status,
              400)
        << grant.dump();
  }
  EXPECT_EQ(services_.confirmations->Get("tok2", UnixNowMs())->status,
            safety::ConfirmationStatus::kPending);
  HttpReply granted = Site().Handle(
      Post("/api/decide", {{"token", "tok2"}, {"decision", "approve"}, {"grant", "10"}}));
  ASSERT_EQ(granted.status, 200) << granted.body;
  json after = Body(Site().Handle(Authed("/api/confirmations")));
  EXPECT_TRUE(after["confirmations"].empty());
  ASSERT_EQ(after["grants"].size(), 1u);
  EXPECT_EQ(after["grants"][0]["max_actions"], 10);

  Held("tok3");
  ASSERT_EQ(Site().Handle(Post("/api/decide", {{"token", "tok3"}, {"decision", "deny"}})).status,
            200);
  EXPECT_EQ(services_.confirmations->Get("tok3", UnixNowMs())->status,
            safety::ConfirmationStatus::kDenied);
  EXPECT_EQ(Site().Handle(Post("/api/decide", {{"token", "nope"}, {"decision", "deny"}})).status,
            404);
  EXPECT_EQ(Site().Handle(Post("/api/decide", {{"token", "tok3"}, {"decision", "maybe"}})).status,
            400);
  // The crop: the parameter is not `token` (that one is the page URL's); a
  // display that is no session is not captured (nor a desktop started for
  // it); a confirmation with no box and no point names no place.
  EXPECT_EQ(Site().Handle(Authed("/api/crop")).status, 400);
  EXPECT_EQ(Site().Handle(Authed("/api/crop?confirmation=tok3")).status, 503);
  auto s90 = sessions_.Start(DesktopOptions{});
  ASSERT_TRUE(s90.ok());
  safety::Confirmation on90 = Held("tok4");
  on90.token = "tok5";
  on90.display = s90->display_name;
  ASSERT_TRUE(services_.confirmations->Create(on90).ok());
  EXPECT_EQ(Site().Handle(Authed("/api/crop?confirmation=tok5")).status, 404);
  // Decisions are audited, as `uiscope confirm` audits them.
  json audit = Body(Site().Handle(Authed("/api/audit?decision=rejected")));
  ASSERT_EQ(audit["entries"].size(), 1u);
  EXPECT_EQ(audit["entries"][0]["token"], "tok3");
}

TEST_F(WebSiteTest, AuditFiltersByToolDecisionAppAndTime) {
  const int64_t now = UnixNowMs();
  auto add = [&](const std::string& tool, const std::string& decision, const std::string& app,
                 int64_t time_ms) {
    safety::AuditEntry e;
    e.time_ms = time_ms;
    e.tool = tool;
    e.decision = decision;
    e.app = app;
    e.arguments = {{"text", "••••"}};
    ASSERT_TRUE(services_.audit->Append(e).ok());
  };
  add("click", "done", "gedit", now - 3 * 3600 * 1000);
  add("click", "denied", "Firefox", now - 1000);
  add("type_text", "done", "gedit", now - 500);
  auto count = [&](const std::string& query) {
    HttpReply r = Site().Handle(Authed("/api/audit" + query));
    EXPECT_EQ(r.status, 200) << query << " " << r.body;
    return r.status == 200 ? Body(r)["entries"].size() : size_t{999};
  };
  EXPECT_EQ(count(""), 3u);
  EXPECT_EQ(count("?tool=click"), 2u);
  EXPECT_EQ(count("?decision=denied"), 1u);
  EXPECT_EQ(count("?app=GEDIT"), 2u);
  EXPECT_EQ(count("?since=1h"), 2u);
  EXPECT_EQ(count("?since=1h&app=gedit&tool=type_text"), 1u);
  EXPECT_EQ(count("?limit=1"), 1u);
  EXPECT_EQ(Site().Handle(Authed("/api/audit?since=yesterdayish")).status, 400);
  EXPECT_EQ(Site().Handle(Authed("/api/audit?limit=-3")).status, 400);
  // Redactions stay: the stored (masked) arguments are what the page gets.
  json e = Body(Site().Handle(Authed("/api/audit?tool=type_text")))["entries"][0];
  EXPECT_EQ(e["arguments"]["text"], "••••");
}

TEST_F(WebSiteTest, MemoryListsAppsAndForgetRemovesOne) {
  LearnedTarget t;
  t.id = "btn_1";
  t.role = Role::kButton;
  t.label = "Save";
  t.bounds = Rect{1, 2, 30, 20};
  ASSERT_TRUE(services_.memory->Save({"gedit", "gedit", "gtk3"}, {t}, {}, 1000).ok());
  ASSERT_TRUE(services_.memory->Save({"calc", "Calc", "qt5"}, {t}, {}, 2000).ok());
  json apps = Body(Site().Handle(Authed("/api/memory")))["apps"];
  ASSERT_EQ(apps.size(), 2u);
  json one = Body(Site().Handle(Authed("/api/memory?app=gedit")));
  EXPECT_EQ(one["signatures"][0]["targets"][0]["label"], "Save");

  HttpReply forgot = Site().Handle(Post("/api/forget", {{"app", "gedit"}}));
  ASSERT_EQ(forgot.status, 200) << forgot.body;
  EXPECT_EQ(Body(forgot)["forgotten_targets"], 1);
  apps = Body(Site().Handle(Authed("/api/memory")))["apps"];
  ASSERT_EQ(apps.size(), 1u);
  EXPECT_EQ(apps[0]["app"], "calc");
  EXPECT_EQ(Site().Handle(Post("/api/forget", {{"app", "gedit"}})).status, 404);
  EXPECT_EQ(Site().Handle(Post("/api/forget", {{"app", ""}})).status, 400);
}

TEST_F(WebSiteTest, SessionsAndMissingServices) {
  DesktopOptions o;
  o.width = 800;
  o.height = 600;
  ASSERT_TRUE(sessions_.Start(o).ok());
  json s = Body(Site().Handle(Authed("/api/sessions")))["sessions"];
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0]["width"], 800);
  EXPECT_EQ(Site().Handle(Authed("/api/tree?session=s90")).status, 503);  // no workspace
  EXPECT_EQ(Site().Handle(Authed("/api/screenshot?session=nope")).status, 404);
  EXPECT_EQ(Site().Handle(Authed("/api/tile?session=s90")).status, 404);  // none captured yet
  services_.memory = nullptr;
  site_.reset();
  HttpReply r = Site().Handle(Authed("/api/memory"));
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(Body(r)["error"].get<std::string>().find("not available"), std::string::npos);
}

TEST_F(WebSiteTest, OpenWallsAreCappedAndGiveTheirSlotBack) {
  options_.max_tile_streams = 1;
  HttpReply first = Site().Handle(Authed("/api/tiles"));
  ASSERT_EQ(first.status, 200);
  ASSERT_TRUE(first.stream);
  HttpReply second = Site().Handle(Authed("/api/tiles"));
  EXPECT_EQ(second.status, 503);
  EXPECT_EQ(HeaderOf(second, "Retry-After"), "5");
  first.stream = nullptr;  // the transport dropped it (or it ended)
  EXPECT_EQ(Site().Handle(Authed("/api/tiles")).status, 200);
}

TEST_F(WebSiteTest, ATokenAUrlCannotCarryIsRefused) {
  EXPECT_TRUE(WebSite::IsPageSafeToken(mcp::NewHttpToken()));
  EXPECT_EQ(mcp::NewHttpToken().size(), 32u);
  EXPECT_NE(mcp::NewHttpToken(), mcp::NewHttpToken());
  EXPECT_FALSE(WebSite::IsPageSafeToken("a b"));
  EXPECT_FALSE(WebSite::IsPageSafeToken("a;b"));
  EXPECT_FALSE(WebSite::IsPageSafeToken(""));
  options_.token = "semi;colon";
  HttpReply r = Site().Handle(Get("/?token=semi%3Bcolon"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(HeaderOf(r, "Location"), "");
}

// The endpoint's hook (mcp/http_site.h): every path but /mcp goes to the
// site; with HttpOptions::mcp false (`uiscope web`), /mcp is 404 and never
// reaches the site either.
class CountingSite final : public mcp::HttpSite {
 public:
  HttpReply Handle(const HttpRequest&) override {
    ++calls;
    HttpReply r;
    r.status = 299;
    return r;
  }
  int calls = 0;
};

TEST(WebEndpointTest, TheSiteServesEveryPathButMcp) {
  mcp::ToolRegistry tools;
  mcp::ServerOptions so;
  so.tools_inline = true;
  mcp::Server server(tools, so);
  auto site = std::make_shared<CountingSite>();
  mcp::HttpOptions options;
  mcp::McpHttpEndpoint with_mcp(server, options, true, site);
  EXPECT_EQ(with_mcp.Handle(Get("/"), {}).status, 299);
  EXPECT_EQ(with_mcp.Handle(Get("/api/x?y=1"), {}).status, 299);
  EXPECT_EQ(site->calls, 2);
  // /mcp is the MCP endpoint's: a GET without a session is its refusal.
  EXPECT_NE(with_mcp.Handle(Get("/mcp"), {}).status, 299);
  EXPECT_EQ(site->calls, 2);
  options.mcp = false;
  mcp::McpHttpEndpoint page_only(server, options, true, site);
  EXPECT_EQ(page_only.Handle(Get("/mcp"), {}).status, 404);
  EXPECT_EQ(page_only.Handle(Get("/"), {}).status, 299);
  EXPECT_EQ(site->calls, 3);
  mcp::McpHttpEndpoint no_site(server, mcp::HttpOptions{}, true);
  EXPECT_EQ(no_site.Handle(Get("/"), {}).status, 404);
}

TEST(WebAssetsTest, ThePageIsSmallAndSelfContained) {
  EXPECT_LT(WebAssetBytes(), 200u * 1024);
  for (const char* path : {"/", "/app.js", "/app.css"}) {
    const WebAsset* a = FindWebAsset(path);
    ASSERT_NE(a, nullptr) << path;
    // Nothing fetched from elsewhere.
    EXPECT_EQ(a->body.find("http://"), std::string_view::npos) << path;
    EXPECT_EQ(a->body.find("https://"), std::string_view::npos) << path;
  }
}

TEST(WebQueryTest, ParsesAndDecodes) {
  Query q = ParseQuery("a=1&b=x%20y+z&c&d=%zz&e=%4");
  EXPECT_EQ(q["a"], "1");
  EXPECT_EQ(q["b"], "x y z");
  EXPECT_EQ(q["c"], "");
  EXPECT_EQ(q["d"], "%zz");
  EXPECT_EQ(q["e"], "%4");
}

}  // namespace
}  // namespace uiscope::web

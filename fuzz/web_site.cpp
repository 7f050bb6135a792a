// libFuzzer target: bytes in as HTTP/1.1 requests on one connection,
// through the web page's server side (web/web_site.h): its security checks
// (Host, Origin, fetch metadata, the token as bearer, cookie or page URL,
// the POST header), its query and body parsing, and the API handlers on
// in-memory stores (confirmations decided and listed, audit, memory),
// without sockets. Requests are parsed one after another as a pipelining
// client sends them; each reply is thrown away. The tile event stream is
// not run (it runs until its client goes); screenshots and crops of the
// fake sessions fail fast (no X server).
//
// Built by scripts/fuzz with clang (-fsanitize=fuzzer,address,undefined),
// run from the seeds in fuzz/corpus/web_site.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "mcp/http_request.h"
#include "support/fake_sessions.h"
#include "web/web_site.h"

namespace {

using namespace uiscope;

struct World {
  World() {
    services.confirmations = std::make_shared<safety::MemoryConfirmationStore>();
    services.sessions = &sessions;
    (void)sessions.Start(DesktopOptions{});
    // Pending confirmations the input can name: "tok0" ... "tok7".
    for (int i = 0; i < 8; ++i) {
      safety::Confirmation c;
      c.token = "tok" + std::to_string(i);
      c.created_ms = UnixNowMs();
      c.expires_ms = c.created_ms + 3600 * 1000;
      c.tool = "click";
      c.display = ":90";
      c.rule = i % 2 == 0 ? "R4" : "rate";
      c.candidates = {{{"id", "btn_1"}, {"bounds", {{"x", 1}, {"y", 2}, {"w", 3}, {"h", 4}}}}};
      (void)services.confirmations->Create(c);
    }
    web::WebOptions options;
    options.token = "fuzztoken";
    site = std::make_unique<web::WebSite>(options, services);
  }
  test::FakeSessions sessions;
  web::WebServices services;
  std::unique_ptr<web::WebSite> site;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = new World();
  mcp::HttpRequestParser::Limits limits;
  limits.max_body_bytes = 64 * 1024;
  mcp::HttpRequestParser parser(limits);
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (int requests = 0; requests < 64 && !bytes.empty(); ++requests) {
    bytes.remove_prefix(parser.Feed(bytes));
    if (parser.state() != mcp::HttpRequestParser::State::kDone) break;
    mcp::HttpRequest request = parser.TakeRequest();
    parser.Reset();
    mcp::HttpReply reply = world->site->Handle(request);
    (void)reply;  // a tile stream is dropped unrun, giving its slot back
  }
  return 0;
}

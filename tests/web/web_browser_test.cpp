// The HTTP server's credentials in a real browser (Chromium on a headless
// desktop): a page served by another local port cannot reach /mcp, and the
// web page's token never reaches another server on 127.0.0.1. The other
// server is a small listener of this test that records every request.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "mcp/http_transport.h"
#include "mcp/server.h"
#include "mcp/tool_registry.h"
#include "safety/confirmations.h"
#include "support/chromium_fixture.h"
#include "support/desktop_fixture.h"
#include "web/web_site.h"

namespace uiscope::web {
namespace {

using std::chrono::milliseconds;

// Tests only: "another local server" on 127.0.0.1, any free port. Serves
// `page` at /page.html and "ok" elsewhere; keeps every request's head.
class Listener {
 public:
  explicit Listener(std::string page) : page_(std::move(page)) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(addr);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), size) != 0 || listen(fd_, 16) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
      close(fd_);
      fd_ = -1;
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~Listener() {
    if (fd_ < 0) return;
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::vector<std::string> heads() {
    std::lock_guard lock(mutex_);
    return heads_;
  }

 private:
  void Serve() {
    for (;;) {
      const int client = accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      std::string head;
      char buffer[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = recv(client, buffer, sizeof(buffer), 0);
        if (n <= 0) break;
        head.append(buffer, static_cast<size_t>(n));
      }
      const bool page = head.rfind("GET /page.html ", 0) == 0;
      const std::string body = page ? page_ : "ok";
      const std::string reply = std::string("HTTP/1.1 200 OK\r\nContent-Type: ") +
                                (page ? "text/html" : "text/plain") +
                                "\r\nCache-Control: no-store\r\nConnection: close\r\n"
                                "Content-Length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body;
      (void)!send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
      close(client);
      std::lock_guard lock(mutex_);
      heads_.push_back(std::move(head));
    }
  }

  std::string page_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::string> heads_;
};

// True once `done` holds, polled until `timeout`.
bool WaitFor(const std::function<bool()>& done, milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return true;
}

class WebBrowserTest : public ::testing::Test {
 protected:
  // `uiscope mcp --http 127.0.0.1:0` without --token: the page beside /mcp
  // under a token of its own.
  void StartServer() {
    mcp::ServerOptions so;
    so.tools_inline = true;
    server_ = std::make_unique<mcp::Server>(tools_, so);
    WebOptions web;
    web.token = mcp::NewHttpToken();
    page_token_ = web.token;
    WebServices services;
    services.confirmations = std::make_shared<safety::MemoryConfirmationStore>();
    auto transport = mcp::HttpTransport::Start(*server_, mcp::HttpOptions{},
                                               std::make_shared<WebSite>(web, services));
    ASSERT_TRUE(transport.ok()) << transport.error().message;
    transport_ = std::move(transport).value();
  }

  // Chromium, its page moved to `url`; the page's `expression` once it is
  // no longer "" (or the last value seen).
  std::string OpenAndWait(const std::string& url, const std::string& expression) {
    if (!browser_) browser_ = test::LaunchChromium(desktop_);
    if (!browser_) return "no browser";
    // As a person opens a URL (a page of this server refuses navigations
    // other sites start).
    Status moved = browser_->Navigate(url);
    EXPECT_TRUE(moved.ok()) << moved.error().message;
    std::string value;
    WaitFor(
        [&] {
          auto v = browser_->Evaluate(expression);
          value = v.ok() ? *v : "";
          return !value.empty();
        },
        milliseconds(20000));
    return value;
  }

  test::TestDesktop desktop_;
  std::unique_ptr<test::ChromiumFixture> browser_;
  mcp::ToolRegistry tools_;
  std::unique_ptr<mcp::Server> server_;
  std::unique_ptr<mcp::HttpTransport> transport_;
  std::string page_token_;
};

TEST_F(WebBrowserTest, APageOfAnotherLocalPortCannotReachMcp) {
  ASSERT_TRUE(desktop_.ok()) << desktop_.error();
  StartServer();
  const std::string mcp_url = transport_->url();
  // What a page of any local dev server could run in a person's browser.
  Listener other(
      "<!doctype html><title>other</title><script>\n"
      "window.outcome = '';\n"
      "fetch(" +
      nlohmann::json(mcp_url).dump() +
      ", {method: 'POST', headers: {'Content-Type': 'application/json', Accept: "
      "'application/json, text/event-stream'}, body: JSON.stringify({jsonrpc: '2.0', id: 1, "
      "method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, "
      "clientInfo: {name: 'page', version: '1'}}})})\n"
      "  .then((r) => r.text().then((t) => { window.outcome = 'reached: ' + r.status + ' ' + t; "
      "}))\n"
      "  .catch((e) => { window.outcome = 'blocked: ' + e; });\n"
      "</script>");
  ASSERT_GT(other.port(), 0);
  const std::string outcome =
      OpenAndWait(other.url("/page.html"), "typeof outcome === 'string' ? outcome : ''");
  EXPECT_EQ(outcome.rfind("blocked: ", 0), 0u) << outcome;
}

TEST_F(WebBrowserTest, ThePagesTokenNeverReachesAnotherLocalServer) {
  ASSERT_TRUE(desktop_.ok()) << desktop_.error();
  StartServer();
  Listener other("<!doctype html><title>other</title><p>another server");
  ASSERT_GT(other.port(), 0);
  const std::string page_url = WebSite::PageUrl("127.0.0.1", transport_->port(), page_token_);
  // The page works with its token: the confirmations load (an empty list).
  const std::string list = OpenAndWait(
      page_url, "(document.querySelector('#confirm-list p') || {textContent: ''}).textContent");
  EXPECT_EQ(list, "Nothing is waiting.") << "the page could not use its token";
  auto where = browser_->Evaluate("location.href + ' ' + document.cookie");
  ASSERT_TRUE(where.ok());
  EXPECT_EQ(where->find(page_token_), std::string::npos)
      << "the token stays in the address bar or a cookie: " << *where;

  // The person's browser then visits another local server.
  const std::string other_page =
      OpenAndWait(other.url("/page.html"), "document.title === 'other' ? 'there' : ''");
  EXPECT_EQ(other_page, "there");
  // And a request of that server's own page, cookies included.
  (void)browser_->Evaluate("fetch('/api/x', {credentials: 'include'}).then(() => 'fetched')");
  ASSERT_TRUE(WaitFor([&] { return other.heads().size() >= 2; }, milliseconds(10000)));
  for (const std::string& head : other.heads()) {
    EXPECT_EQ(head.find(page_token_), std::string::npos) << "another server received:\n" << head;
  }
}

}  // namespace
}  // namespace uiscope::web

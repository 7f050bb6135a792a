// The Chrome DevTools Protocol (CDP) over a WebSocket (websocket.h): JSON-RPC
// calls to one target (a page), and the HTTP discovery endpoints that list
// the targets of a browser.
//
// How uiscope finds a browser's endpoint (DevToolsPortOfProcess): from the
// process's own command line, /proc/PID/cmdline. `--remote-debugging-port=N`
// with N > 0 is the port; with N = 0 (the browser picked one) the port is the
// first line of the DevToolsActivePort file Chromium writes into its
// `--user-data-dir`. `uiscope app launch` adds `--remote-debugging-port=N`
// with a free loopback port to Chromium and Electron apps
// (engine/apps.h), so an app launched through uiscope always has one. An
// app started without the switch has no endpoint and keeps the AT-SPI path.
// The command line is read instead of scanning ports because it names the
// endpoint of that very process: another browser's port would hand us the
// wrong pages.
//
// Not thread-safe: one CdpConnection per thread.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "platform/cdp/websocket.h"

namespace uiscope {

// One entry of /json/list.
struct CdpTarget {
  std::string id;
  std::string type;  // "page", "iframe", "service_worker", "browser_ui", ...
  std::string url;
  std::string title;
  std::string websocket_url;  // webSocketDebuggerUrl: ws://127.0.0.1:PORT/devtools/page/ID
};

// Parses the body of /json/list: InvalidArgument on anything that is not an
// array of objects; entries without an id or type are skipped.
Result<std::vector<CdpTarget>> ParseCdpTargets(std::string_view body);
// GET /json/list on 127.0.0.1:`port`.
Result<std::vector<CdpTarget>> ListCdpTargets(int port, std::chrono::milliseconds timeout);
// GET /json/version on 127.0.0.1:`port`: {"Browser": "Chrome/...", ...}.
Result<nlohmann::json> CdpVersion(int port, std::chrono::milliseconds timeout);

// The DevTools port named by a browser's command line (`argv`, as in
// /proc/PID/cmdline); `read_file` reads the DevToolsActivePort file when the
// port is 0. NotFound when the command line names no port.
Result<int> DevToolsPortFromCommandLine(
    const std::vector<std::string>& argv,
    const std::function<std::optional<std::string>(const std::string& path)>& read_file);
// DevToolsPortFromCommandLine on /proc/`pid`/cmdline.
Result<int> DevToolsPortOfProcess(int pid);

// Whether `argv` starts a Chromium-based program uiscope gives a DevTools
// port at launch: its executable's name holds "chrom" (chromium, chrome,
// google-chrome) or "electron", or an argument is an Electron app archive
// (*.asar); and it names no DevTools switch of its own.
bool WantsDevToolsPort(const std::vector<std::string>& argv);
// `argv` with --remote-debugging-port=`port` after the executable.
std::vector<std::string> WithDevToolsPort(std::vector<std::string> argv, int port);
// A TCP port free on 127.0.0.1 now (bound, read, released): a browser
// started next gets it unless another process takes it in between, in which
// case the browser runs without an endpoint and observe falls back to AT-SPI.
Result<int> PickFreeLoopbackPort();

class CdpConnection {
 public:
  // Connects to a target's webSocketDebuggerUrl.
  static Result<std::unique_ptr<CdpConnection>> Open(std::string_view websocket_url,
                                                     std::chrono::milliseconds timeout);

  // Sends a command; its id, to be awaited with Await. Several commands may
  // be in flight at once (the browser answers each; a page's answers come
  // in order, but Await does not rely on it).
  Result<int> Send(std::string_view method,
                   const nlohmann::json& params = nlohmann::json::object());
  // The "result" of command `id`; the protocol's error as kInternal with
  // its message and the method's name; kTimeout at `deadline`. Answers to
  // other commands are kept for their Await; events are queued (the last
  // kMaxQueuedEvents).
  Result<nlohmann::json> Await(int id, std::chrono::steady_clock::time_point deadline);
  // Send + Await.
  Result<nlohmann::json> Call(std::string_view method, const nlohmann::json& params,
                              std::chrono::milliseconds timeout);

  // Events received so far, oldest first, and forgotten.
  std::vector<nlohmann::json> TakeEvents();

  const std::string& endpoint() const { return socket_->url(); }

  static constexpr size_t kMaxQueuedEvents = 1000;

 private:
  explicit CdpConnection(std::unique_ptr<WebSocketClient> socket) : socket_(std::move(socket)) {}

  std::unique_ptr<WebSocketClient> socket_;
  int next_id_ = 1;
  std::map<int, std::string> methods_;     // in flight: id -> method (for errors)
  std::map<int, nlohmann::json> answers_;  // answers received before their Await
  std::deque<nlohmann::json> events_;
};

}  // namespace uiscope

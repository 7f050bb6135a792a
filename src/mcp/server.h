// The MCP server: lifecycle, capability negotiation, tools, logging,
// cancellation and progress (the "server" layer of STYLE.md's three).
//
// A Server holds what all clients share (the tool registry, the options) and
// opens one Session per client connection: the stdio transport has one, the
// HTTP transport one per Mcp-Session-Id. A Session takes parsed frames and
// answers through an Outbound, so it knows nothing of bytes or sockets.
//
// Threading: Session::Handle is called by one transport thread at a time.
// Slow requests (tools/call) run on the session's worker threads unless
// ServerOptions::tools_inline is set (HTTP and the fuzzer run them inline);
// their replies are sent from the worker, so an Outbound must be safe to call
// from several threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "mcp/binder.h"
#include "mcp/json_rpc.h"
#include "mcp/protocol.h"
#include "mcp/tool_registry.h"

namespace uiscope::mcp {

// Where a session's messages go. Send is thread-safe and returns false once
// the peer is gone (further sends are dropped).
class Outbound {
 public:
  virtual ~Outbound() = default;
  virtual bool Send(const json& message) = 0;
};

struct ServerOptions {
  std::string name = "uiscope";
  std::string title = "uiscope";
  std::string version = "0.0.0";
  std::string instructions;        // sent in the initialize result when not empty
  int tools_page_size = 100;       // tools/list page length; more pages carry nextCursor
  bool tools_inline = false;       // run tools/call on the thread that calls Handle
  int workers = 4;                 // threads per session for tools/call when not inline
  size_t remembered_ids = 100000;  // request ids remembered to reject reuse
  bool validate_output = false;    // check structuredContent against outputSchema (tests)
  LogLevel default_log_level = LogLevel::kWarning;  // until logging/setLevel
};

class Session;

// One request being answered.
class Call {
 public:
  const json& id() const { return id_; }
  Session& session() { return session_; }
  Outbound& out() { return out_; }
  bool cancelled() const { return cancelled_->load(); }
  const json& progress_token() const { return progress_token_; }
  void set_progress_token(json token) { progress_token_ = std::move(token); }

  Call(json id, Session& session, Outbound& out, std::shared_ptr<std::atomic<bool>> cancelled)
      : id_(std::move(id)), session_(session), out_(out), cancelled_(std::move(cancelled)) {}

 private:
  json id_;
  Session& session_;
  Outbound& out_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
  json progress_token_;
};

class Server {
 public:
  // `tools` must outlive the server and every session.
  Server(const ToolRegistry& tools, ServerOptions options);

  std::unique_ptr<Session> NewSession() const;

  const ServerOptions& options() const { return options_; }
  const ToolRegistry& tools() const { return tools_; }
  const Binder& binder() const { return binder_; }

 private:
  Reply Initialize(const InitializeParams& p, Call& call) const;
  Reply ListTools(const ListToolsParams& p, Call& call) const;
  Reply CallTool(const CallToolParams& p, Call& call) const;
  Reply SetLevel(const SetLevelParams& p, Call& call) const;

  const ToolRegistry& tools_;
  ServerOptions options_;
  Binder binder_;
};

class Session {
 public:
  explicit Session(const Server& server);
  ~Session();  // Close()
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Handles one frame: a message, or a batch under protocol 2025-03-26.
  // Replies go to `out`, which must stay valid until Drain() returns (a slow
  // request replies later, from a worker).
  void Handle(const json& frame, Outbound& out);
  // Answers a frame that could not be parsed or was too large (id null).
  void HandleBadFrame(const RpcError& error, Outbound& out);

  // Waits until no request is in flight.
  void Drain();
  // Cancels what is in flight, waits for it and stops the workers. Later
  // frames are answered with an error.
  void Close();

  bool initialized() const { return state_.load() != State::kNew; }
  // True after a `shutdown` request: the transport should close after the reply.
  bool shutdown_requested() const { return shutdown_.load(); }
  std::string protocol_version() const;
  bool HasRequestsInFlight() const;

  // --- for the server's handlers ---
  bool TryBeginInitialize();  // false when initialize already happened
  void SetProtocolVersion(std::string version);
  void SetLogLevel(LogLevel level) { log_level_.store(level); }
  LogLevel log_level() const { return log_level_.load(); }
  void RequestShutdown() { shutdown_.store(true); }
  const Server& server() const { return server_; }

 private:
  enum class State { kNew, kInitializing, kReady };
  struct Job {
    json request;
    Outbound* out;
    std::shared_ptr<std::atomic<bool>> cancelled;
  };

  // Handles one message; returns the reply to send (null for none).
  json HandleMessage(const json& message, Outbound& out, bool allow_async);
  json Dispatch(const json& request, Outbound& out,
                const std::shared_ptr<std::atomic<bool>>& cancelled);
  void HandleNotification(const json& message);
  // Registers a request id; an error reply when it is reused.
  json AdmitId(const json& id);
  void Finish(const json& id);
  void WorkerLoop();

  const Server& server_;
  std::atomic<State> state_{State::kNew};
  std::atomic<bool> shutdown_{false};
  std::atomic<LogLevel> log_level_;

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable changed_;
  std::string protocol_version_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> in_flight_;  // by id.dump()
  std::unordered_set<std::string> seen_ids_;
  std::deque<std::string> seen_order_;
  std::deque<Job> queue_;
  std::vector<std::thread> workers_;
  int busy_ = 0;
  bool closed_ = false;
};

}  // namespace uiscope::mcp

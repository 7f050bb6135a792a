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
//
// Server-to-client requests (elicitation/create, sampling/createMessage): a running tool call sends
// a request through its own Outbound — over stdio the one stream, over
// Streamable HTTP the tool call's event stream, as the spec asks for
// requests related to a client request — with an id of the form
// "uiscope-N", and waits. The client's response arrives as a separate frame
// (stdio: a line; HTTP: a POST answered 202) and Session::Handle routes it
// by id to the waiting call. The wait ends with the response, a timeout, the
// call's cancellation or the session's end; in the last three cases the
// client is sent notifications/cancelled for the request, and a late
// response is ignored. Only calls that do not block the reading thread may
// wait (worker threads; inline calls when the transport gives each request
// a thread of its own, ServerOptions::inline_calls_may_wait).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "mcp/binder.h"
#include "mcp/json_rpc.h"
#include "mcp/protocol.h"
#include "mcp/resources.h"
#include "mcp/tool_registry.h"

namespace uiscope::mcp {

// Where a session's messages go. Send is thread-safe and returns false once
// the peer is gone (further sends are dropped).
class Outbound {
 public:
  virtual ~Outbound() = default;
  virtual bool Send(const json& message) = 0;
  // False once the peer is known to be gone without sending (an HTTP
  // client that closed the event stream): waits for its answers end early.
  virtual bool Alive() { return true; }
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
  // With tools_inline: each request runs on a thread of its own (the HTTP
  // transport), so a tool call may wait for the client's answer to a
  // server-to-client request without blocking the frames that carry it.
  bool inline_calls_may_wait = false;
  LogLevel default_log_level = LogLevel::kWarning;  // until logging/setLevel
  // What tools/list publishes of each tool (tool_registry.h). To describe
  // arguments once in `instructions` instead of in every tool, name them in
  // listing.shared_arguments ({name: schema}): tools/list leaves an argument
  // out of a tool's published inputSchema where the tool declares it with
  // exactly this schema (and then drops additionalProperties: false there,
  // so that clients checking arguments against it still send them);
  // tools/call checks arguments against the declared schema as always.
  ToolListing listing;
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
  // True when this call runs off the transport's reading thread, so it may
  // wait for the client's answer to a server-to-client request.
  bool may_wait_for_client() const { return may_wait_for_client_; }

  Call(json id, Session& session, Outbound& out, std::shared_ptr<std::atomic<bool>> cancelled,
       bool may_wait_for_client = false)
      : id_(std::move(id)),
        session_(session),
        out_(out),
        cancelled_(std::move(cancelled)),
        may_wait_for_client_(may_wait_for_client) {}

 private:
  json id_;
  Session& session_;
  Outbound& out_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
  json progress_token_;
  bool may_wait_for_client_ = false;
};

class Server {
 public:
  // `tools` must outlive the server and every session.
  Server(const ToolRegistry& tools, ServerOptions options);

  // Resources and prompts (mcp/resources.h); set before the first
  // session. Without them the capability is not declared.
  void SetResources(std::shared_ptr<ResourceProvider> resources) {
    resources_ = std::move(resources);
  }
  void SetPrompts(std::shared_ptr<PromptProvider> prompts) { prompts_ = std::move(prompts); }

  std::unique_ptr<Session> NewSession() const;

  const ServerOptions& options() const { return options_; }
  const ToolRegistry& tools() const { return tools_; }
  const Binder& binder() const { return binder_; }

  // Subscriptions one session may hold at once (each watches its resource
  // on a thread of its own).
  static constexpr size_t kMaxSubscriptions = 8;

 private:
  Reply Initialize(const InitializeParams& p, Call& call) const;
  Reply ListTools(const ListToolsParams& p, Call& call) const;
  Reply CallTool(const CallToolParams& p, Call& call) const;
  Reply SetLevel(const SetLevelParams& p, Call& call) const;
  Reply ReadResource(const ReadResourceParams& p, Call& call) const;
  Reply Subscribe(const ReadResourceParams& p, Call& call) const;
  Reply GetPrompt(const GetPromptParams& p, Call& call) const;

  const ToolRegistry& tools_;
  ServerOptions options_;
  Binder binder_;
  std::shared_ptr<ResourceProvider> resources_;
  std::shared_ptr<PromptProvider> prompts_;
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
  // The capabilities the client declared in initialize.
  json client_capabilities() const;
  // True when the client can answer elicitation/create in form mode:
  // protocol 2025-06-18 or later and an `elicitation` capability that is
  // empty (form implied) or lists `form`.
  bool ClientSupportsFormElicitation() const;
  // True when the client declared the sampling capability: it answers
  // sampling/createMessage with its model.
  bool ClientSupportsSampling() const;

  // Sends a request to the client through `out` and waits for its
  // response: the result, or an error — Timeout after `timeout`,
  // Unavailable when `stop` returns true (polled every 50 ms), the session
  // closes, `out` fails or the client answers with a JSON-RPC error (its
  // message included). On timeout and stop the client is told with
  // notifications/cancelled. Call only from a thread that does not read
  // this session's frames (Call::may_wait_for_client()).
  Result<json> RequestClient(const std::string& method, json params, Outbound& out,
                             std::chrono::milliseconds timeout,
                             const std::function<bool()>& stop = {});

  // Where messages the client did not ask for go (notifications/resources/
  // updated): over stdio the one stream, over HTTP the session's GET event
  // stream while one is open (null: none). A resource update that finds no
  // notifier is held, one per subscribed URI however many came, and sent
  // when a notifier is set (an HTTP client that opens its GET stream after
  // the screen changed still hears of it); others are dropped.
  void SetNotifier(std::shared_ptr<Outbound> notifier);
  // Sends `message` through the notifier; false when there is none (an
  // update is then held, as above).
  bool Notify(const json& message);

  // --- for the server's handlers ---
  // Holds `watch` for `uri` (replacing an earlier one); false when the
  // session already holds Server::kMaxSubscriptions others or is closed.
  bool AddSubscription(const std::string& uri, std::unique_ptr<ResourceWatch> watch);
  // Ends the subscription to `uri`; false when there was none.
  bool RemoveSubscription(const std::string& uri);
  bool TryBeginInitialize();  // false when initialize already happened
  void SetProtocolVersion(std::string version);
  void SetClientCapabilities(json capabilities);
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
                const std::shared_ptr<std::atomic<bool>>& cancelled, bool may_wait_for_client);
  void HandleNotification(const json& message);
  // Hands a client's response to the request waiting for it (ignored when
  // none is: answered late, or never asked).
  void RouteResponse(const json& message);
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
  json client_capabilities_ = json::object();
  // Server-to-client requests waiting for their response, by id.dump().
  struct PendingReply {
    bool answered = false;
    json message;
  };
  std::map<std::string, std::shared_ptr<PendingReply>> awaiting_;
  uint64_t next_request_id_ = 1;
  std::shared_ptr<Outbound> notifier_;
  // URIs of resource updates that came while there was no notifier.
  std::set<std::string> held_updates_;
  // Resource subscriptions by URI. A watch is destroyed outside mutex_ (its
  // thread may be calling Notify).
  std::map<std::string, std::unique_ptr<ResourceWatch>> subscriptions_;
};

}  // namespace uiscope::mcp

#include "mcp/server.h"

#include <algorithm>
#include <optional>

#include "mcp/json_schema.h"

namespace uiscope::mcp {
namespace {

constexpr std::string_view kResourceUpdated = "notifications/resources/updated";

constexpr std::string_view kCursorPrefix = "tools:";

// The ToolContext of one tools/call.
class CallContext final : public ToolContext {
 public:
  CallContext(Call& call, Session& session) : call_(call), session_(session) {}

  bool cancelled() const override { return call_.cancelled(); }

  void Progress(double progress, double total, const std::string& message) override {
    if (call_.progress_token().is_null() || call_.cancelled()) return;
    if (progress <= last_progress_) return;  // the spec requires it to increase
    last_progress_ = progress;
    json params = {{"progressToken", call_.progress_token()}, {"progress", progress}};
    if (total > 0) params["total"] = total;
    if (!message.empty()) params["message"] = message;
    call_.out().Send(MakeNotification("notifications/progress", std::move(params)));
  }

  void Log(LogLevel level, const std::string& message) override {
    if (level < session_.log_level()) return;
    call_.out().Send(MakeNotification(
        "notifications/message",
        {{"level", LogLevelName(level)}, {"logger", "uiscope"}, {"data", message}}));
  }

  bool CanElicit() const override {
    return call_.may_wait_for_client() && session_.ClientSupportsFormElicitation();
  }

  Result<ElicitResult> Elicit(const ElicitRequest& request) override {
    if (!CanElicit()) {
      return MakeError(ErrorCode::kUnsupported,
                       session_.ClientSupportsFormElicitation()
                           ? "this call cannot wait for the client's answer"
                           : "the client did not declare the elicitation capability");
    }
    bool elsewhere = false;
    auto stop = [&] {
      if (call_.cancelled()) return true;
      if (request.answered_elsewhere && request.answered_elsewhere()) {
        elsewhere = true;
        return true;
      }
      return false;
    };
    auto reply = session_.RequestClient(
        "elicitation/create",
        {{"message", request.message}, {"requestedSchema", request.requested_schema}}, call_.out(),
        request.timeout, stop);
    if (!reply.ok()) {
      if (elsewhere) return MakeError(ErrorCode::kStale, "the question was answered elsewhere");
      return reply.error();
    }
    const json& r = *reply;
    static const std::vector<std::string> kActions = {"accept", "decline", "cancel"};
    if (!r.is_object() || !r.contains("action") || !r["action"].is_string() ||
        std::find(kActions.begin(), kActions.end(), r["action"].get<std::string>()) ==
            kActions.end()) {
      return MakeError(ErrorCode::kUnavailable,
                       "the client answered elicitation/create with a malformed result (no "
                       "action accept, decline or cancel): " +
                           r.dump());
    }
    ElicitResult result;
    result.action = r["action"].get<std::string>();
    if (r.contains("content") && r["content"].is_object()) result.content = r["content"];
    return result;
  }

  bool CanSample() const override {
    return call_.may_wait_for_client() && session_.ClientSupportsSampling();
  }

  Result<std::string> Sample(const SampleRequest& request) override {
    if (!CanSample()) {
      return MakeError(ErrorCode::kUnsupported,
                       session_.ClientSupportsSampling()
                           ? "this call cannot wait for the client's answer"
                           : "the client did not declare the sampling capability");
    }
    json params = {{"messages", request.messages},
                   {"maxTokens", request.max_tokens},
                   {"includeContext", "none"}};
    if (!request.system_prompt.empty()) params["systemPrompt"] = request.system_prompt;
    auto reply = session_.RequestClient("sampling/createMessage", std::move(params), call_.out(),
                                        request.timeout, [&] { return call_.cancelled(); });
    if (!reply.ok()) return reply.error();
    // content is one block, or (2025-11-25) an array of blocks.
    const json& r = *reply;
    const json none = json::array();
    const json& content = r.is_object() && r.contains("content") ? r["content"] : none;
    std::string text;
    bool any = false;
    for (const json& block : content.is_array() ? content : json::array({content})) {
      if (block.is_object() && block.value("type", "") == "text" && block.contains("text") &&
          block["text"].is_string()) {
        text += block["text"].get<std::string>();
        any = true;
      }
    }
    if (!any) {
      return MakeError(ErrorCode::kUnavailable,
                       "the client answered sampling/createMessage with no text content: " +
                           r.dump().substr(0, 500));
    }
    return text;
  }

 private:
  Call& call_;
  Session& session_;
  double last_progress_ = -1;
};

}  // namespace

// --- Server ------------------------------------------------------------------

Server::Server(const ToolRegistry& tools, ServerOptions options)
    : tools_(tools), options_(std::move(options)) {
  options_.tools_page_size = std::max(1, options_.tools_page_size);
  options_.workers = std::max(1, options_.workers);
  binder_.Request<InitializeParams>(
      "initialize", [this](const InitializeParams& p, Call& c) { return Initialize(p, c); });
  binder_.Request<EmptyParams>(
      "ping", [](const EmptyParams&, Call&) { return Reply::Result(json::object()); });
  binder_.Request<EmptyParams>("shutdown", [](const EmptyParams&, Call& c) {
    c.session().RequestShutdown();
    return Reply::Result(json::object());
  });
  binder_.Request<ListToolsParams>(
      "tools/list", [this](const ListToolsParams& p, Call& c) { return ListTools(p, c); });
  binder_.Request<CallToolParams>(
      "tools/call", [this](const CallToolParams& p, Call& c) { return CallTool(p, c); },
      /*slow=*/true);
  binder_.Request<SetLevelParams>(
      "logging/setLevel", [this](const SetLevelParams& p, Call& c) { return SetLevel(p, c); });
  // Resources and prompts: one page each (no cursor is ever handed out).
  auto one_page = [](const ListToolsParams& p) -> std::optional<Reply> {
    if (!p.cursor) return std::nullopt;
    return Reply::Fail(kInvalidParams, "invalid cursor \"" + *p.cursor +
                                           "\": this list has one page and no nextCursor");
  };
  binder_.Request<ListToolsParams>(
      "resources/list", [this, one_page](const ListToolsParams& p, Call&) {
        if (!resources_) return Reply::Fail(kMethodNotFound, "method not found: resources/list");
        if (auto bad = one_page(p)) return *bad;
        return Reply::Result({{"resources", resources_->List()}});
      });
  binder_.Request<ListToolsParams>(
      "resources/templates/list", [this, one_page](const ListToolsParams& p, Call&) {
        if (!resources_)
          return Reply::Fail(kMethodNotFound, "method not found: resources/templates/list");
        if (auto bad = one_page(p)) return *bad;
        return Reply::Result({{"resourceTemplates", resources_->Templates()}});
      });
  // Reading a tree or a screenshot walks the desktop: on a worker.
  binder_.Request<ReadResourceParams>(
      "resources/read", [this](const ReadResourceParams& p, Call& c) { return ReadResource(p, c); },
      /*slow=*/true);
  binder_.Request<ReadResourceParams>(
      "resources/subscribe",
      [this](const ReadResourceParams& p, Call& c) { return Subscribe(p, c); });
  binder_.Request<ReadResourceParams>(
      "resources/unsubscribe", [this](const ReadResourceParams& p, Call& c) {
        if (!resources_)
          return Reply::Fail(kMethodNotFound, "method not found: resources/unsubscribe");
        c.session().RemoveSubscription(p.uri);  // unsubscribing twice is no error
        return Reply::Result(json::object());
      });
  binder_.Request<ListToolsParams>(
      "prompts/list", [this, one_page](const ListToolsParams& p, Call&) {
        if (!prompts_) return Reply::Fail(kMethodNotFound, "method not found: prompts/list");
        if (auto bad = one_page(p)) return *bad;
        return Reply::Result({{"prompts", prompts_->List()}});
      });
  // plan_actions observes (and reads the screen's text): on a worker.
  binder_.Request<GetPromptParams>(
      "prompts/get", [this](const GetPromptParams& p, Call& c) { return GetPrompt(p, c); },
      /*slow=*/true);
}

std::unique_ptr<Session> Server::NewSession() const { return std::make_unique<Session>(*this); }

Reply Server::Initialize(const InitializeParams& p, Call& call) const {
  if (!call.session().TryBeginInitialize())
    return Reply::Fail(kInvalidRequest, "the session is already initialized");
  // Negotiation: echo a version we speak, else offer our latest and let the
  // client decide whether it can use it.
  std::string version =
      IsSupportedProtocolVersion(p.protocol_version) ? p.protocol_version : kLatestProtocolVersion;
  call.session().SetProtocolVersion(version);
  call.session().SetClientCapabilities(p.capabilities);
  json capabilities = {{"tools", {{"listChanged", false}}}, {"logging", json::object()}};
  if (resources_) capabilities["resources"] = {{"subscribe", true}, {"listChanged", false}};
  if (prompts_) capabilities["prompts"] = {{"listChanged", false}};
  json result = {
      {"protocolVersion", version},
      {"capabilities", std::move(capabilities)},
      {"serverInfo",
       {{"name", options_.name}, {"title", options_.title}, {"version", options_.version}}}};
  if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
  return Reply::Result(std::move(result));
}

Reply Server::ListTools(const ListToolsParams& p, Call& call) const {
  // Tools that ask the client's model are listed only to clients with sampling.
  const bool sampling = call.session().ClientSupportsSampling();
  std::vector<const Tool*> visible;
  for (const Tool& t : tools_.tools()) {
    if (!t.needs_sampling || sampling) visible.push_back(&t);
  }
  size_t start = 0;
  if (p.cursor) {
    const std::string& c = *p.cursor;
    bool valid =
        c.size() > kCursorPrefix.size() && c.compare(0, kCursorPrefix.size(), kCursorPrefix) == 0;
    if (valid) {
      try {
        size_t used = 0;
        start = std::stoul(c.substr(kCursorPrefix.size()), &used);
        valid = used == c.size() - kCursorPrefix.size() && start < visible.size();
      } catch (const std::exception&) {
        valid = false;
      }
    }
    if (!valid)
      return Reply::Fail(kInvalidParams,
                         "invalid cursor \"" + c + "\": pass the nextCursor of the previous page");
  }
  const size_t end =
      std::min(visible.size(), start + static_cast<size_t>(options_.tools_page_size));
  json list = json::array();
  for (size_t i = start; i < end; ++i) list.push_back(ToolToJson(*visible[i], options_.listing));
  json result = {{"tools", std::move(list)}};
  if (end < visible.size()) result["nextCursor"] = std::string(kCursorPrefix) + std::to_string(end);
  return Reply::Result(std::move(result));
}

Reply Server::CallTool(const CallToolParams& p, Call& call) const {
  const Tool* tool = tools_.Find(p.name);
  if (tool && tool->needs_sampling && !call.session().ClientSupportsSampling()) {
    return Reply::Fail(kInvalidParams, "tool \"" + p.name +
                                           "\" needs a client that declared the sampling "
                                           "capability (it asks the client's model)");
  }
  if (!tool) {
    std::string names;
    const bool sampling = call.session().ClientSupportsSampling();
    for (const Tool& t : tools_.tools()) {
      if (!t.needs_sampling || sampling) names += (names.empty() ? "" : ", ") + t.name;
    }
    return Reply::Fail(kInvalidParams, "unknown tool \"" + p.name + "\" (tools: " + names + ")");
  }
  if (auto err = ValidateArguments(tool->input_schema, p.arguments)) {
    std::string where = ". The tool's inputSchema in tools/list describes every argument.";
    if (!options_.listing.shared_arguments.empty()) {
      where =
          ". The tool's inputSchema in tools/list describes its own arguments, and the "
          "server's instructions those the tools share (";
      for (const auto& [name, schema] : options_.listing.shared_arguments.items()) {
        where += (where.back() == '(' ? "" : ", ") + name;
      }
      where += ").";
    }
    return Reply::Result(ToolResultToJson(
        ToolResult::Error("invalid arguments for " + tool->name + ": " + *err + where)));
  }
  call.set_progress_token(p.progress_token);
  CallContext context(call, call.session());
  ToolResult result;
  try {
    result = tool->handler(p.arguments, context);
  } catch (const std::exception& e) {
    result = ToolResult::Error("internal error in tool " + tool->name + ": " + e.what() +
                               " (this is a bug in uiscope; please report it)");
  }
  if (options_.validate_output && !result.is_error && !tool->output_schema.is_null()) {
    if (result.structured.is_null()) {
      result = ToolResult::Error("internal error: tool " + tool->name +
                                 " declares an outputSchema but returned no structuredContent");
    } else if (auto err = ValidateJson(tool->output_schema, result.structured)) {
      result =
          ToolResult::Error("internal error: tool " + tool->name +
                            " returned structuredContent that breaks its outputSchema: " + *err);
    }
  }
  return Reply::Result(ToolResultToJson(result));
}

Reply Server::SetLevel(const SetLevelParams& p, Call& call) const {
  auto level = ParseLogLevel(p.level);
  if (!level)
    return Reply::Fail(kInvalidParams,
                       "unknown log level \"" + p.level +
                           "\" (debug, info, notice, warning, error, critical, alert, emergency)");
  call.session().SetLogLevel(*level);
  return Reply::Result(json::object());
}

namespace {

// A provider's error as a JSON-RPC error: NotFound is MCP's "resource not
// found" (-32002), a bad argument invalid params, the rest internal.
Reply FailWith(const Error& e) {
  constexpr int kResourceNotFound = -32002;
  const int code = e.code == ErrorCode::kNotFound          ? kResourceNotFound
                   : e.code == ErrorCode::kInvalidArgument ? kInvalidParams
                                                           : kInternalError;
  return Reply::Fail(code, e.message);
}

}  // namespace

Reply Server::ReadResource(const ReadResourceParams& p, Call&) const {
  if (!resources_) return Reply::Fail(kMethodNotFound, "method not found: resources/read");
  auto contents = resources_->Read(p.uri);
  if (!contents.ok()) return FailWith(contents.error());
  return Reply::Result({{"contents", std::move(*contents)}});
}

Reply Server::Subscribe(const ReadResourceParams& p, Call& call) const {
  if (!resources_) return Reply::Fail(kMethodNotFound, "method not found: resources/subscribe");
  Session& session = call.session();
  const std::string uri = p.uri;
  // The watch thread may outlive nothing: the session destroys its watches
  // (joining them) before it goes.
  auto watch = resources_->Watch(uri, [&session, uri] {
    session.Notify(MakeNotification(kResourceUpdated, {{"uri", uri}}));
  });
  if (!watch.ok()) return FailWith(watch.error());
  if (!session.AddSubscription(uri, std::move(*watch))) {
    return Reply::Fail(kInvalidRequest, "this session already holds " +
                                            std::to_string(kMaxSubscriptions) +
                                            " subscriptions; resources/unsubscribe one first");
  }
  return Reply::Result(json::object());
}

Reply Server::GetPrompt(const GetPromptParams& p, Call&) const {
  if (!prompts_) return Reply::Fail(kMethodNotFound, "method not found: prompts/get");
  auto got = prompts_->Get(p.name, p.arguments);
  if (!got.ok()) return FailWith(got.error());
  return Reply::Result(std::move(*got));
}

// --- Session -----------------------------------------------------------------

Session::Session(const Server& server)
    : server_(server), log_level_(server.options().default_log_level) {}

Session::~Session() { Close(); }

std::string Session::protocol_version() const {
  std::lock_guard lock(mutex_);
  return protocol_version_;
}

bool Session::TryBeginInitialize() {
  State expected = State::kNew;
  return state_.compare_exchange_strong(expected, State::kInitializing);
}

void Session::SetProtocolVersion(std::string version) {
  std::lock_guard lock(mutex_);
  protocol_version_ = std::move(version);
}

void Session::SetClientCapabilities(json capabilities) {
  std::lock_guard lock(mutex_);
  client_capabilities_ = capabilities.is_object() ? std::move(capabilities) : json::object();
}

json Session::client_capabilities() const {
  std::lock_guard lock(mutex_);
  return client_capabilities_;
}

bool Session::ClientSupportsSampling() const {
  std::lock_guard lock(mutex_);
  auto it = client_capabilities_.find("sampling");
  return it != client_capabilities_.end() && it->is_object();
}

bool Session::ClientSupportsFormElicitation() const {
  std::lock_guard lock(mutex_);
  // Elicitation arrived with 2025-06-18; 2025-11-25 added modes, where an
  // empty object still means form.
  if (protocol_version_.empty() || protocol_version_ == "2025-03-26") return false;
  auto it = client_capabilities_.find("elicitation");
  if (it == client_capabilities_.end() || !it->is_object()) return false;
  return it->empty() || it->contains("form");
}

Result<json> Session::RequestClient(const std::string& method, json params, Outbound& out,
                                    std::chrono::milliseconds timeout,
                                    const std::function<bool()>& stop) {
  auto pending = std::make_shared<PendingReply>();
  json id;
  std::string key;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return MakeError(ErrorCode::kUnavailable, "the session has ended");
    id = "uiscope-" + std::to_string(next_request_id_++);
    key = id.dump();
    awaiting_[key] = pending;
  }
  json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) request["params"] = std::move(params);
  if (!out.Send(request)) {
    std::lock_guard lock(mutex_);
    awaiting_.erase(key);
    return MakeError(ErrorCode::kUnavailable,
                     "cannot send " + method + ": the client's connection is gone");
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::optional<Error> failure;
  std::unique_lock lock(mutex_);
  while (!pending->answered) {
    if (closed_) {
      failure = MakeError(ErrorCode::kUnavailable, "the session ended before the client answered");
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      failure =
          MakeError(ErrorCode::kTimeout,
                    "the client did not answer " + method + " within " +
                        (timeout.count() % 1000 == 0 ? std::to_string(timeout.count() / 1000) + " s"
                                                     : std::to_string(timeout.count()) + " ms"));
      break;
    }
    // `stop` and Alive() may be slow (a database read, a socket check):
    // never under the session lock, which the reading thread needs to
    // deliver the answer.
    lock.unlock();
    const bool stopped = stop && stop();
    const bool gone = !out.Alive();
    lock.lock();
    if (pending->answered) break;
    if (stopped || gone) {
      failure = MakeError(ErrorCode::kUnavailable,
                          gone ? "the client disconnected before answering " + method
                               : method +
                                     " was withdrawn: the call was cancelled or answered "
                                     "elsewhere");
      break;
    }
    changed_.wait_for(lock, std::min<std::chrono::steady_clock::duration>(
                                std::chrono::milliseconds(50), deadline - now));
  }
  awaiting_.erase(key);
  const bool answered = pending->answered;
  lock.unlock();
  if (!answered) {
    // The user may still be looking at a dialog: withdraw it.
    out.Send(MakeNotification("notifications/cancelled",
                              {{"requestId", id}, {"reason", failure->message}}));
    return *failure;
  }
  const json& message = pending->message;
  if (message.contains("error")) {
    const json& e = message["error"];
    std::string what = e.is_object() && e.contains("message") && e["message"].is_string()
                           ? e["message"].get<std::string>()
                           : e.dump();
    if (e.is_object() && e.contains("code")) what += " (code " + e["code"].dump() + ")";
    return MakeError(ErrorCode::kUnavailable,
                     "the client answered " + method + " with an error: " + what);
  }
  return message["result"];
}

void Session::RouteResponse(const json& message) {
  std::lock_guard lock(mutex_);
  auto it = awaiting_.find(message["id"].dump());
  if (it == awaiting_.end()) return;  // late (timed out, withdrawn) or never asked
  it->second->answered = true;
  it->second->message = message;
  awaiting_.erase(it);
  changed_.notify_all();
}

void Session::SetNotifier(std::shared_ptr<Outbound> notifier) {
  std::set<std::string> held;
  {
    std::lock_guard lock(mutex_);
    notifier_ = notifier;
    if (notifier_) held.swap(held_updates_);
  }
  // Outside the lock: a send may block on a slow client.
  for (const std::string& uri : held) {
    notifier->Send(MakeNotification(kResourceUpdated, {{"uri", uri}}));
  }
}

bool Session::Notify(const json& message) {
  std::shared_ptr<Outbound> notifier;
  {
    std::lock_guard lock(mutex_);
    notifier = notifier_;
    if (!notifier && message.value("method", "") == kResourceUpdated &&
        message.contains("params") && message["params"].is_object()) {
      // Held under the same lock SetNotifier takes them under, so none is
      // left behind by a notifier set in between.
      const std::string uri = message["params"].value("uri", "");
      if (subscriptions_.count(uri) != 0) held_updates_.insert(uri);
    }
  }
  return notifier && notifier->Send(message);
}

bool Session::AddSubscription(const std::string& uri, std::unique_ptr<ResourceWatch> watch) {
  // Declared before the lock: a watch let go is destroyed (its thread
  // joined) after the lock is released, as its thread may be in Notify.
  std::unique_ptr<ResourceWatch> dropped;
  std::lock_guard lock(mutex_);
  auto it = subscriptions_.find(uri);
  if (closed_ ||
      (it == subscriptions_.end() && subscriptions_.size() >= Server::kMaxSubscriptions)) {
    dropped = std::move(watch);
    return false;
  }
  if (it != subscriptions_.end()) {
    dropped = std::move(it->second);
    it->second = std::move(watch);
  } else {
    subscriptions_.emplace(uri, std::move(watch));
  }
  return true;
}

bool Session::RemoveSubscription(const std::string& uri) {
  std::unique_ptr<ResourceWatch> dropped;  // destroyed after the lock, as above
  std::lock_guard lock(mutex_);
  auto it = subscriptions_.find(uri);
  if (it == subscriptions_.end()) return false;
  dropped = std::move(it->second);
  subscriptions_.erase(it);
  held_updates_.erase(uri);
  return true;
}

bool Session::HasRequestsInFlight() const {
  std::lock_guard lock(mutex_);
  return !in_flight_.empty();
}

void Session::HandleBadFrame(const RpcError& error, Outbound& out) {
  out.Send(MakeError(nullptr, error));
}

void Session::Handle(const json& frame, Outbound& out) {
  if (!frame.is_array()) {
    json reply = HandleMessage(frame, out, /*allow_async=*/true);
    if (!reply.is_null()) out.Send(reply);
    return;
  }
  // Batches exist only in protocol 2025-03-26 (2025-06-18 removed them).
  if (protocol_version() != "2025-03-26") {
    std::string why = initialized()
                          ? "JSON-RPC batches are not supported in protocol " + protocol_version() +
                                " (only 2025-03-26); send one message per frame"
                          : "a batch cannot come before initialize; send initialize alone";
    out.Send(MakeError(nullptr, RpcError{kInvalidRequest, why, nullptr}));
    return;
  }
  if (frame.empty()) {
    out.Send(MakeError(nullptr, RpcError{kInvalidRequest, "empty batch", nullptr}));
    return;
  }
  // Every member runs here, in order, and the replies go back as one array;
  // notifications and progress go straight out.
  json replies = json::array();
  for (const json& message : frame) {
    // Not message.value("method", ""): that throws when "method" is not a
    // string, and nothing above would catch it.
    if (message.is_object() && message.contains("method") && message["method"] == "initialize") {
      replies.push_back(
          MakeError(message.contains("id") && IsValidId(message["id"]) ? message["id"] : json(),
                    RpcError{kInvalidRequest, "initialize must not be part of a batch", nullptr}));
      continue;
    }
    json reply = HandleMessage(message, out, /*allow_async=*/false);
    if (!reply.is_null()) replies.push_back(std::move(reply));
  }
  if (!replies.empty()) out.Send(replies);
}

json Session::HandleMessage(const json& message, Outbound& out, bool allow_async) {
  Classified c = Classify(message);
  switch (c.kind) {
    case MessageKind::kInvalid:
      return MakeError(c.id, c.error);
    case MessageKind::kResponse:
      RouteResponse(message);
      return nullptr;
    case MessageKind::kNotification:
      HandleNotification(message);
      return nullptr;
    case MessageKind::kRequest:
      break;
  }
  const json& id = message["id"];
  const std::string method = message["method"].get<std::string>();
  {
    std::lock_guard lock(mutex_);
    if (closed_) return MakeError(id, RpcError{kInvalidRequest, "the session is closed", nullptr});
  }
  if (shutdown_.load())
    return MakeError(id, RpcError{kInvalidRequest, "the session is shutting down", nullptr});
  if (state_.load() == State::kNew && method != "initialize" && method != "ping") {
    return MakeError(id, RpcError{kInvalidRequest,
                                  "the session is not initialized: send initialize first, then "
                                  "notifications/initialized",
                                  nullptr});
  }
  const Binder::Entry* entry = server_.binder().FindRequest(method);
  if (!entry) {
    return MakeError(id, RpcError{kMethodNotFound, "method not found: " + method, nullptr});
  }
  if (json refused = AdmitId(id); !refused.is_null()) return refused;

  std::shared_ptr<std::atomic<bool>> cancelled;
  {
    std::lock_guard lock(mutex_);
    cancelled = in_flight_[id.dump()];
  }
  if (entry->slow && allow_async && !server_.options().tools_inline) {
    std::lock_guard lock(mutex_);
    queue_.push_back(Job{message, &out, cancelled});
    if (workers_.size() < static_cast<size_t>(server_.options().workers) &&
        static_cast<size_t>(busy_) + queue_.size() > workers_.size()) {
      workers_.emplace_back([this] { WorkerLoop(); });
    }
    changed_.notify_all();
    return nullptr;
  }
  json reply = Dispatch(
      message, out, cancelled,
      allow_async && server_.options().tools_inline && server_.options().inline_calls_may_wait);
  Finish(id);
  return reply;
}

json Session::Dispatch(const json& request, Outbound& out,
                       const std::shared_ptr<std::atomic<bool>>& cancelled,
                       bool may_wait_for_client) {
  const json& id = request["id"];
  const Binder::Entry* entry = server_.binder().FindRequest(request["method"].get<std::string>());
  Call call(id, *this, out, cancelled, may_wait_for_client);
  Reply reply;
  try {
    reply = entry->handler(request.contains("params") ? request["params"] : json(), call);
  } catch (const std::exception& e) {
    reply = Reply::Fail(kInternalError, std::string("internal error: ") + e.what());
  }
  // A cancelled request gets no reply (MCP cancellation).
  if (cancelled->load()) return nullptr;
  return reply.ok ? MakeResult(id, std::move(reply.result)) : MakeError(id, reply.error);
}

void Session::HandleNotification(const json& message) {
  const std::string method = message["method"].get<std::string>();
  const json params = message.contains("params") ? message["params"] : json::object();
  if (method == "notifications/initialized") {
    State expected = State::kInitializing;
    state_.compare_exchange_strong(expected, State::kReady);
    return;
  }
  if (method == "notifications/cancelled") {
    CancelledParams p;
    try {
      FromJson(params, p);
    } catch (const std::exception&) {
      return;  // nothing to answer a malformed notification with
    }
    std::lock_guard lock(mutex_);
    auto it = in_flight_.find(p.request_id.dump());
    if (it != in_flight_.end()) it->second->store(true);
    return;
  }
  if (const auto* handler = server_.binder().FindNotification(method)) (*handler)(params);
  // Unknown notifications are ignored, as JSON-RPC requires.
}

json Session::AdmitId(const json& id) {
  const std::string key = id.dump();
  std::lock_guard lock(mutex_);
  if (in_flight_.contains(key)) {
    return MakeError(id, RpcError{kInvalidRequest,
                                  "request id " + key +
                                      " is already in flight; MCP request ids "
                                      "must be unique within a session",
                                  nullptr});
  }
  if (seen_ids_.contains(key)) {
    return MakeError(id, RpcError{kInvalidRequest,
                                  "request id " + key +
                                      " was already used in this session; MCP "
                                      "request ids must not be reused",
                                  nullptr});
  }
  seen_ids_.insert(key);
  seen_order_.push_back(key);
  while (seen_order_.size() > server_.options().remembered_ids) {
    seen_ids_.erase(seen_order_.front());
    seen_order_.pop_front();
  }
  in_flight_.emplace(key, std::make_shared<std::atomic<bool>>(false));
  return nullptr;
}

void Session::Finish(const json& id) {
  std::lock_guard lock(mutex_);
  in_flight_.erase(id.dump());
  changed_.notify_all();
}

void Session::WorkerLoop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closed and nothing left
    Job job = std::move(queue_.front());
    queue_.pop_front();
    ++busy_;
    lock.unlock();
    json reply;
    if (!job.cancelled->load())
      reply = Dispatch(job.request, *job.out, job.cancelled, /*may_wait_for_client=*/true);
    if (!reply.is_null()) job.out->Send(reply);
    Finish(job.request["id"]);
    lock.lock();
    --busy_;
    changed_.notify_all();
  }
}

void Session::Drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return in_flight_.empty() && queue_.empty() && busy_ == 0; });
}

void Session::Close() {
  std::vector<std::thread> workers;
  std::map<std::string, std::unique_ptr<ResourceWatch>> subscriptions;
  {
    std::lock_guard lock(mutex_);
    if (closed_ && workers_.empty() && subscriptions_.empty()) return;
    closed_ = true;
    subscriptions.swap(subscriptions_);
    notifier_ = nullptr;
    for (auto& [id, flag] : in_flight_) flag->store(true);
    workers.swap(workers_);
    changed_.notify_all();
  }
  subscriptions.clear();  // stops the watches, outside the lock
  for (std::thread& t : workers) t.join();
  std::lock_guard lock(mutex_);
  queue_.clear();
  in_flight_.clear();
}

}  // namespace uiscope::mcp

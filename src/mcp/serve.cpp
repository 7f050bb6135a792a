#include "mcp/serve.h"

#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <thread>

#include "engine/desktop.h"
#include "engine/workspace.h"
#include "mcp/http_transport.h"
#include "mcp/server.h"
#include "mcp/tools/context_provider.h"
#include "mcp/tools/goal_tool.h"
#include "mcp/tools/memory_tools.h"
#include "mcp/tools/schemas.h"
#include "mcp/tools/tools.h"
#include "memory/safety_store.h"
#include "memory/shortcut_store.h"
#include "session/sessions.h"
#include "web/web_site.h"

namespace uiscope::mcp {
namespace {

constexpr char kInstructions[] =
    "uiscope shows a Linux desktop as a compact tree of elements with stable IDs. Call observe "
    "to see what is on screen (compact text by default; page with cursor when truncated), and "
    "find to locate elements by name or role; act on their IDs with click, type_text, "
    "press_keys, scroll, drag and set_value, each of which reports what changed (effect "
    "observed or none); wait_for waits for an element, a text or a change; windows and app_* "
    "manage applications; teach remembers an element a person names at a point (shown by "
    "observe and find from then on, source learned), memory lists what was learned. Bounds are "
    "screen pixels of the display. Without "
    "a DISPLAY, uiscope starts its own headless desktop on first need; session_start / "
    "session_list / session_stop manage more of them, and observe/find take a session ID. "
    "Action tools (click, type_text, press_keys, scroll, drag, set_value) take target: an "
    "element ID, \"X,Y\" or {x, y}; or name to find it first, narrowed as find narrows "
    "it by role (only this role), exact (the whole label, exactly) and app (only this "
    "application); several matches come back as confirmation_required with the candidates. "
    "screenshot and read_text take region {x, y, w, h} (screen pixels, w and h at least 1; "
    "default the whole screen). "
    "Actions pass a safety policy: one it holds comes back as confirmation_required with a "
    "token; ask the user, and use confirm only as the user decides (or repeat the call with "
    "confirmation_token once approved). Arguments shared by the tools, not repeated in each "
    "inputSchema: session (string; every desktop tool; default the server's desktop), "
    "timeout_ms (integer 10-600000, default 2000; deadline of each application's "
    "accessibility calls; tools reading or acting on the tree), settle_ms (integer 0-60000, "
    "default 500; how long an action waits for an effect before reporting none), via (auto | "
    "accessibility | xtest; click, type_text, set_value; auto uses the element's "
    "accessibility interface when it has one, else real input), confirmation_token (string; "
    "action and app tools).";

// Blocks the termination signals in every thread (call before starting any)
// and turns them into a write to an eventfd on a dedicated thread.
class SignalWatcher {
 public:
  SignalWatcher() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    signal(SIGPIPE, SIG_IGN);
    fd_ = eventfd(0, EFD_CLOEXEC);
  }
  ~SignalWatcher() {
    stopping_ = true;
    if (thread_.joinable()) {
      // Wake the sigwait with a signal of our own set, to this thread only.
      pthread_kill(thread_.native_handle(), SIGHUP);
      thread_.join();
    }
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }
  template <typename Fn>
  void Start(Fn on_signal) {
    thread_ = std::thread([this, on_signal] {
      int sig = 0;
      if (sigwait(&set_, &sig) != 0) return;
      if (stopping_) return;
      uint64_t one = 1;
      (void)!write(fd_, &one, sizeof(one));
      on_signal(sig);
    });
  }
  void Stopping() { stopping_ = true; }

 private:
  sigset_t set_;
  int fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace

Status ParseListenAddress(const std::string& text, std::string* host, int* port) {
  auto bad = [&] {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--http needs HOST:PORT (e.g. 127.0.0.1:8765, or port 0 for any free one), "
                     "got \"" +
                         text + "\"");
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return bad();
  std::string h = text.substr(0, colon);
  const std::string p = text.substr(colon + 1);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h.empty()) h = "127.0.0.1";
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos)
    return bad();
  const int n = std::stoi(p);
  if (n > 65535) return bad();
  *host = h;
  *port = n;
  return OkStatus();
}

ServerOptions ServerOptionsFor(const ServeOptions& options) {
  ServerOptions server_options;
  server_options.version = options.version;
  server_options.instructions = kInstructions;
  if (!options.full_schemas) {
    server_options.listing.shared_arguments = schema::SharedArguments();
    server_options.listing.short_forms = schema::ShortForms();
    server_options.listing.output_schemas = false;
    server_options.listing.default_annotations = false;
  }
  server_options.tools_inline = options.http;
  server_options.inline_calls_may_wait = options.http;  // one thread per HTTP request
  return server_options;
}

int Serve(const ServeOptions& options) {
  // The policy first: a configuration error stops the server before it
  // serves anything under a policy other than the one asked for.
  auto config = safety::LoadPolicyConfig(options.config_path);
  if (!config.ok()) {
    std::cerr << "uiscope: " << config.error().message << "\n";
    return 2;
  }
  SignalWatcher signals;  // before any thread starts
  memory::SafetyStores stores = memory::OpenSafetyStores(*config);
  auto gate = memory::MakePolicyGate(*config, stores);

  WorkspaceOptions ws;
  ws.display = options.display;
  ws.session = options.session;
  // Deny-listed applications are never observed (DESIGN §8).
  ws.hide_app = [gate](const std::string& app) { return gate->IsDeniedApp(app); };
  // Every action of every tool goes through the policy (DESIGN §8).
  ws.gate = gate;
  // A long-running server: each app's tree is kept, fed by its events.
  ws.accessibility_mirror = true;
  // What observations and actions teach (DESIGN §5.6), per the "memory" key.
  memory::Learning learning = memory::OpenLearning(*config);
  if (learning.store) {
    ws.learner = std::make_shared<Learner>(learning.store, learning.learns);
  } else if (!learning.error.empty()) {
    std::cerr << "uiscope: warning: learned memory off: " << learning.error << "\n";
  }
  Workspace workspace(ws);
  auto sessions = MakeSessionControl(OcrTitleReader);
  ToolRegistry registry;
  // The shortcut registries live in the state database beside the audit log.
  std::shared_ptr<ShortcutRegistryStore> shortcut_store;
  if (stores.db) shortcut_store = std::make_shared<memory::ShortcutStore>(stores.db);
  if (auto st = RegisterAllTools(registry, workspace, *sessions, std::make_shared<Confirmer>(gate),
                                 shortcut_store);
      !st.ok()) {
    std::cerr << "uiscope: " << st.error().message << "\n";
    return 1;
  }
  // `memory` lists what was learned also while learning is off.
  std::shared_ptr<memory::TargetStore> store = learning.store;
  if (!store && learning.error.empty()) {
    auto opened =
        memory::OpenTargetStore(memory::MemoryDatabasePath(safety::DatabasePath(*config)), false);
    if (opened.ok()) store = *opened;
  }
  if (store) {
    if (auto st = RegisterMemoryTools(registry, workspace, store, ws.learner); !st.ok()) {
      std::cerr << "uiscope: " << st.error().message << "\n";
      return 1;
    }
  }
  // Resources and prompts, from the tools above (mcp/tools/context_provider.h).
  const ContextSources context{&registry, &workspace, stores.audit, store};
  auto prompts = MakePromptProvider(context);
  // execute_goal: the plan_actions prompt through the client's model.
  if (auto st = RegisterGoalTool(registry, prompts); !st.ok()) {
    std::cerr << "uiscope: " << st.error().message << "\n";
    return 1;
  }
  Server server(registry, ServerOptionsFor(options));
  server.SetResources(MakeResourceProvider(context));
  server.SetPrompts(prompts);

  if (!options.http) {
    signals.Start([](int) {});
    StdioOptions stdio;
    stdio.max_message_bytes = options.max_message_bytes;
    stdio.stop_fd = signals.fd();
    int rc = ServeStdio(server, STDIN_FILENO, STDOUT_FILENO, stdio);
    signals.Stopping();
    return rc;
  }

  HttpOptions http;
  http.host = options.http_host;
  http.port = options.http_port;
  http.token = options.token;
  http.mcp = !options.web;
  http.allowed_origins = options.allowed_origins;
  http.max_message_bytes = options.max_message_bytes;
  if (options.max_connections > 0) http.max_connections = options.max_connections;
  if (options.max_sessions > 0) http.max_sessions = options.max_sessions;
  if (options.max_sessions_per_client > 0) {
    http.max_sessions_per_client = options.max_sessions_per_client;
  }
  // The web page beside /mcp (DESIGN §9), under a token of its own (see
  // ServeOptions::web).
  web::WebOptions web_options;
  web_options.token = options.page_token.empty() ? NewHttpToken() : options.page_token;
  web_options.allowed_origins = http.allowed_origins;
  web_options.loopback = IsLoopbackHost(http.host);
  web::WebServices web_services;
  web_services.confirmations = stores.confirmations;
  web_services.audit = stores.audit;
  web_services.memory = store;
  web_services.sessions = sessions.get();
  web_services.workspace = &workspace;
  web_services.hides_apps = !config->deny_apps.empty();
  auto site = std::make_shared<web::WebSite>(web_options, web_services);
  auto transport = HttpTransport::Start(server, http, site);
  if (!transport.ok()) {
    std::cerr << "uiscope: " << transport.error().message << "\n";
    return 1;
  }
  HttpTransport* t = transport->get();
  signals.Start([t](int) { t->Stop(); });
  if (!IsLoopbackHost(options.http_host)) {
    std::cerr << "uiscope: warning: listening on " << options.http_host
              << ", which is reachable from other machines\n";
  }
  if (options.max_connections > 0 && t->max_connections() < options.max_connections) {
    std::cerr << "uiscope: warning: --max-connections " << options.max_connections
              << " is more than the file descriptor limit allows; serving at most "
              << t->max_connections() << " connections (raise it with `ulimit -n`)\n";
  }
  const std::string page = web::WebSite::PageUrl(http.host, t->port(), web_options.token);
  if (options.web) {
    std::cerr << "uiscope: web page at " << page << "\n" << std::flush;
    std::cout << page << "\n" << std::flush;
  } else {
    std::cerr << "uiscope: MCP server listening on " << t->url() << "\n";
    // HTTP always has a token (HttpTransport makes one when --token is not
    // given): print the one made, as notebook servers do, for the person to
    // hand to the agent.
    if (options.token.empty()) {
      std::cerr << "uiscope: MCP token (send `Authorization: Bearer TOKEN`; fix it with "
                   "--token): "
                << t->token() << "\n";
    }
    std::cerr << "uiscope: web page at " << page << "\n" << std::flush;
  }
  t->Wait();
  signals.Stopping();
  std::cerr << (options.web ? "uiscope: web page stopped\n" : "uiscope: MCP server stopped\n");
  return 0;
}

}  // namespace uiscope::mcp

// uiscope's resources and prompts (context_provider.h).
#include "mcp/tools/context_provider.h"

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "engine/observe.h"
#include "engine/plan.h"
#include "image/image_diff.h"
#include "safety/audit.h"

namespace uiscope::mcp {
namespace {

constexpr std::string_view kScheme = "uiscope://";
constexpr std::string_view kDefaultSession = "default";
constexpr int kAuditEntries = 50;

// The context of a tool called for a resource or a prompt: nothing to report
// to, never cancelled.
class QuietContext final : public ToolContext {
 public:
  bool cancelled() const override { return false; }
  void Progress(double, double, const std::string&) override {}
  void Log(LogLevel, const std::string&) override {}
};

std::string TextOf(const ToolResult& r) {
  std::string text;
  for (const Content& c : r.content) {
    if (c.kind == Content::Kind::kText) text += c.text;
  }
  return text;
}

// An app name as a URI path segment: RFC 3986 unreserved characters as
// they are, every other byte %XX ("GNU Image Manipulation Program" ->
// "GNU%20Image%20Manipulation%20Program").
std::string EncodeSegment(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The inverse; nullopt for a malformed escape.
std::optional<std::string> DecodeSegment(const std::string& segment) {
  std::string out;
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '%') {
      out += segment[i];
      continue;
    }
    if (i + 2 >= segment.size() || !std::isxdigit(static_cast<unsigned char>(segment[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(segment[i + 2]))) {
      return std::nullopt;
    }
    out += static_cast<char>(std::stoi(segment.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

// A parsed uiscope://session/{id}/{what}[/{app}].
struct SessionUri {
  std::string id;    // "default" or a session ID
  std::string what;  // tree, screenshot, audit, memory
  std::string app;   // memory
};

std::optional<SessionUri> ParseSessionUri(const std::string& uri) {
  const std::string prefix = std::string(kScheme) + "session/";
  if (uri.rfind(prefix, 0) != 0) return std::nullopt;
  std::vector<std::string> parts;
  size_t start = prefix.size();
  for (;;) {
    const size_t slash = uri.find('/', start);
    parts.push_back(
        uri.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() < 2 || parts[0].empty()) return std::nullopt;
  SessionUri u{parts[0], parts[1], ""};
  if (u.what == "memory") {
    if (parts.size() != 3 || parts[2].empty()) return std::nullopt;
    auto app = DecodeSegment(parts[2]);
    if (!app || app->empty()) return std::nullopt;
    u.app = *app;
  } else if (parts.size() != 2 ||
             (u.what != "tree" && u.what != "screenshot" && u.what != "audit")) {
    return std::nullopt;
  }
  return u;
}

std::string SessionUriOf(const std::string& id, const std::string& what) {
  return std::string(kScheme) + "session/" + id + "/" + what;
}

class Context {
 public:
  explicit Context(ContextSources sources) : s_(std::move(sources)) {}

  // A registered tool's result, or its error text as an error.
  Result<ToolResult> CallTool(const std::string& name, const json& args) const {
    const Tool* tool = s_.tools->Find(name);
    if (tool == nullptr) {
      return MakeError(ErrorCode::kUnavailable, "this server has no " + name + " tool");
    }
    QuietContext ctx;
    ToolResult r = tool->handler(args, ctx);
    if (r.is_error) return MakeError(ErrorCode::kUnavailable, name + ": " + TextOf(r));
    return r;
  }

  // The tools' session argument for `id` ("default": none).
  static json SessionArgs(const std::string& id) {
    return id == kDefaultSession ? json::object() : json{{"session", id}};
  }

  std::vector<std::string> SessionIds() const {
    std::vector<std::string> ids;
    auto listed = CallTool("session_list", json::object());
    if (!listed.ok()) return ids;
    for (const json& s : listed->structured.value("sessions", json::array())) {
      if (s.contains("id") && s["id"].is_string()) ids.push_back(s["id"].get<std::string>());
    }
    return ids;
  }

  // NotFound unless `id` is "default" or a live session.
  Status CheckSession(const std::string& id) const {
    if (id == kDefaultSession) return OkStatus();
    for (const std::string& known : SessionIds()) {
      if (known == id) return OkStatus();
    }
    return MakeError(ErrorCode::kNotFound, "no uiscope session \"" + id +
                                               "\" (uiscope://sessions lists them; \"default\" "
                                               "is the server's own desktop)");
  }

  // The compact tree, whole (no page limit).
  Result<std::string> Tree(const std::string& id) const {
    json args = SessionArgs(id);
    args["max_chars"] = 0;
    auto r = CallTool("observe", args);
    if (!r.ok()) return r.error();
    return TextOf(*r);
  }

  const ContextSources& sources() const { return s_; }

 private:
  ContextSources s_;
};

std::string FocusedId(const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    if (n.Has(State::kFocused)) return n.id;
    if (std::string id = FocusedId(n.children); !id.empty()) return id;
  }
  return "";
}

// A tree subscription: a thread that looks at the desktop every
// kWatchIntervalMs and calls `changed` when R1 says the screen changed.
// Each look is one capture of the screen (when the desktop has an X
// display) and, only when the pixels barely changed or cannot be read, one
// observation for the focus (served by the event-fed mirror when it can).
class TreeWatch final : public ResourceWatch {
 public:
  TreeWatch(Workspace& workspace, std::string session, std::function<void()> changed)
      : workspace_(workspace), session_(std::move(session)), changed_(std::move(changed)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~TreeWatch() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  // One look; true when R1 says the screen changed since the previous one.
  // NotFound when the session is gone (the watch ends).
  Result<bool> Look() {
    auto lease = workspace_.Acquire(session_);
    if (!lease.ok()) return lease.error();
    std::optional<Image> pixels;
    if (lease->capture != nullptr && !DesktopGone(*lease)) {
      auto frame = lease->capture->CaptureRegion(Rect{0, 0, lease->frame.width, lease->frame.height});
      if (frame.ok()) pixels = std::move(frame->image);
    }
    double diff = 0;
    if (pixels_ && pixels) {
      auto d = DiffImages(*pixels_, *pixels);
      diff = d.ok() ? d->score : 1.0;  // another screen size is a change
    }
    bool focus_changed = false;
    if (!pixels || diff < kR1DiffThreshold) {
      auto obs = lease->observer->Observe(ObserveRequest{});
      if (obs.ok()) {
        std::string focused = FocusedId(obs->snapshot.roots);
        focus_changed = focus_known_ && focused != focused_;
        focused_ = std::move(focused);
        focus_known_ = true;
      }
    } else {
      focus_known_ = false;  // not read this time: no baseline for the next
    }
    const bool first = !looked_;
    looked_ = true;
    pixels_ = std::move(pixels);
    return !first && !ReobservationSkippable(diff, focus_changed);
  }

  void Run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      lock.unlock();
      auto changed = Look();
      if (!changed.ok() && changed.error().code == ErrorCode::kNotFound) return;  // session gone
      if (changed.ok() && *changed) changed_();
      lock.lock();
      wake_.wait_for(lock, std::chrono::milliseconds(kWatchIntervalMs), [&] { return stop_; });
    }
  }

  Workspace& workspace_;
  const std::string session_;
  const std::function<void()> changed_;
  // The previous look (the watch thread's own).
  bool looked_ = false;
  std::optional<Image> pixels_;
  std::string focused_;
  bool focus_known_ = false;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

class UiscopeResources final : public ResourceProvider {
 public:
  explicit UiscopeResources(ContextSources sources) : context_(std::move(sources)) {}

  json List() override {
    json list = json::array();
    list.push_back({{"uri", std::string(kScheme) + "sessions"},
                    {"name", "sessions"},
                    {"title", "uiscope sessions"},
                    {"description", "the desktops this server works on, as session_list"},
                    {"mimeType", "application/json"}});
    std::vector<std::string> ids = {std::string(kDefaultSession)};
    for (const std::string& id : context_.SessionIds()) ids.push_back(id);
    for (const std::string& id : ids) {
      const std::string who = id == kDefaultSession ? "the server's desktop" : "session " + id;
      list.push_back({{"uri", SessionUriOf(id, "tree")},
                      {"name", id + " tree"},
                      {"description", "the compact tree of " + who +
                                          " (subscribe: updated "
                                          "when the screen changes, per seed 001's R1)"},
                      {"mimeType", "text/plain"}});
      list.push_back({{"uri", SessionUriOf(id, "screenshot")},
                      {"name", id + " screenshot"},
                      {"description", "the screen of " + who},
                      {"mimeType", "image/png"}});
      if (context_.sources().audit) {
        list.push_back({{"uri", SessionUriOf(id, "audit")},
                        {"name", id + " audit"},
                        {"description", "the last " + std::to_string(kAuditEntries) +
                                            " audit entries of " + who + " (redacted)"},
                        {"mimeType", "application/json"}});
      }
    }
    if (context_.sources().memory) {
      auto apps = context_.sources().memory->ListApps();
      if (apps.ok()) {
        std::set<std::string> listed;  // an app has a summary per window signature
        for (const memory::AppSummary& a : *apps) {
          const std::string app = memory::AppSummaryToJson(a).value("app", "");
          if (app.empty() || !listed.insert(app).second) continue;
          list.push_back(
              {{"uri", SessionUriOf(std::string(kDefaultSession), "memory/" + EncodeSegment(app))},
               {"name", "memory " + app},
               {"description", "what uiscope learned of " + app},
               {"mimeType", "application/json"}});
        }
      }
    }
    return list;
  }

  json Templates() override {
    auto entry = [](const std::string& what, const std::string& description,
                    const std::string& mime) {
      return json{{"uriTemplate", std::string(kScheme) + "session/{id}/" + what},
                  {"name", "session " + what},
                  {"description", description + "; {id} from uiscope://sessions, or default"},
                  {"mimeType", mime}};
    };
    return json::array(
        {entry("tree", "a session's compact tree", "text/plain"),
         entry("screenshot", "a session's screen", "image/png"),
         entry("audit", "a session's recent audit entries (redacted)", "application/json"),
         entry("memory/{app}", "what was learned of an application", "application/json")});
  }

  Result<json> Read(const std::string& uri) override {
    if (uri == std::string(kScheme) + "sessions") {
      auto listed = context_.CallTool("session_list", json::object());
      if (!listed.ok()) return listed.error();
      json sessions = listed->structured.value("sessions", json::array());
      return Contents(uri, "application/json",
                      json{{"default", "the server's own desktop"}, {"sessions", sessions}}.dump());
    }
    auto parsed = ParseSessionUri(uri);
    if (!parsed) return NotFound(uri);
    if (auto st = context_.CheckSession(parsed->id); !st.ok()) return st.error();
    if (parsed->what == "tree") {
      auto tree = context_.Tree(parsed->id);
      if (!tree.ok()) return tree.error();
      return Contents(uri, "text/plain", *tree);
    }
    if (parsed->what == "screenshot") {
      auto shot = context_.CallTool("screenshot", Context::SessionArgs(parsed->id));
      if (!shot.ok()) return shot.error();
      const json wire = ToolResultToJson(*shot);  // the image, base64-encoded
      for (const json& c : wire["content"]) {
        if (c.value("type", "") == "image") {
          return json::array({{{"uri", uri}, {"mimeType", c["mimeType"]}, {"blob", c["data"]}}});
        }
      }
      return MakeError(ErrorCode::kUnavailable, "the screenshot tool returned no image");
    }
    if (parsed->what == "audit") return Audit(uri, parsed->id);
    return Memory(uri, parsed->app);
  }

  Result<std::unique_ptr<ResourceWatch>> Watch(const std::string& uri,
                                               std::function<void()> changed) override {
    auto parsed = ParseSessionUri(uri);
    if (!parsed || parsed->what != "tree") {
      if (parsed || uri == std::string(kScheme) + "sessions") {
        return MakeError(
            ErrorCode::kInvalidArgument,
            "only trees can be subscribed to (uiscope://session/{id}/tree), not " + uri);
      }
      return NotFound(uri);
    }
    if (auto st = context_.CheckSession(parsed->id); !st.ok()) return st.error();
    const std::string session = parsed->id == kDefaultSession ? "" : parsed->id;
    return std::unique_ptr<ResourceWatch>(
        std::make_unique<TreeWatch>(*context_.sources().workspace, session, std::move(changed)));
  }

 private:
  static Error NotFound(const std::string& uri) {
    return MakeError(ErrorCode::kNotFound, "no resource " + uri +
                                               " (resources/list and resources/templates/list "
                                               "name them)");
  }

  static json Contents(const std::string& uri, const std::string& mime, std::string text) {
    return json::array({{{"uri", uri}, {"mimeType", mime}, {"text", std::move(text)}}});
  }

  Result<json> Audit(const std::string& uri, const std::string& id) {
    const auto& audit = context_.sources().audit;
    if (!audit) {
      return MakeError(ErrorCode::kUnavailable, "this server keeps no audit log (no database)");
    }
    // The log is shared by every session: take a window of the newest and
    // keep this session's.
    memory::AuditQuery query;
    query.limit = kAuditEntries * 20;
    auto entries = audit->Query(query);
    if (!entries.ok()) return entries.error();
    const std::string session = id == kDefaultSession ? "" : id;
    json list = json::array();
    for (const safety::AuditEntry& e : *entries) {
      if (e.session == session) list.push_back(safety::AuditEntryToJson(e));
    }
    if (list.size() > static_cast<size_t>(kAuditEntries)) {
      list.erase(list.begin(), list.end() - kAuditEntries);
    }
    return Contents(uri, "application/json", list.dump());
  }

  Result<json> Memory(const std::string& uri, const std::string& app) {
    const auto& store = context_.sources().memory;
    if (!store) return NotFound(uri);
    auto apps = store->ListApps();
    if (!apps.ok()) return apps.error();
    bool known = false;
    for (const memory::AppSummary& a : *apps) {
      known = known || memory::AppSummaryToJson(a).value("app", "") == app;
    }
    if (!known) return NotFound(uri);
    auto exported = store->Export(app);
    if (!exported.ok()) return exported.error();
    return Contents(uri, "application/json", exported->dump());
  }

  Context context_;
};

// --- Prompts -----------------------------------------------------------------

// Seed 001's system instruction, for uiscope's step types.
constexpr char kPlanInstruction[] =
    "You are uiscope's Vision Assistant. Given screen context (OCR + UI tree + metadata), "
    "produce a JSON array of actions following the schema below. Only output valid JSON and "
    "nothing else. When uncertain, set args.requireConfirmation=true and describe the "
    "ambiguity in args.metadata.";

// execute_plan's step schema (engine/plan.h ParsePlan), strict.
json PlanSchema() {
  const json str = {{"type", "string"}};
  return {
      {"type", "array"},
      {"items",
       {{"type", "object"},
        {"required", {"type", "args"}},
        {"additionalProperties", false},
        {"properties",
         {{"type",
           {{"enum", {"open_app", "type_text", "wait", "click_by_bounds", "click", "press_keys"}}}},
          {"args",
           {{"type", "object"},
            {"additionalProperties", false},
            {"properties",
             {{"target",
               {{"type", "string"},
                {"description", "open_app: the command; else an element's label"}}},
              {"uiElementId", {{"type", "string"}, {"description", "an id= from the tree"}}},
              {"text", str},
              {"keys",
               {{"type", "array"},
                {"items", str},
                {"description", "press_keys: e.g. [\"ctrl+s\"]"}}},
              {"delayMs", {{"type", "integer"}, {"minimum", 0}}},
              {"bounds",
               {{"type", "object"},
                {"required", {"x", "y", "width", "height"}},
                {"properties",
                 {{"x", {{"type", "integer"}}},
                  {"y", {{"type", "integer"}}},
                  {"width", {{"type", "integer"}}},
                  {"height", {{"type", "integer"}}}}}}},
              {"requireConfirmation", {{"type", "boolean"}}},
              {"metadata", {{"type", "object"}}}}}}}}}}}};
}

class UiscopePrompts final : public PromptProvider {
 public:
  explicit UiscopePrompts(ContextSources sources) : context_(std::move(sources)) {}

  json List() override {
    const json session = {{"name", "session"},
                          {"description", "uiscope session ID (default: the server's desktop)"},
                          {"required", false}};
    return json::array(
        {{{"name", "plan_actions"},
          {"title", "Plan actions for a goal"},
          {"description",
           "Seed 001's planner prompt: the screen context (OCR text, compact tree, metadata; "
           "password fields redacted), the goal, and execute_plan's strict JSON schema. The "
           "model's answer is a plan for execute_plan."},
          {"arguments",
           json::array(
               {{{"name", "goal"}, {"description", "what the user wants done"}, {"required", true}},
                session})}},
         {{"name", "describe_screen"},
          {"title", "Describe the screen"},
          {"description",
           "The screen context (OCR text, compact tree, metadata; password fields redacted), "
           "asking for a description of what is on screen."},
          {"arguments", json::array({session})}}});
  }

  Result<json> Get(const std::string& name, const json& arguments) override {
    const std::string id = arguments.value("session", std::string(kDefaultSession));
    if (name == "plan_actions") {
      const std::string goal = arguments.value("goal", "");
      if (goal.empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "plan_actions needs the argument goal (what the user wants done)");
      }
      auto screen = ScreenContext(id);
      if (!screen.ok()) return screen.error();
      std::string text = std::string("SYSTEM: ") + kPlanInstruction +
                         " OUTPUT MUST BE STRICT JSON array matching the Action schema. Never "
                         "include commentary.\n\nAction schema (JSON Schema):\n" +
                         PlanSchema().dump() + "\n\nUSER: Here is the screen context:\n" +
                         screen->dump(2) +
                         "\n\nTASK: Identify the smallest set of actions to fulfill: \"" + goal +
                         "\". Only produce actions if you are >90% confident. If not, output "
                         "the steps you would take with args.requireConfirmation=true and the "
                         "doubt in args.metadata.reason, so that a person confirms them.";
      return Messages("Plan actions for: " + goal, std::move(text));
    }
    if (name == "describe_screen") {
      auto screen = ScreenContext(id);
      if (!screen.ok()) return screen.error();
      return Messages("Describe the screen",
                      "Here is the screen context (OCR + UI tree + metadata):\n" + screen->dump(2) +
                          "\n\nDescribe what is on this screen for someone who cannot see it: "
                          "the active application and window and what it is for, its main "
                          "controls with their states and values, and any message, error or "
                          "dialog shown. Refer to elements by their id= so they can be acted "
                          "on.");
    }
    return MakeError(ErrorCode::kInvalidArgument,
                     "unknown prompt \"" + name + "\" (prompts: plan_actions, describe_screen)");
  }

 private:
  static json Messages(std::string description, std::string text) {
    return {
        {"description", std::move(description)},
        {"messages", json::array({{{"role", "user"},
                                   {"content", {{"type", "text"}, {"text", std::move(text)}}}}})}};
  }

  // Seed 001's ScreenContextDto, redacted: observe never shows a password
  // field's value and read_text blanks password fields before OCR.
  Result<json> ScreenContext(const std::string& id) {
    if (auto st = context_.CheckSession(id); !st.ok()) {
      return MakeError(ErrorCode::kInvalidArgument, st.error().message);
    }
    const json session = Context::SessionArgs(id);
    auto observed = context_.CallTool("observe", session);
    if (!observed.ok()) return observed.error();
    json metadata = {{"session", id},
                     {"timestamp_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count()}};
    const json& s = observed->structured;
    metadata["display"] = s.value("display", "");
    if (s.contains("frame")) metadata["screen_bounds"] = s["frame"];
    json context = {{"tree", TextOf(*observed)}, {"metadata", std::move(metadata)}};
    auto read = context_.CallTool("read_text", session);
    if (read.ok()) {
      std::string text;  // read_text's lines, top to bottom
      for (const json& line : read->structured.value("lines", json::array())) {
        text += line.value("text", "") + "\n";
      }
      context["ocr"] = std::move(text);
    } else {
      context["ocr"] = nullptr;
      context["ocr_unavailable"] = read.error().message;
    }
    return context;
  }

  Context context_;
};

}  // namespace

std::shared_ptr<ResourceProvider> MakeResourceProvider(ContextSources sources) {
  return std::make_shared<UiscopeResources>(std::move(sources));
}

std::shared_ptr<PromptProvider> MakePromptProvider(ContextSources sources) {
  return std::make_shared<UiscopePrompts>(std::move(sources));
}

}  // namespace uiscope::mcp

#include "web/web_api.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/ascii.h"
#include "core/clock.h"
#include "core/format.h"
#include "engine/observe.h"
#include "engine/privacy.h"
#include "mcp/json_rpc.h"
#include "safety/policy_gate.h"

namespace uiscope::web {
namespace {

using nlohmann::json;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
               HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

mcp::HttpReply Binary(std::string content_type, std::string bytes) {
  mcp::HttpReply r;
  r.content_type = std::move(content_type);
  r.body = std::move(bytes);
  return r;
}

// How many audit entries a page shows at most.
constexpr int kDefaultAuditLimit = 200;
constexpr int kMaxAuditLimit = 5000;

}  // namespace

Query ParseQuery(std::string_view query) {
  Query out;
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view part = query.substr(start, end - start);
    start = end + 1;
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      out[PercentDecode(part)] = "";
    } else {
      out[PercentDecode(part.substr(0, eq))] = PercentDecode(part.substr(eq + 1));
    }
  }
  return out;
}

mcp::HttpReply JsonOk(const json& body) {
  mcp::HttpReply r;
  r.content_type = "application/json";
  r.body = mcp::DumpMessage(body);
  return r;
}

mcp::HttpReply JsonError(const Error& error) {
  mcp::HttpReply r =
      JsonOk(json{{"error", error.message}, {"code", std::string(ErrorCodeName(error.code))}});
  switch (error.code) {
    case ErrorCode::kInvalidArgument:
      r.status = 400;
      break;
    case ErrorCode::kNotFound:
      r.status = 404;
      break;
    case ErrorCode::kStale:
      r.status = 409;
      break;
    case ErrorCode::kDenied:
      r.status = 403;
      break;
    case ErrorCode::kUnavailable:
    case ErrorCode::kTimeout:
    case ErrorCode::kUnsupported:
      r.status = 503;
      break;
    case ErrorCode::kInternal:
      r.status = 500;
      break;
  }
  return r;
}

namespace {
Error Missing(const char* what) {
  return MakeError(ErrorCode::kUnavailable, std::string(what) + " is not available in this server");
}
}  // namespace

// --- Sessions and pixels -------------------------------------------------------

mcp::HttpReply WebApi::Sessions(const Query&) {
  if (services_.sessions == nullptr) return JsonError(Missing("the session registry"));
  auto list = services_.sessions->List();
  if (!list.ok()) return JsonError(list.error());
  json out = json::array();
  for (const DesktopInfo& d : *list) {
    json s = {{"id", d.id},
              {"display", d.display_name},
              {"backend", "x11 (Xvfb)"},
              {"width", d.width},
              {"height", d.height},
              {"alive", d.alive},
              {"problem", d.problem},
              {"started_at_ms", d.started_at_ms}};
    // The apps on its accessibility bus (one D-Bus call under its deadline).
    if (d.alive && services_.workspace != nullptr) {
      if (auto lease = services_.workspace->Acquire(d.id); lease.ok()) {
        if (auto apps = lease->accessibility->ListApps(); apps.ok()) {
          json names = json::array();
          for (const AppInfo& a : *apps) {
            names.push_back({{"name", a.name}, {"pid", a.pid}, {"toolkit", a.toolkit}});
          }
          s["apps"] = std::move(names);
        } else {
          s["apps_error"] = apps.error().message;
        }
      } else {
        s["apps_error"] = lease.error().message;
      }
    }
    out.push_back(std::move(s));
  }
  return JsonOk({{"sessions", out}});
}

Result<std::string> WebApi::DisplayOf(const std::string& id) {
  if (services_.sessions == nullptr) return Missing("the session registry");
  if (id.empty()) return MakeError(ErrorCode::kInvalidArgument, "name a session: ?session=ID");
  auto list = services_.sessions->List();
  if (!list.ok()) return list.error();
  for (const DesktopInfo& d : *list) {
    if (d.id != id) continue;
    if (!d.alive) return MakeError(ErrorCode::kUnavailable, "session " + id + ": " + d.problem);
    return d.display_name;
  }
  return MakeError(ErrorCode::kNotFound, "no session " + id + " (see /api/sessions)");
}

Result<std::unique_ptr<ScreenCapture>> WebApi::OpenCapture(const std::string& id,
                                                           const CaptureOptions& options) {
  if (services_.workspace == nullptr) return Missing("the sessions' screens");
  auto lease = services_.workspace->Acquire(id);
  if (!lease.ok()) return lease.error();
  if (lease->desktop == nullptr) {
    return MakeError(ErrorCode::kUnsupported,
                     "session " + id + " has no screen to capture (" + lease->display + ")");
  }
  return lease->desktop->OpenCapture(options);
}

Result<std::vector<Rect>> WebApi::HiddenAreas(const std::string& id) {
  // Without a workspace nothing is observed, so nothing is hidden either.
  if (services_.workspace == nullptr || !services_.hides_apps) return std::vector<Rect>{};
  auto lease = services_.workspace->Acquire(id);
  if (!lease.ok()) return lease.error();
  if (lease->observer == nullptr) return std::vector<Rect>{};
  const HiddenWindows hidden = HiddenWindows::Of(*lease->observer);
  if (hidden.empty()) return std::vector<Rect>{};  // no deny list: costs nothing
  auto windows = TopLevelWindows(*lease);
  if (!windows.ok()) return windows.error();
  return hidden.Regions(*windows);
}

mcp::HttpReply WebApi::Tiles(const Query&) {
  if (services_.sessions == nullptr) return JsonError(Missing("the session registry"));
  // Counted from here until the stream ends (or is dropped unrun: the
  // transport's call threads all busy).
  if (tile_streams_.fetch_add(1) >= options_.max_tile_streams) {
    tile_streams_.fetch_sub(1);
    mcp::HttpReply busy =
        JsonError(MakeError(ErrorCode::kUnavailable, "too many open session walls (" +
                                                         std::to_string(options_.max_tile_streams) +
                                                         "); close one in another tab or window"));
    busy.headers.emplace_back("Retry-After", "5");
    return busy;
  }
  struct Slot {
    std::atomic<int>& count;
    ~Slot() { count.fetch_sub(1); }
  };
  // Not make_shared<Slot>(Slot{...}): the temporary's destructor would give
  // the slot back at once.
  auto slot = std::shared_ptr<Slot>(new Slot{tile_streams_});
  mcp::HttpReply reply;
  reply.content_type = "text/event-stream";
  reply.headers = {{"Cache-Control", "no-store"}};
  // Runs on a call thread until the page goes: a write fails (or Alive's
  // keep-alive comment does) once the connection is closed.
  reply.stream = [this, slot](mcp::Outbound& out) {
    TileFeed feed(tiles_, options_.tile_width);
    std::vector<TileSource> sources;
    auto listed_at = std::chrono::steady_clock::now() - std::chrono::hours(1);
    int ticks = 0;
    while (out.Alive()) {
      const auto now = std::chrono::steady_clock::now();
      // The registry is read from files and /proc: once a second is enough
      // to see a session come or go.
      if (now - listed_at >= std::chrono::seconds(1)) {
        listed_at = now;
        std::vector<TileSource> fresh;
        if (auto list = services_.sessions->List(); list.ok()) {
          for (const DesktopInfo& d : *list) {
            if (!d.alive) continue;
            fresh.push_back({d.id, [this, id = d.id](const CaptureOptions& options) {
                               return OpenCapture(id, options);
                             }});
          }
        }
        bool same = fresh.size() == sources.size();
        for (size_t i = 0; same && i < fresh.size(); ++i) {
          same = fresh[i].session == sources[i].session;
        }
        sources = std::move(fresh);
        if (!same) {
          json ids = json::array();
          for (const auto& s : sources) ids.push_back(s.session);
          if (!out.Send({{"type", "sessions"}, {"sessions", ids}})) return;
        }
      }
      // A screen whose deny-listed areas cannot be known is shown black.
      const auto masks = [this](const std::string& session) {
        auto areas = HiddenAreas(session);
        return areas.ok() ? *areas : std::vector<Rect>{Rect{0, 0, 1 << 15, 1 << 15}};
      };
      for (const auto& c : feed.Tick(sources, masks)) {
        if (!out.Send({{"type", "tile"},
                       {"session", c.session},
                       {"version", c.version},
                       {"width", c.width},
                       {"height", c.height}})) {
          return;
        }
      }
      if (++ticks % 4 == 0 && feed.last_unchanged_cpu_ms() >= 0) {
        if (!out.Send({{"type", "stats"}, {"unchanged_tile_cpu_ms", feed.last_unchanged_cpu_ms()}}))
          return;
      }
      std::this_thread::sleep_for(options_.tile_interval);
    }
  };
  return reply;
}

mcp::HttpReply WebApi::TileImage(const Query& q) {
  auto it = q.find("session");
  if (it == q.end()) return JsonError(MakeError(ErrorCode::kInvalidArgument, "?session=ID"));
  auto tile = tiles_.Get(it->second);
  if (!tile) {
    return JsonError(MakeError(ErrorCode::kNotFound, "no tile of session " + it->second + " yet"));
  }
  return Binary("image/jpeg", std::move(tile->jpeg));
}

mcp::HttpReply WebApi::Screenshot(const Query& q) {
  const std::string id = q.count("session") ? q.at("session") : "";
  auto display = DisplayOf(id);
  if (!display.ok()) return JsonError(display.error());
  auto hidden = HiddenAreas(id);
  if (!hidden.ok()) return JsonError(hidden.error());
  CaptureOptions options;
  options.hashes = false;
  options.use_damage = false;
  auto capture = OpenCapture(id, options);
  if (!capture.ok()) return JsonError(capture.error());
  auto png = ScreenPng(**capture, *hidden);
  if (!png.ok()) return JsonError(png.error());
  return Binary("image/png", std::move(*png));
}

mcp::HttpReply WebApi::Tree(const Query& q) {
  if (services_.workspace == nullptr) return JsonError(Missing("the accessibility tree"));
  const std::string id = q.count("session") ? q.at("session") : "";
  if (auto display = DisplayOf(id); !display.ok()) return JsonError(display.error());
  auto lease = services_.workspace->Acquire(id);
  if (!lease.ok()) return JsonError(lease.error());
  ObserveRequest request;
  auto observed = lease->observer->Observe(request);
  if (!observed.ok()) return JsonError(observed.error());
  json nodes = json::array();
  for (const Node& n : observed->snapshot.roots) nodes.push_back(NodeToJson(n));
  const Frame& f = observed->snapshot.frame;
  return JsonOk({{"session", id},
                 {"frame", {{"width", f.width}, {"height", f.height}}},
                 {"nodes", nodes},
                 {"warnings", observed->warnings}});
}

// --- Confirmations -------------------------------------------------------------

mcp::HttpReply WebApi::Confirmations(const Query&) {
  if (!services_.confirmations) return JsonError(Missing("the confirmation store"));
  const int64_t now = UnixNowMs();
  auto list = services_.confirmations->List(/*pending_only=*/true, 0, now);
  if (!list.ok()) return JsonError(list.error());
  auto grants = services_.confirmations->LiveGrants(now);
  if (!grants.ok()) return JsonError(grants.error());
  json items = json::array();
  for (const auto& c : *list) {
    json j = safety::ConfirmationToJson(c);
    j["grantable"] = safety::IsGrantableRule(c.rule);
    items.push_back(std::move(j));
  }
  json live = json::array();
  for (const auto& g : *grants) live.push_back(safety::GrantToJson(g));
  return JsonOk({{"now_ms", now}, {"confirmations", items}, {"grants", live}});
}

namespace {

std::optional<Rect> RectFromJson(const json& j) {
  if (!j.is_object()) return std::nullopt;
  for (const char* k : {"x", "y", "w", "h"}) {
    if (!j.contains(k) || !j[k].is_number_integer()) return std::nullopt;
  }
  return Rect{j["x"].get<int>(), j["y"].get<int>(), j["w"].get<int>(), j["h"].get<int>()};
}

const Node* FindById(const std::vector<Node>& roots, const std::string& id) {
  for (const Node& n : roots) {
    if (n.id == id) return &n;
    if (const Node* found = FindById(n.children, id)) return found;
  }
  return nullptr;
}

// A point target is shown as a box this many pixels a side around it.
constexpr int kPointBox = 16;

}  // namespace

mcp::HttpReply WebApi::Crop(const Query& q) {
  if (!services_.confirmations) return JsonError(Missing("the confirmation store"));
  // Not ?token=: that name is the page URL's (the server's token).
  auto it = q.find("confirmation");
  if (it == q.end()) {
    return JsonError(MakeError(ErrorCode::kInvalidArgument, "?confirmation=TOKEN"));
  }
  auto c = services_.confirmations->Get(it->second, UnixNowMs());
  if (!c.ok()) return JsonError(c.error());
  if (c->display.empty()) {
    return JsonError(MakeError(ErrorCode::kUnavailable, "the held action's display is unknown"));
  }
  // The desktop to ask about deny-listed windows: the session showing that
  // display, else the default desktop when it is $DISPLAY. Never Acquire("")
  // blindly: without a DISPLAY that starts a headless desktop.
  std::string session = c->session;
  bool known = !session.empty();
  if (!known && services_.sessions != nullptr) {
    if (auto list = services_.sessions->List(); list.ok()) {
      for (const DesktopInfo& d : *list) {
        if (d.display_name == c->display) {
          session = d.id;
          known = true;
        }
      }
    }
  }
  const char* env_display = std::getenv("DISPLAY");
  if (!known && !(env_display != nullptr && c->display == env_display)) {
    return JsonError(
        MakeError(ErrorCode::kUnavailable, "display " + c->display + " is not a uiscope session"));
  }
  std::vector<CropBox> boxes;
  // An ambiguous name: every candidate, numbered as the page lists them.
  if (c->candidates.is_array()) {
    int i = 1;
    for (const json& cand : c->candidates) {
      if (auto r = RectFromJson(cand.value("bounds", json()))) {
        boxes.push_back({*r, std::to_string(i)});
      }
      ++i;
    }
  }
  const json& args = c->arguments;
  if (boxes.empty() && args.is_object() && args.contains("x") && args.contains("y") &&
      args["x"].is_number() && args["y"].is_number()) {
    const int x = args["x"].get<int>();
    const int y = args["y"].get<int>();
    boxes.push_back({Rect{x - kPointBox / 2, y - kPointBox / 2, kPointBox, kPointBox}, "x,y"});
  }
  // An element ID: its box in the session's tree now.
  std::string id;
  for (const char* k : {"id", "target"}) {
    if (args.is_object() && args.contains(k) && args[k].is_string())
      id = args[k].get<std::string>();
  }
  if (boxes.empty() && !id.empty() && services_.workspace != nullptr) {
    if (auto lease = services_.workspace->Acquire(session); lease.ok()) {
      if (auto observed = lease->observer->Observe(ObserveRequest{}); observed.ok()) {
        if (const Node* n = FindById(observed->snapshot.roots, id); n && n->bounds) {
          boxes.push_back({*n->bounds, id});
        }
      }
    }
  }
  if (boxes.empty()) {
    return JsonError(MakeError(ErrorCode::kNotFound,
                               "confirmation " + c->token + " names no place on the screen"));
  }
  auto hidden = HiddenAreas(session);
  if (!hidden.ok()) return JsonError(hidden.error());
  CaptureOptions options;
  options.hashes = false;
  options.use_damage = false;
  auto capture = OpenCapture(session, options);
  if (!capture.ok()) return JsonError(capture.error());
  auto png = CropPng(**capture, boxes, *hidden);
  if (!png.ok()) return JsonError(png.error());
  return Binary("image/png", std::move(*png));
}

mcp::HttpReply WebApi::Decide(const json& body) {
  if (!services_.confirmations) return JsonError(Missing("the confirmation store"));
  if (!body.is_object() || !body.contains("token") || !body["token"].is_string() ||
      !body.contains("decision") || !body["decision"].is_string()) {
    return JsonError(MakeError(ErrorCode::kInvalidArgument,
                               "send {\"token\": T, \"decision\": \"approve\"|\"deny\", "
                               "\"grant\"?: \"30m\"}"));
  }
  const std::string decision = body["decision"].get<std::string>();
  if (decision != "approve" && decision != "deny") {
    return JsonError(
        MakeError(ErrorCode::kInvalidArgument, "decision must be \"approve\" or \"deny\""));
  }
  // A grant that is not a string would otherwise be read as none: the
  // person meant to give one, so nothing is decided rather than a bare
  // approval.
  if (body.contains("grant") && !body["grant"].is_null() && !body["grant"].is_string()) {
    return JsonError(MakeError(ErrorCode::kInvalidArgument,
                               "\"grant\" must be a string: a duration, a number of actions or "
                               "both (\"30m\", \"10\", \"30m,10\"); nothing was decided"));
  }
  std::optional<safety::GrantScope> grant;
  if (body.contains("grant") && body["grant"].is_string() &&
      !body["grant"].get<std::string>().empty()) {
    if (decision != "approve") {
      return JsonError(MakeError(ErrorCode::kInvalidArgument, "a grant goes with approve"));
    }
    auto scope = safety::ParseGrantScope(body["grant"].get<std::string>());
    if (!scope.ok()) return JsonError(scope.error());
    grant = *scope;
  }
  auto decided = safety::DecideConfirmation(*services_.confirmations, services_.audit.get(),
                                            body["token"].get<std::string>(), decision == "approve",
                                            "a person, on the web page", UnixNowMs(), grant);
  if (!decided.ok()) return JsonError(decided.error());
  return JsonOk(safety::ConfirmationToJson(*decided));
}

// --- Audit and memory ----------------------------------------------------------

mcp::HttpReply WebApi::Audit(const Query& q) {
  if (!services_.audit) return JsonError(Missing("the audit log"));
  memory::AuditQuery query;
  const int64_t now = UnixNowMs();
  auto get = [&](const char* k) { return q.count(k) ? q.at(k) : std::string(); };
  if (!get("since").empty()) {
    auto since = memory::ParseSince(get("since"), now);
    if (!since.ok()) return JsonError(since.error());
    query.since_ms = *since;
  }
  query.tool = get("tool");
  query.decision = get("decision");
  int limit = kDefaultAuditLimit;
  if (!get("limit").empty()) {
    const std::string l = get("limit");
    if (l.size() > 6 || l.find_first_not_of("0123456789") != std::string::npos || l == "0") {
      return JsonError(MakeError(ErrorCode::kInvalidArgument, "limit must be a number from 1 to " +
                                                                  std::to_string(kMaxAuditLimit)));
    }
    limit = std::min(std::stoi(l), kMaxAuditLimit);
  }
  const std::string app = AsciiLower(get("app"));
  const std::string session = get("session");
  // An action on a session's display counts as the session's also when the
  // agent reached it as its default desktop (no session ID in the entry).
  std::string session_display;
  if (!session.empty()) {
    if (auto d = DisplayOf(session); d.ok()) session_display = *d;
  }
  // The app and session are matched here (the log has no index on them):
  // ask for all entries then, and keep the last `limit` that match.
  query.limit = app.empty() && session.empty() ? limit : 0;
  auto entries = services_.audit->Query(query);
  if (!entries.ok()) return JsonError(entries.error());
  json out = json::array();
  for (const auto& e : *entries) {
    if (!app.empty() && AsciiLower(e.app) != app) continue;
    if (!session.empty() && e.session != session &&
        (session_display.empty() || e.display != session_display)) {
      continue;
    }
    out.push_back(safety::AuditEntryToJson(e));
  }
  if (static_cast<int>(out.size()) > limit) out.erase(out.begin(), out.end() - limit);
  return JsonOk({{"entries", out}});
}

mcp::HttpReply WebApi::Memory(const Query& q) {
  if (!services_.memory) return JsonError(Missing("learned memory"));
  if (auto it = q.find("app"); it != q.end()) {
    auto exported = services_.memory->Export(it->second);
    if (!exported.ok()) return JsonError(exported.error());
    return JsonOk(*exported);
  }
  auto apps = services_.memory->ListApps();
  if (!apps.ok()) return JsonError(apps.error());
  json out = json::array();
  for (const auto& a : *apps) out.push_back(memory::AppSummaryToJson(a));
  return JsonOk({{"apps", out}});
}

mcp::HttpReply WebApi::Forget(const json& body) {
  if (!services_.memory) return JsonError(Missing("learned memory"));
  if (!body.is_object() || !body.contains("app") || !body["app"].is_string() ||
      body["app"].get<std::string>().empty()) {
    return JsonError(MakeError(ErrorCode::kInvalidArgument, "send {\"app\": NAME}"));
  }
  auto forgot = services_.memory->Forget(body["app"].get<std::string>());
  if (!forgot.ok()) return JsonError(forgot.error());
  return JsonOk({{"app", body["app"]}, {"forgotten_targets", *forgot}});
}

}  // namespace uiscope::web

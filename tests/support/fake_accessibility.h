// FakeAccessibility (tests only): an Accessibility that serves trees built
// from JSON fixtures and records every request, so the engine is tested
// without a display (ninja's VirtualFileSystem idea). Acting on elements is
// recorded too, and by default the fake tree reacts as a simple app would
// (see `react`).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "platform/accessibility.h"

namespace uiscope::test {

// Builds a node from the fixture JSON shape:
//   {"role": "button", "name": "OK", "value": "...", "bounds": [x, y, w, h],
//    "states": ["focused"], "actions": ["click"], "children": [...]}
inline Node NodeFromFixtureJson(const nlohmann::json& j, const std::string& app = "", int pid = 0) {
  Node n;
  n.role = RoleFromName(j.value("role", "unknown"));
  n.name = j.value("name", "");
  n.value = j.value("value", "");
  n.description = j.value("description", "");
  n.app = app;
  n.pid = pid;
  if (j.contains("bounds")) {
    const auto& b = j["bounds"];
    n.bounds = Rect{b[0].get<int>(), b[1].get<int>(), b[2].get<int>(), b[3].get<int>()};
  }
  n.states.Set(State::kEnabled);
  n.states.Set(State::kShowing);
  for (const auto& s : j.value("states", nlohmann::json::array())) {
    std::string name = s.get<std::string>();
    for (uint32_t bit = 1; bit != 0 && bit <= static_cast<uint32_t>(State::kStale); bit <<= 1) {
      if (StateName(static_cast<State>(bit)) == name) n.states.Set(static_cast<State>(bit));
    }
    if (name == "disabled") n.states.Set(State::kEnabled, false);
  }
  for (const auto& a : j.value("actions", nlohmann::json::array())) {
    n.actions.push_back(a.get<std::string>());
  }
  for (const auto& c : j.value("children", nlohmann::json::array())) {
    n.children.push_back(NodeFromFixtureJson(c, app, pid));
  }
  return n;
}

// Loads `{"apps": [{"name": ..., "pid": ..., "children": [...]}]}`.
inline std::vector<Node> LoadFixtureTree(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str());
  std::vector<Node> apps;
  for (const auto& a : j["apps"]) {
    Node app = NodeFromFixtureJson(a, a.value("name", ""), a.value("pid", 0));
    app.role = Role::kApplication;
    apps.push_back(std::move(app));
  }
  return apps;
}

// Gives every node of `apps` an object reference as the AT-SPI backend
// does: the app's bus name (":1.<app name>", as ListApps says) and a path
// numbered in preorder, so ID anchoring (core/id_anchors.h) applies.
inline void GiveBackendRefs(std::vector<Node>& apps) {
  for (Node& app : apps) {
    int next = 0;
    const std::string owner = ":1." + app.name;
    app.ref = BackendRef{owner, "/org/a11y/atspi/accessible/root"};
    ForEachNodeMutable(app.children, [&](Node& n, int) {
      n.ref = BackendRef{owner, "/org/a11y/atspi/accessible/" + std::to_string(++next)};
    });
  }
}

inline void PruneNotShowing(std::vector<Node>& nodes) {
  std::erase_if(nodes, [](const Node& n) { return !n.Has(State::kShowing); });
  for (Node& n : nodes) PruneNotShowing(n.children);
}

class FakeAccessibility final : public Accessibility {
 public:
  explicit FakeAccessibility(std::vector<Node> apps) : apps_(std::move(apps)) {}

  void set_apps(std::vector<Node> apps) { apps_ = std::move(apps); }
  std::vector<Node>& apps() { return apps_; }
  const std::vector<TreeRequest>& requests() const { return requests_; }

  Result<std::vector<AppInfo>> ListApps() override {
    std::vector<AppInfo> out;
    for (const Node& a : apps_) out.push_back(AppInfo{a.name, a.pid, "fake", "1", BusOf(a)});
    return out;
  }

  // --- Acting ------------------------------------------------------------
  // Calls in order: "do_action Login click", "set_text Email 8 chars",
  // "set_value Volume 80", "grab_focus Email", "capabilities Email".
  const std::vector<std::string>& calls() const { return calls_; }
  // By node name; otherwise derived from the node: its actions, editable
  // text for text fields, a value 0..100 for sliders and spin buttons,
  // Component always.
  std::map<std::string, ElementCapabilities> capabilities;
  // When true (the default), the served tree changes as an app's would: an
  // action on a check box toggles it, set_text / set_value change the value,
  // grab_focus moves the focused state.
  bool react = true;
  // Runs after each acting call, with the node as the engine sent it.
  std::function<void(FakeAccessibility&, const std::string& call, const Node& node)> on_call;
  // The next acting call fails with this error (then it is cleared).
  std::optional<Error> fail_next;

  // The served node with this role and name (first in preorder), or null.
  Node* Find(Role role, const std::string& name) {
    Node* found = nullptr;
    ForEachNodeMutable(apps_, [&](Node& n, int) {
      if (found == nullptr && n.role == role && n.name == name) found = &n;
    });
    return found;
  }

  Result<ElementCapabilities> Capabilities(const Node& node, std::chrono::milliseconds) override {
    if (auto st = Call("capabilities " + node.name, node); !st.ok()) return st.error();
    if (auto it = capabilities.find(node.name); it != capabilities.end()) return it->second;
    ElementCapabilities c;
    c.actions = node.actions;
    c.component = true;
    c.text = node.role == Role::kTextField || node.role == Role::kTextArea;
    c.editable_text = c.text;
    if (node.role == Role::kSlider || node.role == Role::kSpinButton) {
      c.value = true;
      c.maximum = 100;
      c.current = std::atof(node.value.c_str());
    }
    return c;
  }
  Status DoAction(const Node& node, std::string_view action, std::chrono::milliseconds) override {
    if (std::find(node.actions.begin(), node.actions.end(), action) == node.actions.end()) {
      return MakeError(ErrorCode::kNotFound, "no action " + std::string(action));
    }
    if (auto st = Call("do_action " + node.name + " " + std::string(action), node); !st.ok()) {
      return st;
    }
    if (react && node.role == Role::kCheckBox) {
      if (Node* n = Find(node.role, node.name))
        n->states.Set(State::kChecked, !n->Has(State::kChecked));
    }
    return Done(node);
  }
  Status SetText(const Node& node, std::string_view text, std::chrono::milliseconds) override {
    if (auto st =
            Call("set_text " + node.name + " " + std::to_string(text.size()) + " chars", node);
        !st.ok()) {
      return st;
    }
    if (react) {
      if (Node* n = Find(node.role, node.name)) n->value = std::string(text);
    }
    return Done(node);
  }
  Status SetValue(const Node& node, double value, std::chrono::milliseconds) override {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", value);
    if (auto st = Call("set_value " + node.name + " " + buf, node); !st.ok()) return st;
    if (react) {
      if (Node* n = Find(node.role, node.name)) n->value = buf;
    }
    return Done(node);
  }
  Status GrabFocus(const Node& node, std::chrono::milliseconds) override {
    if (auto st = Call("grab_focus " + node.name, node); !st.ok()) return st;
    if (react) {
      ForEachNodeMutable(apps_, [](Node& n, int) { n.states.Set(State::kFocused, false); });
      if (Node* n = Find(node.role, node.name)) n->states.Set(State::kFocused);
    }
    return Done(node);
  }

  // When true, nodes not showing are served only to a request with
  // include_hidden, as the real backends do. Off by default: many tests
  // build nodes without the showing state.
  bool honour_include_hidden = false;

  // Runs before each tree is served: an app changing on its own time.
  std::function<void(FakeAccessibility&)> before_tree;

  // Events counted per process (EventsFrom), as a backend with a mirror
  // counts them; off by default, as a backend that does not listen. A test
  // adds to `events` where its app would send one.
  bool counts_events = false;
  std::map<int, uint64_t> events;
  std::optional<uint64_t> EventsFrom(int pid) override {
    if (!counts_events) return std::nullopt;
    return events[pid];
  }

  // Processes that do not answer, as a stopped app would not: a walk of one
  // spends the request's timeout (counted in waited_ms, not slept) and
  // leaves it out as not answering; Probe finds it silent.
  std::set<int> hung;
  // Said with every tree, as a backend says what it cut of an app's tree.
  std::vector<std::string> tree_notes;
  int64_t waited_ms = 0;
  // Probe calls made, one line each: "probe gedit:silent".
  std::vector<std::string> probes;

  std::vector<Liveness> Probe(const std::vector<AppInfo>& apps,
                              std::chrono::milliseconds timeout) override {
    std::vector<Liveness> out;
    bool waited = false;
    for (const AppInfo& info : apps) {
      const Node* a = nullptr;
      for (const Node& n : apps_) {
        if (BusOf(n) == info.bus_name) a = &n;
      }
      Liveness l = a == nullptr         ? Liveness::kGone
                   : hung.count(a->pid) ? Liveness::kSilent
                                        : Liveness::kAnswers;
      waited = waited || l == Liveness::kSilent;
      probes.push_back("probe " + info.name + ":" +
                       (l == Liveness::kGone     ? "gone"
                        : l == Liveness::kSilent ? "silent"
                                                 : "answers"));
      out.push_back(l);
    }
    if (waited) waited_ms += timeout.count();
    return out;
  }
  static std::string BusOf(const Node& app) { return ":1." + app.name; }

  Result<TreeResult> Tree(const TreeRequest& request) override {
    requests_.push_back(request);
    if (before_tree) before_tree(*this);
    TreeResult result;
    result.warnings = tree_notes;
    for (const Node& a : apps_) {
      if (request.pid != 0 && a.pid != request.pid) continue;
      if (!request.app_name.empty() && a.name != request.app_name) continue;
      if (std::find(request.skip_buses.begin(), request.skip_buses.end(), BusOf(a)) !=
          request.skip_buses.end()) {
        continue;
      }
      if (hung.count(a.pid)) {
        waited_ms += request.timeout.count();
        AppInfo info{a.name, a.pid, "fake", "1", BusOf(a)};
        if (request.pid != 0 || !request.app_name.empty()) {
          return MakeError(ErrorCode::kTimeout, "application " + a.name + " (pid " +
                                                    std::to_string(a.pid) + ") is not answering");
        }
        result.unanswered.push_back(info);
        result.warnings.push_back("skipped " + a.name + " (pid " + std::to_string(a.pid) +
                                  "): it is not answering");
        continue;
      }
      if (request.skip_app && request.skip_app(a.name)) {
        if (request.pid != 0 || !request.app_name.empty()) {
          return MakeError(ErrorCode::kDenied, "application \"" + a.name + "\" is denied");
        }
        continue;
      }
      result.apps.push_back(a);
      if (honour_include_hidden && !request.include_hidden) {
        PruneNotShowing(result.apps.back().children);
      }
    }
    if (result.apps.empty() && (request.pid != 0 || !request.app_name.empty())) {
      return MakeError(ErrorCode::kNotFound,
                       "no accessible application \"" + request.app_name + "\"");
    }
    return result;
  }

 private:
  Status Call(std::string line, const Node&) {
    if (fail_next) {
      Error e = *fail_next;
      fail_next.reset();
      return e;
    }
    calls_.push_back(std::move(line));
    return OkStatus();
  }
  Status Done(const Node& node) {
    if (on_call) on_call(*this, calls_.back(), node);
    return OkStatus();
  }

  std::vector<Node> apps_;
  std::vector<TreeRequest> requests_;
  std::vector<std::string> calls_;
};

}  // namespace uiscope::test

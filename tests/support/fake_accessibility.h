// FakeAccessibility (tests only): an Accessibility that serves trees built
// from JSON fixtures and records every request, so the engine is tested
// without a display (ninja's VirtualFileSystem idea).
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
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
    for (uint32_t bit = 1; bit != 0 && bit <= static_cast<uint32_t>(State::kDefunct); bit <<= 1) {
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

class FakeAccessibility final : public Accessibility {
 public:
  explicit FakeAccessibility(std::vector<Node> apps) : apps_(std::move(apps)) {}

  void set_apps(std::vector<Node> apps) { apps_ = std::move(apps); }
  std::vector<Node>& apps() { return apps_; }
  const std::vector<TreeRequest>& requests() const { return requests_; }

  Result<std::vector<AppInfo>> ListApps() override {
    std::vector<AppInfo> out;
    for (const Node& a : apps_) out.push_back(AppInfo{a.name, a.pid, "fake", "1", ":1." + a.name});
    return out;
  }

  Result<TreeResult> Tree(const TreeRequest& request) override {
    requests_.push_back(request);
    TreeResult result;
    for (const Node& a : apps_) {
      if (request.pid != 0 && a.pid != request.pid) continue;
      if (!request.app_name.empty() && a.name != request.app_name) continue;
      if (request.skip_app && request.skip_app(a.name)) {
        if (request.pid != 0 || !request.app_name.empty()) {
          return MakeError(ErrorCode::kDenied, "application \"" + a.name + "\" is denied");
        }
        continue;
      }
      result.apps.push_back(a);
    }
    if (result.apps.empty() && (request.pid != 0 || !request.app_name.empty())) {
      return MakeError(ErrorCode::kNotFound,
                       "no accessible application \"" + request.app_name + "\"");
    }
    return result;
  }

 private:
  std::vector<Node> apps_;
  std::vector<TreeRequest> requests_;
};

}  // namespace uiscope::test

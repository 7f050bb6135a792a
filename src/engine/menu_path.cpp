#include "engine/menu_path.h"

#include <algorithm>
#include <set>
#include <thread>

#include "core/ascii.h"
#include "core/ids.h"
#include "core/shortcuts.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxSteps = 8;

// What a menu level can hold: entries, and the buttons of popovers.
bool IsMenuLike(Role role) {
  switch (role) {
    case Role::kMenu:
    case Role::kMenuItem:
    case Role::kCheckMenuItem:
    case Role::kRadioMenuItem:
    case Role::kButton:
    case Role::kToggleButton:
    case Role::kCheckBox:
    case Role::kRadioButton:
      return true;
    default:
      return false;
  }
}

const Node* FindApp(const std::vector<Node>& roots, std::string_view app) {
  for (const Node& r : roots) {
    if (r.role == Role::kApplication && EqualsIgnoringCase(r.name, app)) return &r;
  }
  return nullptr;
}

bool Showing(const Node& n) { return n.Has(State::kShowing) && !n.id.empty(); }

// The top level: the menu bars' menus first, else every menu-like element
// shown in the app (a header bar's "Menu" button).
std::vector<const Node*> TopLevel(const Node& app) {
  std::vector<const Node*> bar;
  std::vector<const Node*> any;
  ForEachNode(app.children, [&](const Node& n, int) {
    if (n.role == Role::kMenuBar) {
      for (const Node& c : n.children) {
        if (Showing(c) && IsMenuLike(c.role)) bar.push_back(&c);
      }
    } else if (Showing(n) && IsMenuLike(n.role) && !n.name.empty()) {
      any.push_back(&n);
    }
  });
  if (!bar.empty()) {
    bar.insert(bar.end(), any.begin(), any.end());
    return bar;
  }
  return any;
}

// A level below `opened`: shown entries under it, plus menu-like elements
// shown now that were not shown before it was clicked.
std::vector<const Node*> Level(const Node& app, const std::string& opened,
                               const std::set<std::string>& shown_before) {
  std::vector<const Node*> out;
  std::set<std::string> seen;
  ForEachNode(app.children, [&](const Node& n, int) {
    if (n.id != opened) return;
    ForEachNode(n.children, [&](const Node& c, int) {
      if (Showing(c) && IsMenuLike(c.role) && !c.name.empty() && seen.insert(c.id).second) {
        out.push_back(&c);
      }
    });
  });
  ForEachNode(app.children, [&](const Node& n, int) {
    if (Showing(n) && IsMenuLike(n.role) && !n.name.empty() && !shown_before.count(n.id) &&
        seen.insert(n.id).second) {
      out.push_back(&n);
    }
  });
  return out;
}

std::set<std::string> ShownIds(const Node& app) {
  std::set<std::string> out;
  ForEachNode(app.children, [&](const Node& n, int) {
    if (Showing(n) && IsMenuLike(n.role)) out.insert(n.id);
  });
  return out;
}

const Node* Pick(const std::vector<const Node*>& items, const std::string& step) {
  const std::string want = ActionKey(step);
  for (const Node* n : items) {
    if (ActionKey(n->name) == want) return n;
  }
  return nullptr;
}

std::string Names(const std::vector<const Node*>& items) {
  std::vector<std::string> names;
  for (const Node* n : items) {
    std::string name = n->name;
    while (!name.empty() && name.back() == ' ') name.pop_back();  // accelerator padding
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "\"" : ", \"") + n + "\"";
  return out.empty() ? "none" : out;
}

}  // namespace

Result<std::vector<std::string>> ParseMenuPath(std::string_view path) {
  std::vector<std::string> steps;
  size_t start = 0;
  while (true) {
    const size_t end = path.find('>', start);
    std::string_view part = path.substr(start, end == std::string_view::npos ? path.npos : end - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "menu path \"" + std::string(path) +
                           "\" has an empty step; write it as \"File > Save As…\"");
    }
    steps.emplace_back(part);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (steps.size() > kMaxSteps) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "menu path has " + std::to_string(steps.size()) + " steps; at most " +
                         std::to_string(kMaxSteps));
  }
  return steps;
}

Result<MenuResult> WalkMenuPath(Workspace::Lease& lease, const MenuRequest& request) {
  if (request.app.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "menu: name the application (--app NAME)");
  }
  if (request.steps.empty() || request.steps.size() > kMaxSteps) {
    return MakeError(ErrorCode::kInvalidArgument, "menu: give a path such as \"File > Save As…\"");
  }
  MenuResult result;
  result.app = request.app;
  ObserveRequest observe;
  observe.app = request.app;
  observe.timeout = request.timeout;

  int opened_levels = 0;
  auto act = [&](ActionRequest r, bool last) -> Result<ActionResult> {
    r.timeout = request.timeout;
    if (r.kind == ActionKind::kClick) r.via = request.via;
    r.confirmation_token = request.confirmation_token;
    r.arguments = request.arguments;
    r.verify = request.verify;
    if (!last) r.verify.settle = std::min(r.verify.settle, std::chrono::milliseconds(150));
    r.verify.tree_timeout = request.timeout;
    return PerformAction(lease, r);
  };
  // Fail closed: whatever was opened is closed again.
  auto close_opened = [&] {
    for (int i = 0; i < opened_levels; ++i) {
      ActionRequest esc;
      esc.kind = ActionKind::kPressKeys;
      esc.keys = {"Escape"};
      (void)act(esc, false);
    }
    opened_levels = 0;
  };

  std::string opened_id;
  std::set<std::string> shown_before;
  for (size_t i = 0; i < request.steps.size(); ++i) {
    const std::string& step = request.steps[i];
    const bool last = i + 1 == request.steps.size();
    const Node* item = nullptr;
    std::vector<const Node*> items;
    Observation obs;
    const auto deadline = Clock::now() + request.timeout;
    while (true) {
      auto now = lease.observer->Observe(observe);
      if (!now.ok()) {
        close_opened();
        return now.error();
      }
      obs = std::move(now).value();
      const Node* app = FindApp(obs.snapshot.roots, request.app);
      if (app == nullptr) {
        close_opened();
        return MakeError(ErrorCode::kNotFound, "no application \"" + request.app +
                                                   "\" with an accessibility tree on this desktop");
      }
      result.app = app->name;
      items = i == 0 ? TopLevel(*app) : Level(*app, opened_id, shown_before);
      item = Pick(items, step);
      // The first level is there at once; the others appear as the app draws them.
      if (item != nullptr || i == 0 || Clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    if (item == nullptr) {
      close_opened();
      std::string where = i == 0 ? "at the top level of " + result.app
                                 : "under \"" + request.steps[i - 1] + "\"";
      return MakeError(ErrorCode::kNotFound, "menu: no \"" + step + "\" " + where +
                                                 "; the items there: " + Names(items));
    }
    shown_before = ShownIds(*FindApp(obs.snapshot.roots, request.app));
    opened_id = item->id;
    result.path.push_back(item->name);
    while (!result.path.back().empty() && result.path.back().back() == ' ') result.path.back().pop_back();
    ActionRequest click;
    click.kind = ActionKind::kClick;
    click.target.id = item->id;
    auto done = act(click, last);
    if (!done.ok()) {
      close_opened();
      return done.error();
    }
    result.steps.push_back(*done);
    if (!done->performed) {
      close_opened();
      return result;
    }
    if (!last) ++opened_levels;
  }
  result.performed = true;
  return result;
}

nlohmann::json MenuResultToJson(const MenuResult& result) {
  nlohmann::json steps = nlohmann::json::array();
  for (const ActionResult& s : result.steps) steps.push_back(ActionResultToJson(s));
  std::string path;
  for (const std::string& p : result.path) path += (path.empty() ? "" : " > ") + p;
  return {{"app", result.app}, {"path", path}, {"performed", result.performed}, {"steps", steps}};
}

}  // namespace uiscope

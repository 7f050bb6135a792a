#include "engine/menu_path.h"

#include <algorithm>
#include <set>
#include <thread>

#include "core/app_name.h"
#include "core/ascii.h"
#include "core/ids.h"
#include "core/node.h"
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

bool Showing(const Node& n) { return n.Has(State::kShowing) && !n.id.empty(); }

// A plain item: one that runs a command and opens no menu (GTK 3 and Qt
// give an item with a submenu the role menu, with the submenu as its child).
bool LeafItem(const Node& n) {
  const bool item = n.role == Role::kMenuItem || n.role == Role::kCheckMenuItem ||
                    n.role == Role::kRadioMenuItem;
  return item && n.children.empty() && !n.Has(State::kExpandable);
}

// Greyed out by its toolkit: an item, or a submenu, whose own state lacks
// "enabled" (core/node.h KnownDisabled; a submenu is no interactive role).
bool Greyed(const Node& n) {
  if (KnownDisabled(n)) return true;
  return n.role == Role::kMenu && (n.source == Source::kAx || n.source == Source::kMerged) &&
         !n.Has(State::kEnabled);
}

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
  // The menu bars' menus first, each element once.
  std::set<std::string> seen;
  std::vector<const Node*> out;
  for (const Node* n : bar) {
    if (seen.insert(n->id).second) out.push_back(n);
  }
  for (const Node* n : any) {
    if (seen.insert(n->id).second) out.push_back(n);
  }
  return out;
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

std::vector<const Node*> PickAll(const std::vector<const Node*>& items, const std::string& step) {
  const std::string want = ActionKey(step);
  std::vector<const Node*> out;
  for (const Node* n : items) {
    if (ActionKey(n->name) == want) out.push_back(n);
  }
  return out;
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
    std::string_view part =
        path.substr(start, end == std::string_view::npos ? path.npos : end - start);
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
    return MakeError(ErrorCode::kInvalidArgument, "menu path has " + std::to_string(steps.size()) +
                                                      " steps; at most " +
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
  // Each Escape is an action like any other (gated, audited): "" when all
  // were pressed, else why the menus stay open.
  auto close_opened = [&]() -> std::string {
    std::string left_open;
    for (int i = 0; i < opened_levels && left_open.empty(); ++i) {
      ActionRequest esc;
      esc.kind = ActionKind::kPressKeys;
      esc.keys = {"Escape"};
      auto pressed = act(esc, false);
      if (!pressed.ok()) {
        left_open = pressed.error().message;
      } else if (!pressed->performed) {
        left_open = "Escape was not pressed: " + pressed->decision.reason;
      }
    }
    opened_levels = 0;
    return left_open;
  };

  // Observes the app (waiting, with `wait`, for `step` to show) and returns
  // the elements of level `i` named `step`, the names there, and what is
  // shown now.
  struct View {
    std::vector<std::pair<std::string, std::string>> matches;  // ID, name; greyed ones left out
    int greyed = 0;  // elements named `step` that are greyed out
    int items = 0;   // of the matches, plain items that open no menu (LeafItem)
    std::string names;
    bool empty = true;  // nothing at all shows at this level
    std::set<std::string> shown;
  };
  // `leaves_skipped`: the step is not the last, so an item that opens no
  // menu is not one of its matches (clicking it would run its command).
  auto look = [&](size_t i, const std::string& opened, const std::set<std::string>& before,
                  const std::string& step, bool wait, bool leaves_skipped) -> Result<View> {
    const auto deadline = Clock::now() + request.timeout;
    while (true) {
      auto now = lease.observer->Observe(observe);
      if (!now.ok()) return now.error();
      const Node* app = FindAppNode(now->snapshot.roots, request.app);
      if (app == nullptr) {
        return MakeError(ErrorCode::kNotFound, "no application \"" + request.app +
                                                   "\" with an accessibility tree on this desktop");
      }
      result.app = app->name;
      const std::vector<const Node*> items = i == 0 ? TopLevel(*app) : Level(*app, opened, before);
      View view;
      for (const Node* n : PickAll(items, step)) {
        if (Greyed(*n)) {
          ++view.greyed;
        } else if (leaves_skipped && LeafItem(*n)) {
          ++view.items;
        } else {
          view.matches.push_back({n->id, n->name});
        }
      }
      // The first level is there at once; the others appear as the app
      // draws them. A greyed item will not become enabled while its menu
      // is open: no waiting for it.
      if (!view.matches.empty() || view.greyed > 0 || view.items > 0 || !wait ||
          Clock::now() >= deadline) {
        view.names = Names(items);
        view.empty = items.empty();
        view.shown = ShownIds(*app);
        return view;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
  };
  auto fail = [&](Error e) -> Result<MenuResult> {
    const std::string left_open = close_opened();
    if (!left_open.empty()) e.message += "; the menus it opened are still open: " + left_open;
    return e;
  };

  std::string opened_id;
  std::set<std::string> shown_before;
  for (size_t i = 0; i < request.steps.size(); ++i) {
    const std::string& step = request.steps[i];
    const bool last = i + 1 == request.steps.size();
    auto view = look(i, opened_id, shown_before, step, i > 0, !last);
    if (!view.ok()) return fail(view.error());
    if (view->matches.empty()) {
      const std::string where =
          i == 0 ? "at the top level of " + result.app : "under \"" + request.steps[i - 1] + "\"";
      if (view->greyed > 0) {
        return fail(MakeError(ErrorCode::kUnsupported,
                              "menu: \"" + step + "\" " + where +
                                  " is disabled (its application greys it out): nothing was "
                                  "chosen. Do what enables it "
                                  "first"));
      }
      if (view->items > 0) {
        return fail(MakeError(ErrorCode::kInvalidArgument,
                              "menu: \"" + step + "\" " + where +
                                  " is an item, not a menu: nothing was clicked (the path goes "
                                  "on under it with \"" +
                                  request.steps[i + 1] + "\"). End the path at \"" + step +
                                  "\" to choose it"));
      }
      if (i > 0 && view->empty) {
        return fail(MakeError(
            ErrorCode::kNotFound,
            "menu: \"" + request.steps[i - 1] + "\" was clicked and showed no items within " +
                std::to_string(request.timeout.count()) +
                " ms: it opened no menu (it may be an item, not a menu, or the app is slow: a "
                "longer timeout waits more)"));
      }
      return fail(MakeError(ErrorCode::kNotFound, "menu: no \"" + step + "\" " + where +
                                                      "; the items there: " + view->names));
    }
    bool chosen = false;
    std::string next_names;  // what the last element tried showed
    for (const auto& [id, name] : view->matches) {
      ActionRequest click;
      click.kind = ActionKind::kClick;
      click.target.id = id;
      auto done = act(click, last);
      if (!done.ok()) return fail(done.error());
      result.steps.push_back(*done);
      if (!done->performed) {
        (void)close_opened();  // the held step is the result
        return result;
      }
      if (!last) ++opened_levels;
      // Several elements of this name (gedit 44's header bar has two "Menu"
      // buttons, the recent files' and the main one): the one whose level
      // holds the next step.
      bool fits = last || view->matches.size() == 1;
      if (!fits) {
        auto next = look(i + 1, id, view->shown, request.steps[i + 1], true,
                         i + 2 < request.steps.size());
        // The next step there, greyed or a plain item too: this is the
        // element meant, and the next level says why it cannot go on.
        fits = next.ok() && (!next->matches.empty() || next->greyed > 0 || next->items > 0);
        if (next.ok()) next_names = next->names;
      }
      if (fits) {
        std::string shown_name = name;
        while (!shown_name.empty() && shown_name.back() == ' ') shown_name.pop_back();
        result.path.push_back(shown_name);
        opened_id = id;
        shown_before = view->shown;
        chosen = true;
        break;
      }
      ActionRequest esc;
      esc.kind = ActionKind::kPressKeys;
      esc.keys = {"Escape"};
      (void)act(esc, false);
      --opened_levels;
    }
    if (!chosen) {
      return fail(MakeError(ErrorCode::kNotFound,
                            "menu: no \"" + request.steps[i + 1] + "\" under any of the " +
                                std::to_string(view->matches.size()) + " elements named \"" + step +
                                "\"; the items under the last: " + next_names));
    }
  }
  result.performed = true;
  return result;
}

}  // namespace uiscope

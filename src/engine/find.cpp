#include "engine/find.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/escape.h"
#include "core/format.h"
#include "core/fuzzy.h"

namespace uiscope {
namespace {

// How often the deadline and cancellation are looked at: a node costs at
// most a few hundred microseconds (fuzzy.h's cap), so a check every 16 is
// well inside the 100 ms a deadline may be overrun by.
constexpr size_t kNodesBetweenChecks = 16;

// Suggestions less alike than this are noise, not help.
constexpr double kMinSuggestionScore = 0.5;

std::optional<Point> ClickPoint(const Node& n, const Frame& frame) {
  if (!n.bounds || n.bounds->Empty()) return std::nullopt;
  Rect r = *n.bounds;
  if (frame.width > 0 && frame.height > 0) r = ClampToFrame(r, frame.width, frame.height);
  if (r.Empty()) return std::nullopt;
  return r.Center();
}

// What an element is called: its name, or, when it has none, its
// description. Icon buttons are often named only by their tooltip (kcalc's
// "Clear Display [Escape]", gnome-calculator's "Primary menu"), and the
// compact format prints that description in the name's place.
const std::string& Label(const Node& n) { return n.name.empty() ? n.description : n.name; }

// A description of a named element ("Undo [Ctrl+Z]" on "Undo") matches too,
// but below what the same words in a name would score: the name is what the
// element shows.
constexpr double kDescriptionWeight = 0.9;

double LabelScore(std::string_view query, const Node& n) {
  if (n.name.empty()) return MatchScore(query, n.description);
  double score = MatchScore(query, n.name);
  if (score < 1 && !n.description.empty()) {
    score = std::max(score, kDescriptionWeight * MatchScore(query, n.description));
  }
  return score;
}

// A line of an element's value or text (a terminal's output, a page's text)
// matches below its label: the label is what names the element.
constexpr double kValueWeight = 0.8;
// A line named in a match is cut to this many characters.
constexpr size_t kMaxLineChars = 120;

// The best-matching line of `n`'s value and its weighted score; password
// values are never read, so never searched.
std::pair<double, std::string_view> ValueScore(std::string_view query, const Node& n) {
  if (n.value.empty() || n.Has(State::kPassword)) return {0, {}};
  double best = 0;
  std::string_view best_line;
  std::string_view rest = n.value;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    const double score = MatchScore(query, line);
    if (score > best) {
      best = score;
      best_line = line;
    }
  }
  return {kValueWeight * best, best_line};
}

struct Ranked {
  FindMatch match;
  // Cannot take an action now: behind a modal window of its app, or a
  // control its own tree marks disabled.
  bool blocked = false;
  // In the active window or a modal one: where input goes.
  bool in_front = false;
  int hits = 0;
  bool interactive = false;
  float confidence = 1;
  size_t order = 0;
};

// Where each element of the tree stands for an agent about to act on it:
// the top-level window holding it, and whether a modal window of its app
// hides that window.
class Reach {
 public:
  // Called for every node in ForEachNode's order (pre-order, with depth).
  void Visit(const Node& n, int depth) {
    windows_.resize(static_cast<size_t>(depth));
    const Node* window = depth > 0 ? windows_.back() : nullptr;
    if (window == nullptr && IsWindowRole(n.role)) window = &n;
    windows_.push_back(window);
    if (depth == 0) {
      app_has_modal_ = std::any_of(n.children.begin(), n.children.end(), [](const Node& w) {
        return IsWindowRole(w.role) && w.Has(State::kModal);
      });
    }
  }

  bool BehindModal() const {
    return app_has_modal_ && windows_.back() != nullptr && !windows_.back()->Has(State::kModal);
  }
  bool InFront() const {
    const Node* window = windows_.back();
    return window != nullptr && (window->Has(State::kActive) || window->Has(State::kModal));
  }

 private:
  std::vector<const Node*> windows_;  // the top-level window at or above each node of the path
  bool app_has_modal_ = false;
};

// A control of the tree that says it is disabled. Pixel-sourced nodes carry
// no such state.
bool Disabled(const Node& n) {
  return n.source == Source::kAx && IsInteractiveRole(n.role) && !n.Has(State::kEnabled);
}

}  // namespace

Result<Role> ParseRole(std::string_view name) {
  Role role = RoleFromName(name);
  if (role != Role::kUnknown || name == "unknown") return role;
  std::string names;
  for (std::string_view n : AllRoleNames()) names += (names.empty() ? "" : ", ") + std::string(n);
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown role \"" + std::string(name) + "\" (roles: " + names + ")");
}

Result<FindResult> FindNodes(const std::vector<Node>& roots, const FindQuery& query,
                             const Frame& frame) {
  if (query.name.empty() && !query.role) {
    return MakeError(ErrorCode::kInvalidArgument, "find needs a name, a role, or both");
  }
  FindResult result;
  std::vector<Ranked> found;
  // Set once the deadline passed or the caller cancelled; the walks below
  // then skip the rest of the nodes.
  std::optional<Error> stopped;
  size_t visited = 0;
  auto should_stop = [&] {
    if (stopped) return true;
    if (++visited % kNodesBetweenChecks != 0) return false;
    if (query.cancelled && query.cancelled()) {
      stopped = Error{ErrorCode::kUnavailable, "find was cancelled"};
    } else if (std::chrono::steady_clock::now() >= query.deadline) {
      stopped =
          Error{ErrorCode::kTimeout,
                "find ran out of time after comparing the label with " +
                    std::to_string(result.searched) + " of " + std::to_string(CountNodes(roots)) +
                    " elements; give a role or a shorter name, or raise timeout_ms"};
    }
    return stopped.has_value();
  };
  Reach reach;
  ForEachNode(roots, [&](const Node& n, int depth) {
    if (should_stop()) return;
    reach.Visit(n, depth);
    const size_t order = static_cast<size_t>(result.searched++);
    if (query.role && n.role != *query.role) return;
    double score = 1;
    std::string_view line;
    if (query.exact) {
      if (Label(n) != query.name) return;
    } else if (!query.name.empty()) {
      score = LabelScore(query.name, n);
      if (score < kValueWeight) {
        const auto [value_score, value_line] = ValueScore(query.name, n);
        if (value_score > score) {
          score = value_score;
          line = value_line;
        }
      }
      if (score <= 0) return;
    }
    found.push_back({{&n, score, ClickPoint(n, frame), SanitiseUtf8(line, kMaxLineChars)},
                     reach.BehindModal() || Disabled(n),
                     reach.InFront(),
                     query.learned_hits ? query.learned_hits(n) : 0,
                     IsInteractiveRole(n.role),
                     n.source == Source::kAx ? 1.0f : n.confidence,
                     order});
  });
  if (stopped) return *stopped;
  std::stable_sort(found.begin(), found.end(), [](const Ranked& a, const Ranked& b) {
    // Scores closer than this are the same match quality.
    if (std::abs(a.match.score - b.match.score) > 1e-6) return a.match.score > b.match.score;
    // Of equal matches, what input can reach now comes first.
    if (a.blocked != b.blocked) return b.blocked;
    if (a.in_front != b.in_front) return a.in_front;
    if (a.hits != b.hits) return a.hits > b.hits;
    if (a.interactive != b.interactive) return a.interactive;
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return a.order < b.order;
  });
  result.total = static_cast<int>(found.size());
  const size_t keep =
      query.limit > 0 ? std::min(found.size(), static_cast<size_t>(query.limit)) : found.size();
  for (size_t i = 0; i < keep; ++i) result.matches.push_back(found[i].match);

  if (result.total == 0 && !query.name.empty() && query.max_suggestions > 0) {
    // Every distinct name on screen, by how alike it looks; per name the
    // element an agent would most likely mean (interactive first).
    std::map<std::string, Suggestion> best;  // by folded name
    std::map<std::string, bool> best_interactive;
    ForEachNode(roots, [&](const Node& n, int) {
      if (should_stop()) return;
      const std::string& label = Label(n);
      if (label.empty() || n.role == Role::kApplication) return;
      const double score = SuggestionScore(query.name, label);
      if (score < kMinSuggestionScore) return;
      const std::string key = FoldText(label);
      auto it = best.find(key);
      const bool interactive = IsInteractiveRole(n.role);
      if (it == best.end() || (interactive && !best_interactive[key])) {
        best[key] = {label, n.role, n.id, score};
        best_interactive[key] = interactive;
      }
    });
    for (auto& [key, s] : best) result.similar.push_back(std::move(s));
    std::stable_sort(result.similar.begin(), result.similar.end(),
                     [](const Suggestion& a, const Suggestion& b) { return a.score > b.score; });
    if (result.similar.size() > static_cast<size_t>(query.max_suggestions)) {
      result.similar.resize(static_cast<size_t>(query.max_suggestions));
    }
  }
  if (stopped) return *stopped;
  if (result.total == 0) {
    std::string what = query.role ? std::string(RoleName(*query.role)) : "elements";
    if (query.role && what.back() != 's') what += "s";
    if (query.name.empty()) {
      result.suggestion = "No " + what + " found.";
    } else {
      // The query and the names on screen go into a line an agent or a
      // person reads: the one escaping printer keeps them to it.
      result.suggestion =
          "No " + what + " matching '" + EscapeForDisplay(query.name, 80) + "' found.";
    }
    if (!result.similar.empty()) {
      result.suggestion += " Similar:";
      for (size_t i = 0; i < result.similar.size(); ++i) {
        const Suggestion& s = result.similar[i];
        result.suggestion +=
            (i == 0 ? " '" : ", '") + EscapeForDisplay(s.name, 80) + "' (" +
            std::string(RoleName(s.role)) + ")";
      }
    }
  }
  return result;
}

std::string FormatFindMatch(const FindMatch& match) {
  std::string line = FormatNodeLine(*match.node);
  if (match.click_point) {
    line += " click=" + std::to_string(match.click_point->x) + "," +
            std::to_string(match.click_point->y);
  }
  if (match.score < 1) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), " score=%.2f", match.score);
    line += buf;
  }
  if (!match.line.empty()) line += " line=" + QuoteForDisplay(match.line);
  return line;
}

}  // namespace uiscope

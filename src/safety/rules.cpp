#include "safety/rules.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <iterator>

namespace uiscope::safety {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Iterative glob with backtracking to the last "*": linear in practice, no
// recursion to blow the stack on hostile patterns.
bool Glob(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || Lower(pattern[p]) == Lower(name[n]))) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string PointText(Point p) { return std::to_string(p.x) + "," + std::to_string(p.y); }

std::string RectText(const Rect& r) {
  return std::to_string(r.x) + "," + std::to_string(r.y) + " " + std::to_string(r.w) + "x" +
         std::to_string(r.h);
}

GateDecision Decide(GateVerdict verdict, std::string rule, std::string reason) {
  GateDecision d;
  d.verdict = verdict;
  d.rule = std::move(rule);
  d.reason = std::move(reason);
  return d;
}

}  // namespace

bool AppPatternMatches(std::string_view pattern, std::string_view name) {
  if (pattern.empty()) return false;
  if (Glob(pattern, name)) return true;
  const size_t dot = name.rfind('.');
  return dot != std::string_view::npos && pattern.find('.') == std::string_view::npos &&
         Glob(pattern, name.substr(dot + 1));
}

std::optional<std::string> MatchingPattern(const std::vector<std::string>& patterns,
                                           std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (const std::string& p : patterns) {
    if (AppPatternMatches(p, name)) return p;
  }
  return std::nullopt;
}

std::string ProgramOf(std::string_view command) {
  size_t i = 0;
  while (i < command.size() && std::isspace(static_cast<unsigned char>(command[i]))) ++i;
  std::string word;
  char quote = 0;
  for (; i < command.size(); ++i) {
    const char c = command[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < command.size()) {
        word += command[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      break;
    } else {
      word += c;
    }
  }
  return word;
}

std::string BaseName(std::string_view program) {
  const size_t slash = program.rfind('/');
  return std::string(slash == std::string_view::npos ? program : program.substr(slash + 1));
}

std::string DescribeNode(const Node& node) {
  std::string out(RoleName(node.role));
  if (!node.name.empty()) out += " \"" + node.name + "\"";
  if (!node.id.empty()) out += " " + node.id;
  return out;
}

std::optional<GateDecision> CheckDenyList(const PlannedAction& action,
                                          const std::vector<std::string>& deny_apps) {
  if (action.hidden_window) {
    return Decide(GateVerdict::kDeny, "deny_list",
                  "the input would reach a window of an application on the deny list "
                  "(deny_apps of the configuration): uiscope neither observes nor acts on it. "
                  "Ask the user to do this step, or to change the configuration");
  }
  if (deny_apps.empty()) return std::nullopt;
  auto deny = [&](std::string_view what, const std::string& pattern) {
    return Decide(GateVerdict::kDeny, "deny_list",
                  std::string(what) + " is on the deny list (\"" + pattern + "\" in deny_apps of " +
                      "the configuration): uiscope neither observes nor "
                      "acts on it. Ask the user to do this step, or to change the configuration");
  };
  if (auto p = MatchingPattern(deny_apps, action.app)) {
    return deny("application \"" + action.app + "\"", *p);
  }
  if (action.target) {
    if (auto p = MatchingPattern(deny_apps, action.target->app)) {
      return deny("application \"" + action.target->app + "\"", *p);
    }
  }
  for (const Node& candidate : action.candidate_nodes) {
    if (auto p = MatchingPattern(deny_apps, candidate.app)) {
      return deny("application \"" + candidate.app + "\"", *p);
    }
  }
  if (!action.command.empty()) {
    const std::string program = BaseName(ProgramOf(action.command));
    if (auto p = MatchingPattern(deny_apps, program)) {
      return deny("program \"" + program + "\"", *p);
    }
  }
  return std::nullopt;
}

namespace {

// Programs that run whatever command they are given: a shell, in any form.
bool IsShell(std::string_view base) {
  static constexpr std::string_view kShells[] = {
      "sh",  "bash", "dash", "zsh",  "ksh",     "mksh", "pdksh", "ash", "yash",
      "csh", "tcsh", "fish", "rbash", "busybox", "nu",  "pwsh",  "elvish"};
  return std::find(std::begin(kShells), std::end(kShells), base) != std::end(kShells);
}

// Interpreters, with the switches that make them run code given inline on
// the command line (versioned names too: python3.11, perl5.36). awk's
// program is always inline.
struct Interpreter {
  std::string_view prefix;
  std::initializer_list<std::string_view> inline_flags;
};
const Interpreter* InterpreterOf(std::string_view base) {
  static const Interpreter kInterpreters[] = {
      {"python", {"-c"}},         {"pypy", {"-c"}},
      {"perl", {"-e", "-E"}},     {"ruby", {"-e"}},
      {"node", {"-e", "--eval", "-p", "--print"}},
      {"nodejs", {"-e", "--eval", "-p", "--print"}},
      {"php", {"-r"}},            {"lua", {"-e"}},
      {"tclsh", {}},              {"wish", {}},
      {"Rscript", {"-e"}},        {"julia", {"-e", "--eval"}},
      {"guile", {"-c"}},          {"osascript", {"-e"}},
      {"awk", {}},                {"gawk", {}},
      {"mawk", {}},               {"nawk", {}},
  };
  for (const Interpreter& i : kInterpreters) {
    if (!base.starts_with(i.prefix)) continue;
    const std::string_view rest = base.substr(i.prefix.size());
    // "python3", "python3.11", "perl5.36"; not "pythonista" or "nodeapp".
    if (std::all_of(rest.begin(), rest.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; })) {
      return &i;
    }
  }
  return nullptr;
}

// The words of a command line, quotes taken off; good enough to find the
// programs it names, which is all it is used for.
std::vector<std::string> CommandWords(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  for (char c : command) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else if (c != '\'' && c != '"' && c != '\\') {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

bool Listed(const std::vector<std::string>& launch_allow, const std::string& program) {
  const std::string base = BaseName(program);
  for (const std::string& allowed : launch_allow) {
    const bool by_path = allowed.find('/') != std::string::npos;
    if (by_path ? program == allowed : base == allowed) return true;
  }
  return false;
}

}  // namespace

namespace {

// Whether words[i] runs commands of its own (see CommandRunnersIn).
bool RunsCommandsAt(const std::vector<std::string>& words, size_t i) {
  const std::string base = BaseName(words[i]);
  if (base == "uiscope" || IsShell(base)) return true;
  const Interpreter* interpreter = InterpreterOf(base);
  if (interpreter == nullptr) return false;
  if (interpreter->inline_flags.size() == 0) return true;
  for (size_t j = i + 1; j < words.size(); ++j) {
    for (std::string_view flag : interpreter->inline_flags) {
      // "-c", and "-c'code'" / "-ecode" run together.
      if (words[j] == flag || (flag.size() == 2 && words[j].starts_with(flag))) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> CommandRunnersIn(std::string_view command) {
  const std::vector<std::string> words = CommandWords(command);
  std::vector<std::string> runners;
  for (size_t i = 0; i < words.size(); ++i) {
    if (RunsCommandsAt(words, i)) runners.push_back(words[i]);
  }
  return runners;
}

std::optional<GateDecision> CheckLaunchAllowList(
    const PlannedAction& action, const std::optional<std::vector<std::string>>& launch_allow) {
  if (action.tool != "app_launch") return std::nullopt;
  const std::string program = ProgramOf(action.command);
  if (program.empty()) {
    return Decide(GateVerdict::kDeny, "R3", "app_launch has no command to run");
  }
  if (launch_allow && !Listed(*launch_allow, program)) {
    std::string listed;
    for (const std::string& a : *launch_allow) listed += (listed.empty() ? "" : ", ") + a;
    return Decide(
        GateVerdict::kDeny, "R3",
        "\"" + program + "\" is not on the launch allow-list (launch_allow: " +
            (listed.empty() ? std::string("empty, so no program may be launched") : listed) +
            "). Launch one of those, or ask the user to add it to the configuration");
  }
  // A program that runs commands (uiscope itself, a shell, inline code)
  // goes only where launch_allow names it: through one an agent could run
  // `uiscope confirm --approve` on its own held actions, or anything else.
  std::string runner;
  for (const std::string& found : CommandRunnersIn(action.command)) {
    if (!launch_allow || !Listed(*launch_allow, found)) {
      runner = found;
      break;
    }
  }
  if (runner.empty()) return std::nullopt;
  return Decide(GateVerdict::kDeny, "R3",
                "app_launch starts applications, not \"" + runner +
                    "\": uiscope itself, shells and interpreters running inline code run any "
                    "command, a person's approval of held actions included. Launch the "
                    "application directly, or ask the user to add \"" + BaseName(runner) +
                    "\" to launch_allow in the configuration");
}

std::optional<GateDecision> CheckKnownTarget(const PlannedAction& action) {
  if (action.target_id.empty()) return std::nullopt;
  if (!action.target) {
    return Decide(GateVerdict::kDeny, "R6",
                  "no element " + action.target_id +
                      " in a fresh observation: the ID is unknown or stale (the element is gone "
                      "or changed). Observe again and use a current ID");
  }
  if (action.target->Has(State::kDefunct)) {
    return Decide(GateVerdict::kDeny, "R6",
                  "element " + action.target_id +
                      " no longer exists (its object is defunct). Observe again and use a "
                      "current ID");
  }
  return std::nullopt;
}

std::optional<GateDecision> CheckPoints(const PlannedAction& action) {
  if (action.points.empty()) return std::nullopt;
  const Rect screen{0, 0, action.frame.width, action.frame.height};
  if (screen.Empty()) {
    return Decide(GateVerdict::kDrop, "R5",
                  "the screen size is unknown, so no point can be checked; nothing was sent. "
                  "Observe the desktop first");
  }
  for (const Point& p : action.points) {
    if (!screen.Contains(p)) {
      return Decide(GateVerdict::kDrop, "R5",
                    "point " + PointText(p) + " is outside the screen (" +
                        std::to_string(screen.w) + "x" + std::to_string(screen.h) +
                        "); nothing was sent. Use a point inside the screen, or an element ID");
    }
  }
  if (action.target_window && !action.target_window->Empty()) {
    const Rect& window = *action.target_window;
    for (const Point& p : action.points) {
      if (!window.Contains(p)) {
        std::string whose = action.target ? " of " + DescribeNode(*action.target) : "";
        return Decide(GateVerdict::kDrop, "R5",
                      "point " + PointText(p) + " is outside the window" + whose + " (" +
                          RectText(window) +
                          "); nothing was sent. Observe again: the window may have moved");
      }
    }
  }
  return std::nullopt;
}

std::optional<GateDecision> CheckAmbiguous(const PlannedAction& action, size_t max_listed) {
  if (action.candidates <= 1) return std::nullopt;
  std::string reason = std::to_string(action.candidates) + " elements match:";
  size_t listed = 0;
  for (const Node& n : action.candidate_nodes) {
    if (listed == max_listed) break;
    reason += (listed == 0 ? " " : "; ") + DescribeNode(n);
    if (n.bounds) reason += " at " + RectText(*n.bounds);
    if (!n.app.empty()) reason += " in " + n.app;
    ++listed;
  }
  if (static_cast<size_t>(action.candidates) > listed && listed > 0) {
    reason += "; and " + std::to_string(action.candidates - static_cast<int>(listed)) + " more";
  }
  if (action.target) {
    reason += ". The action would use " + DescribeNode(*action.target);
  }
  reason += ". A person must confirm it; or use the element's ID to be exact";
  return Decide(GateVerdict::kNeedsConfirmation, "R4", std::move(reason));
}

std::optional<GateDecision> CheckConfirmTools(const PlannedAction& action,
                                              const std::vector<std::string>& confirm_tools) {
  if (action.require_confirmation) {
    return Decide(GateVerdict::kNeedsConfirmation, "plan",
                  "the plan asks for a person's confirmation of this step (requireConfirmation)");
  }
  for (const std::string& tool : confirm_tools) {
    if (tool == "plan" && action.plan_step) {
      return Decide(GateVerdict::kNeedsConfirmation, "confirm_tools",
                    "the configuration requires a person's confirmation for every step of a "
                    "plan (confirm_tools: execute_plan)");
    }
    if (tool == action.tool) {
      return Decide(GateVerdict::kNeedsConfirmation, "confirm_tools",
                    "the configuration requires a person's confirmation for every " + tool +
                        " (confirm_tools)");
    }
  }
  return std::nullopt;
}

bool IsSensitive(const PlannedAction& action) {
  if (action.sensitive) return true;
  if (action.target && action.target->Has(State::kPassword)) return true;
  for (const Node& n : action.candidate_nodes) {
    if (n.Has(State::kPassword)) return true;
  }
  return false;
}

}  // namespace uiscope::safety

// The safety policy's configuration (DESIGN §8): one JSON file, read once at
// start-up by the CLI and `uiscope mcp`.
//
// Where it is read from: `--config PATH` if given, else $UISCOPE_CONFIG,
// else $XDG_CONFIG_HOME/uiscope/config.json, else
// ~/.config/uiscope/config.json. A missing default file means the defaults
// below; a file named by --config or $UISCOPE_CONFIG must exist.
//
// The file is JSON; `//` and `/* */` comments are allowed. Every key is
// optional. An unknown key, a duplicate key or a value of the wrong type is
// an error naming the file, the line and the key (with the nearest known
// key when it looks like a typo), so a typo never silently weakens the
// policy. The keys and their defaults:
//
//   {
//     // R3: app_launch runs only these programs. An entry with a "/" must
//     // equal the program path as given; otherwise it must equal the
//     // program's base name ("gedit" allows "gedit" and "/usr/bin/gedit").
//     // Absent (the default): any application. []: no program at all.
//     // Whether set or not, a command line that runs commands of its own
//     // goes only where this list names each such program: uiscope itself
//     // (an agent would approve its own held actions with it), a shell in
//     // any form ("sh", "env ... bash"), an interpreter given inline code
//     // ("python3 -c", "perl -e", awk). See CommandRunnersIn (rules.h).
//     "launch_allow": ["gedit", "xterm"],
//
//     // Applications that are neither observed (their accessibility trees
//     // are never read, so they appear in no observe, find or plan) nor acted
//     // on (actions on their elements, app_launch / focus / close of them are
//     // refused). Matched case-insensitively against the accessible
//     // application name and, for app_launch, the program's base name;
//     // "*" and "?" are wildcards. Default: [].
//     "deny_apps": ["keepassxc", "seahorse", "*password*"],
//
//     // Tools whose every call needs a person's confirmation. "execute_plan"
//     // (or "plan") holds every step of a plan. Default: [].
//     "confirm_tools": ["app_close", "session_stop"],
//
//     // At most max_actions actions performed without a confirmation in any
//     // window_seconds; the next one is held for confirmation (never silently
//     // dropped). max_actions 0 turns the limit off. Counted per uiscope
//     // process, starting from the actions the audit log holds for the last
//     // window. Default: 10 per 60 s.
//     "rate_limit": {"max_actions": 10, "window_seconds": 60},
//
//     "confirmations": {
//       // A pending confirmation is refused after this long. Default 300.
//       "expire_seconds": 300,
//       // How long a tool call waits for the user's answer to an MCP
//       // elicitation before it returns confirmation_required. Default 120.
//       "elicitation_timeout_seconds": 120,
//       // Whether the `confirm` MCP tool may approve or deny. With false (the
//       // default) only a person decides: through elicitation or `uiscope
//       // confirm TOKEN --approve|--deny [--grant 30m]`; with true an agent
//       // could approve its own held actions, which would void the rate
//       // limit and confirm_tools.
//       "agent_may_confirm": false
//     },
//
//     // The SQLite database of the audit log and pending confirmations.
//     // Default: $UISCOPE_STATE_DIR/uiscope.db, else
//     // $XDG_STATE_HOME/uiscope/uiscope.db, else
//     // ~/.local/state/uiscope/uiscope.db.
//     "database": "/var/lib/uiscope/uiscope.db",
//
//     // Audit entries older than this many days are deleted when a uiscope
//     // process opens the database. 0 (the default) keeps them forever.
//     "audit_retention_days": 0,
//
//     // The learned memory (DESIGN §5.6, `uiscope memory`): whether uiscope
//     // learns the targets of the apps it observes and acts on (false: it
//     // neither learns nor shows what it learned; taught targets stay until
//     // forgotten), and which apps it learns about (names as in deny_apps,
//     // wildcards allowed; absent = every app not denied).
//     "memory": {"learning": true, "apps": ["gedit", "xterm"]}
//   }
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace uiscope::safety {

struct RateLimitConfig {
  int max_actions = 10;  // 0 = no limit
  std::chrono::seconds window{60};
};

struct MemoryConfig {
  bool learning = true;
  std::optional<std::vector<std::string>> apps;  // nullopt = every app
};

struct PolicyConfig {
  // nullopt = any application (never a command runner it does not name)
  std::optional<std::vector<std::string>> launch_allow;
  std::vector<std::string> deny_apps;
  std::vector<std::string> confirm_tools;
  RateLimitConfig rate_limit;
  std::chrono::seconds confirmation_expiry{300};
  std::chrono::seconds elicitation_timeout{120};
  bool agent_may_confirm = false;
  std::string database;  // "" = DefaultDatabasePath()
  int audit_retention_days = 0;
  MemoryConfig memory;

  std::string source = "defaults";  // the file it was read from, for messages
};

// The tools the policy gates (action_gate.h); confirm_tools must name these.
const std::vector<std::string_view>& GatedToolNames();

// Parses a configuration text. `source` names it in error messages
// ("config.json"). InvalidArgument: "SOURCE:LINE: what is wrong and what to
// write instead".
Result<PolicyConfig> ParsePolicyConfig(std::string_view text, const std::string& source);

// Reads the configuration: `path` when not empty (it must exist), else
// $UISCOPE_CONFIG (must exist), else DefaultConfigPath() when it exists,
// else the defaults. InvalidArgument for a malformed file, Unavailable for
// one that cannot be read.
Result<PolicyConfig> LoadPolicyConfig(const std::string& path = "");

// $XDG_CONFIG_HOME/uiscope/config.json, else ~/.config/uiscope/config.json.
std::string DefaultConfigPath();
// $UISCOPE_STATE_DIR/uiscope.db, else $XDG_STATE_HOME/uiscope/uiscope.db,
// else ~/.local/state/uiscope/uiscope.db.
std::string DefaultDatabasePath();
// config.database, or DefaultDatabasePath() when it is empty.
std::string DatabasePath(const PolicyConfig& config);

}  // namespace uiscope::safety

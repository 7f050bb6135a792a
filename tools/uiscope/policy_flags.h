// The safety policy as the CLI verbs use it: the configuration named by
// --config (else $UISCOPE_CONFIG, else ~/.config/uiscope/config.json), and
// its deny list as the observers' filter, so that `uiscope observe`, `find`,
// `screenshot --marks` and `read-text` never read a denied application,
// like the MCP server.
//
// The verbs that act build the whole policy (PolicyFor): the PolicyGate on
// the shared state database, so the rate limit, pending confirmations and
// the audit log span CLI invocations, the MCP server and the web page alike.
// An action it holds prints its token; a person approves it with
// `uiscope confirm TOKEN --approve`, and the same command run again with
// --confirmation-token TOKEN performs it (or --wait-confirm waits for the
// decision in the same process).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "cli.h"
#include "core/result.h"
#include "engine/action_gate.h"
#include "engine/learner.h"
#include "engine/read_text.h"
#include "safety/policy_config.h"
#include "safety/policy_gate.h"

namespace uiscope::cli {

Result<safety::PolicyConfig> LoadPolicy(const GlobalFlags& g);

// True for an application name on the configuration's deny list; empty
// (no filter) when the list is empty.
std::function<bool(const std::string&)> HiddenApps(const safety::PolicyConfig& config);

// The learner of the configuration's learned memory ("memory" key,
// memory/target_store.h), for the workspace of a verb that observes or acts;
// null when learning is off. A store that cannot be opened is a warning on
// stderr, never a failure.
std::shared_ptr<Learner> LearnerFor(const safety::PolicyConfig& config);

// An OCR reader for one CLI call: it keeps what it reads in the state
// directory (engine/read_text.h, OcrCacheFile) while the configuration's
// learning is on, so the next call reads unchanged text for a hash.
std::unique_ptr<TextReader> CliTextReader(const safety::PolicyConfig& config);

struct CliPolicy {
  safety::PolicyConfig config;
  std::shared_ptr<safety::PolicyGate> gate;  // never null; refuses all when the database is not
};
// The configuration and its gate on the state database. Errors: the
// configuration's (a database that cannot be opened gives a gate that
// refuses every action and says why, like the MCP server).
Result<CliPolicy> PolicyFor(const GlobalFlags& g);

// Lines for stderr about an action the policy held (`d` with its token):
// how to approve it and how to perform it then. `rerun` names the command.
std::string HeldHint(const GateDecision& d, const std::string& rerun);

// --wait-confirm: waits up to `seconds` for a person's decision on `token`
// (`uiscope confirm` in another terminal, the web page), telling stderr so.
// True when it was approved; false (with the reason on stderr) otherwise.
bool WaitForApproval(safety::PolicyGate& gate, const std::string& token, int seconds);

}  // namespace uiscope::cli

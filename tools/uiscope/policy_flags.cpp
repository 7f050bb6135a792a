#include "policy_flags.h"

#include <iostream>

#include "memory/safety_store.h"
#include "memory/target_store.h"
#include "safety/rules.h"

namespace uiscope::cli {

Result<safety::PolicyConfig> LoadPolicy(const GlobalFlags& g) {
  return safety::LoadPolicyConfig(g.config);
}

std::function<bool(const std::string&)> HiddenApps(const safety::PolicyConfig& config) {
  if (config.deny_apps.empty()) return {};
  return [deny = config.deny_apps](const std::string& app) {
    return safety::MatchingPattern(deny, app).has_value();
  };
}

std::shared_ptr<Learner> LearnerFor(const safety::PolicyConfig& config) {
  memory::Learning learning = memory::OpenLearning(config);
  if (!learning.store) {
    if (!learning.error.empty()) {
      std::cerr << "uiscope: warning: learned memory off: " << learning.error << "\n";
    }
    return nullptr;
  }
  return std::make_shared<Learner>(std::move(learning.store), std::move(learning.learns));
}

std::unique_ptr<TextReader> CliTextReader(const safety::PolicyConfig& config) {
  auto reader = std::make_unique<TextReader>();
  if (config.memory.learning) reader->KeepCacheIn(OcrCacheFile());
  return reader;
}

Result<CliPolicy> PolicyFor(const GlobalFlags& g) {
  auto config = LoadPolicy(g);
  if (!config.ok()) return config.error();
  CliPolicy policy;
  policy.config = std::move(config).value();
  policy.gate = memory::MakePolicyGate(policy.config, memory::OpenSafetyStores(policy.config));
  return policy;
}

std::string HeldHint(const GateDecision& d, const std::string& rerun) {
  if (d.token.empty()) return "";
  std::string hint = "uiscope: held for a person's confirmation (token " + d.token +
                     "). Approve it with `uiscope confirm " + d.token +
                     " --approve` (or --deny), then run " + rerun +
                     " again with --confirmation-token " + d.token +
                     " (or add --wait-confirm SECONDS to wait for the decision)\n";
  if (safety::IsGrantableRule(d.rule)) {
    hint += "uiscope: `--approve --grant 30m` (or `--grant 20`) also lets this app go ahead "
            "without asking for 30 minutes (or 20 actions)\n";
  }
  return hint;
}

bool WaitForApproval(safety::PolicyGate& gate, const std::string& token, int seconds) {
  std::cerr << "uiscope: waiting up to " << seconds << " s for a decision: `uiscope confirm "
            << token << " --approve` (or --deny) in another terminal\n"
            << std::flush;
  auto c = gate.WaitForDecision(token, std::chrono::seconds(seconds));
  if (!c.ok()) {
    std::cerr << "uiscope: " << c.error().message << "\n";
    return false;
  }
  switch (c->status) {
    case safety::ConfirmationStatus::kApproved:
      return true;
    case safety::ConfirmationStatus::kPending:
      std::cerr << "uiscope: nobody decided within " << seconds << " s; confirmation " << token
                << " is still pending\n";
      return false;
    default:
      std::cerr << "uiscope: confirmation " << token << " is "
                << safety::ConfirmationStatusName(c->status)
                << (c->decided_by.empty() ? "" : " (by " + c->decided_by + ")") << "\n";
      return false;
  }
}

}  // namespace uiscope::cli

#include "policy_flags.h"

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

}  // namespace uiscope::cli

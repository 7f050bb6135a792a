#include "safety/audit.h"

namespace uiscope::safety {

nlohmann::json AuditEntryToJson(const AuditEntry& e) {
  nlohmann::json j = {{"id", e.id},
                      {"time_ms", e.time_ms},
                      {"finished_ms", e.finished_ms},
                      {"pid", e.pid},
                      {"session", e.session},
                      {"display", e.display},
                      {"tool", e.tool},
                      {"target", e.target},
                      {"target_desc", e.target_desc},
                      {"app", e.app},
                      {"arguments", e.arguments},
                      {"decision", e.decision},
                      {"rule", e.rule},
                      {"reason", e.reason},
                      {"token", e.token},
                      {"confirmed", e.confirmed},
                      {"via", e.via},
                      {"verification", e.verification},
                      {"error", e.error},
                      {"screen_before", e.screen_before},
                      {"screen_after", e.screen_after}};
  return j;
}

Result<AuditSink::RateSlot> AuditSink::AppendWithinRate(const AuditEntry& entry, int64_t after_ms,
                                                        int max_actions) {
  auto times = UnconfirmedActionTimes(after_ms + 1);
  if (!times.ok()) return times.error();
  RateSlot slot;
  if (static_cast<int>(times->size()) >= max_actions) {
    slot.times = std::move(times).value();
    return slot;
  }
  auto id = Append(entry);
  if (!id.ok()) return id.error();
  slot.id = *id;
  return slot;
}

}  // namespace uiscope::safety

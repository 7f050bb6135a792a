// Redaction: what may be shown, logged or stored of text an action types
// (DESIGN §8: password fields and secured text are never read, returned,
// logged or stored). Text that went, or would go, into a sensitive field is
// replaced by kMask everywhere: tool results, logs, the audit log and the
// confirmation store.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/node.h"

namespace uiscope::safety {

// What a secret looks like wherever it would appear (core/node.h).
inline constexpr std::string_view kMask = kSecretMask;

// `text`, or kMask when `sensitive` (an empty text stays empty).
std::string Redacted(std::string_view text, bool sensitive);

// `arguments` with every value that carries typed text masked when
// `sensitive`: the keys "text", "value" and "keys" at any depth (plan steps
// nest them under "args"). Other values are kept; nothing is masked when
// not sensitive.
nlohmann::json RedactArguments(const nlohmann::json& arguments, bool sensitive);

}  // namespace uiscope::safety

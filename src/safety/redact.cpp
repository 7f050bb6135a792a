#include "safety/redact.h"

namespace uiscope::safety {
namespace {

bool CarriesText(const std::string& key) {
  return key == "text" || key == "value" || key == "keys";
}

void MaskIn(nlohmann::json& j) {
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (CarriesText(key) && (value.is_string() || value.is_array() || value.is_number())) {
        if (!(value.is_string() && value.get_ref<const std::string&>().empty())) {
          value = std::string(kMask);
        }
      } else {
        MaskIn(value);
      }
    }
  } else if (j.is_array()) {
    for (auto& v : j) MaskIn(v);
  }
}

}  // namespace

std::string Redacted(std::string_view text, bool sensitive) {
  if (!sensitive || text.empty()) return std::string(text);
  return std::string(kMask);
}

nlohmann::json RedactArguments(const nlohmann::json& arguments, bool sensitive) {
  if (!sensitive) return arguments;
  nlohmann::json copy = arguments;
  MaskIn(copy);
  return copy;
}

}  // namespace uiscope::safety

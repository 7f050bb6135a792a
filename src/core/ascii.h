// ASCII case folding for names that are compared, not displayed: action
// names, toolkit names, HTTP header names, app names. Unicode-aware folding
// for what people search for lives in fuzzy.h.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace uiscope {

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace uiscope

// The one rule by which a name a person or agent types names an app, shared
// by `app list`/`focus`/`close`, `observe --app` and `windows`: apps are
// known by their usual names ("inkscape"), not only by their full
// accessible names ("org.inkscape.Inkscape").
#pragma once

#include <string_view>
#include <vector>

#include "core/ascii.h"
#include "core/node.h"

namespace uiscope {

// True when `wanted` names the app called `name` (its accessible name or
// WM_CLASS) run from `executable` (a path or a bare name; may be empty):
// case-insensitively the whole name, the last dot-separated part of a
// reverse-DNS name ("foo" for "org.example.Foo"), or the executable's file
// name.
inline bool AppNameMatches(std::string_view wanted, std::string_view name,
                           std::string_view executable = {}) {
  if (wanted.empty()) return false;
  if (EqualsIgnoringCase(wanted, name)) return true;
  if (const size_t dot = name.rfind('.'); dot != std::string_view::npos &&
                                          wanted.find('.') == std::string_view::npos &&
                                          EqualsIgnoringCase(wanted, name.substr(dot + 1))) {
    return true;
  }
  if (const size_t slash = executable.rfind('/'); slash != std::string_view::npos) {
    executable = executable.substr(slash + 1);
  }
  return !executable.empty() && EqualsIgnoringCase(wanted, executable);
}

// The application node among `roots` that `wanted` names (AppNameMatches),
// the one named exactly first; null when none.
inline const Node* FindAppNode(const std::vector<Node>& roots, std::string_view wanted) {
  const Node* usual = nullptr;
  for (const Node& r : roots) {
    if (r.role != Role::kApplication) continue;
    if (EqualsIgnoringCase(r.name, wanted)) return &r;
    if (usual == nullptr && AppNameMatches(wanted, r.name)) usual = &r;
  }
  return usual;
}

}  // namespace uiscope

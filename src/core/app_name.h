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

// The directory a program is installed in under a library or /opt root
// ("libreoffice" for /usr/lib/libreoffice/program/soffice.bin,
// "firefox-esr" for /usr/lib/firefox-esr/firefox-esr): what people call the
// app when its executable is a helper with a name of its own. "" when the
// program is not below such a root (/usr/bin/gedit).
inline std::string_view InstallDirName(std::string_view path) {
  for (std::string_view root : {"/usr/lib/", "/usr/lib64/", "/usr/local/lib/", "/opt/"}) {
    if (!path.starts_with(root)) continue;
    std::string_view rest = path.substr(root.size());
    size_t slash = rest.find('/');
    // A multiarch directory (/usr/lib/x86_64-linux-gnu/...) is no app's.
    if (slash != std::string_view::npos && rest.substr(0, slash).find("-linux-") !=
                                               std::string_view::npos) {
      rest = rest.substr(slash + 1);
      slash = rest.find('/');
    }
    if (slash == std::string_view::npos || slash == 0) return {};
    return rest.substr(0, slash);
  }
  return {};
}

// True when `wanted` names the app called `name` (its accessible name or
// WM_CLASS) run from `executable` (a path or a bare name; may be empty):
// case-insensitively the whole name, the last dot-separated part of a
// reverse-DNS name ("foo" for "org.example.Foo"), the executable's file
// name, or the directory it is installed in (InstallDirName).
inline bool AppNameMatches(std::string_view wanted, std::string_view name,
                           std::string_view executable = {}) {
  if (wanted.empty()) return false;
  if (EqualsIgnoringCase(wanted, name)) return true;
  if (const size_t dot = name.rfind('.'); dot != std::string_view::npos &&
                                          wanted.find('.') == std::string_view::npos &&
                                          EqualsIgnoringCase(wanted, name.substr(dot + 1))) {
    return true;
  }
  if (const std::string_view dir = InstallDirName(executable);
      !dir.empty() && EqualsIgnoringCase(wanted, dir)) {
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

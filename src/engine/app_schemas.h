// App schemas (seed 004 §7, issue 19): what uiscope ships or a user writes
// about an application — its shortcuts and menu paths — as JSON files, one
// per app, found in (first match wins):
//   $UISCOPE_SCHEMA_DIRS (directories separated by ':'), else
//   $XDG_CONFIG_HOME/uiscope/schemas (default ~/.config/uiscope/schemas),
//   then the shipped data/schemas of this build.
//
// Format (docs in data/schemas/README.md):
//   {"app": "gedit", "aliases": ["org.gnome.gedit"], "toolkit": "gtk3",
//    "checked_with": "gedit 44.2",
//    "shortcuts": [{"keys": "Ctrl+S", "action": "Save", "category": "file",
//                   "path": "Menu > Save As…"}]}
// keys in any spelling core/shortcuts.h NormaliseChord reads; category and
// path optional. A malformed file is an InvalidArgument naming it.
//
// Thread-safe (reads files only).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/shortcuts.h"

namespace uiscope {

struct AppSchema {
  std::string app;
  std::vector<std::string> aliases;
  std::string toolkit;
  std::vector<Shortcut> shortcuts;  // source "schema"
  std::string file;                 // where it was read from
};

// The directories searched, in order.
std::vector<std::string> AppSchemaDirs();

// One schema from its JSON; `file` names it in errors.
Result<AppSchema> ParseAppSchema(const nlohmann::json& j, const std::string& file);

// The schema of `app` (its name or an alias, case-insensitive): nullopt when
// there is none; an error when the file that names it is malformed.
Result<std::optional<AppSchema>> FindAppSchema(std::string_view app);

}  // namespace uiscope

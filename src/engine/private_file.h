// Files of the state directory that hold what apps show (baselines, ID
// anchors, the apps not answering, pixel IDs): the user's alone, and never
// seen half-written by another uiscope process reading them.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace uiscope {

// Writes `text` to `path` through a temporary file (0600, created
// exclusively, unique per process and call) renamed over it, so a reader
// sees the old file or the new one, never a torn one; two writers race only
// for which whole file stays. Creates the parent directory (0700) when
// missing. `what` names the file in errors ("the ID anchors").
Status WritePrivateFile(const std::string& path, std::string_view text, std::string_view what);

// Creates `dir` and its missing parents and makes `dir` the user's alone
// (0700), as WritePrivateFile does for a file's folder. Errors are left to
// whoever then writes there.
void MakePrivateDir(const std::string& dir);

}  // namespace uiscope

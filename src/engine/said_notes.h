// What the observations behind actions have said on a desktop, so that a
// note repeated on every call — LibreOffice Calc's sheet "claims 2147483647
// children … read only the cells in view" rode on every action result — is
// said once, then counted ("1 note said before left out").
//
// Only an action's copy of its observation's warnings goes through here:
// `observe` and `find` always say everything, and what an action itself
// found (a window raised, a wait for an enabled button) is always said.
// Notes are told apart with their digits folded, so the same note about
// other cells or another count is the same note. Each is said again once
// kSaidNotesFor has passed. Kept in one file per desktop under the session
// state directory (0600), shared by every uiscope process on that desktop
// under an flock; a file that cannot be read or written makes every note
// be said (they inform, nothing depends on them).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace uiscope {

inline constexpr std::chrono::minutes kSaidNotesFor{60};

// <state dir>/said-notes/<display as a file name>.
std::string SaidNotesFile(const std::string& state_dir, const std::string& display);

// `notes` with those said within kSaidNotesFor before `now` left out, in
// order (a note twice in `notes` is kept once); records the ones kept as
// said at `now`. `*left_out` gets how many were left out.
std::vector<std::string> SayOnce(const std::string& file, const std::vector<std::string>& notes,
                                 int* left_out,
                                 std::chrono::system_clock::time_point now =
                                     std::chrono::system_clock::now());

}  // namespace uiscope

// ClipboardHolder: keeps content on an X selection after the process that
// set it is gone (issue 15 part 10).
//
// An X selection belongs to a client connection: when the owner exits, the
// selection is empty. `uiscope clipboard set` exits at once, so it hands the
// content to a small holder process that owns the selection and answers
// paste requests (platform/clipboard.h, Serve()) until
//   - another client takes the selection (someone copied something else),
//   - the desktop ends (its X server goes; a uiscope session's holder is a
//     member of the session, so `session stop` ends it too), or
//   - kClipboardHoldLimit passes (then the selection is given up).
// A later `clipboard set` takes the selection, so the previous holder exits.
//
// How: the holder is this same program re-executed through /proc/self/exe
// (like the session reaper, session/reaper.h): a constructor in
// clipboard_holder.cpp sees UISCOPE_CLIPBOARD_HOLDER=1 and runs the holder
// instead of main(), so any program that links it (uiscope, the MCP server,
// test binaries) can hold a selection with no helper binary to install.
// The content travels on its stdin (a header line, then the bytes). It
// forks once more (double fork: the spawned process exits at once and is
// reaped, the holder is no session leader and never a zombie of a
// long-running server) and reports "ok PID" or "error MESSAGE" on stdout
// once it owns the selection or failed to. Its /proc/PID/cmdline reads
// "uiscope-clipboard-holder :N clipboard".
//
// Thread safety: StartClipboardHolder() may be called from any thread (it
// forks and execs at once).
#pragma once

#include <chrono>
#include <string>

#include "core/result.h"
#include "platform/clipboard.h"
#include "session/headless_desktop.h"

namespace uiscope {

// The longest a holder serves its content: a working day. Content nobody
// replaced in that time is stale, and a forgotten holder must not live on.
inline constexpr std::chrono::hours kClipboardHoldLimit{8};

struct ClipboardHoldRequest {
  std::string display;  // ":N"
  // The uiscope session that owns the display, when one does: the holder
  // joins it (SpawnInSession) and logs to clipboard-holder.log in its
  // runtime dir. Null: a desktop uiscope did not start.
  const DesktopInfo* session = nullptr;
  Selection selection = Selection::kClipboard;
  ClipboardData data;
  std::chrono::seconds hold_for = kClipboardHoldLimit;
  // For the holder to start and own the selection.
  std::chrono::milliseconds timeout{5000};
};

// Starts a holder and returns its pid once it owns the selection. Errors:
// InvalidArgument (content over kClipboardMaxBytes, hold_for outside 1 s ..
// kClipboardHoldLimit), Unavailable (the display cannot be opened), Timeout.
Result<int> StartClipboardHolder(const ClipboardHoldRequest& request);

}  // namespace uiscope

// SessionControl: starting, listing and stopping headless desktops, behind
// an interface so the MCP session tools can be fuzzed and tested without
// starting Xvfb. The real implementation is the registry of
// session/headless_desktop.h; sessions it starts are detached and outlive
// the caller, like `uiscope session start`.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "platform/windows_from_pixels.h"
#include "session/headless_desktop.h"

namespace uiscope {

// What `session list` says of a session beyond its record, from asking it
// now (ProbeSessions).
struct SessionHealth {
  // "connected": it answered within the deadline (X11: the X server and the
  // accessibility bus; VNC: the RFB handshake and a full frame).
  // "unreachable": it is recorded as running (every part's process lives; a
  // VNC address) but did not answer in time or refused, `error` says how.
  // "stale": the record outlived its desktop (a part's process is gone,
  // DesktopInfo::problem); `session stop` cleans it up.
  std::string health;
  std::string error;  // "" when connected
  // X11: the applications its accessibility bus lists, by name, in the
  // bus's order. VNC: the titles of the windows found from its pixels
  // (title bars), bottom to top; "" for a bar whose title was not read.
  std::vector<std::string> apps;
  // False when it answered but its apps were not listed within the deadline
  // (VNC: the windows' titles are read by OCR after the frame came, and a
  // loaded machine can take longer than the server did): `apps` is then
  // empty and says nothing.
  bool apps_read = true;
  // Screen pixels as the probe found them (VNC: the framebuffer); the
  // record's when not connected.
  int width = 0;
  int height = 0;
};

inline constexpr std::chrono::milliseconds kSessionProbeDeadline{3000};

class SessionControl {
 public:
  virtual ~SessionControl() = default;
  virtual Result<DesktopInfo> Start(const DesktopOptions& options) = 0;
  virtual Result<std::vector<DesktopInfo>> List() = 0;
  virtual Status Stop(const std::string& id) = 0;
  // Asks each of `sessions` (from List) how it is now: ProbeSessions with
  // kSessionProbeDeadline and the factory given to MakeSessionControl.
  virtual std::vector<SessionHealth> Probe(const std::vector<DesktopInfo>& sessions) = 0;
};

// Makes the reader of the titles of windows found from title bars (OCR, from
// the engine: engine/desktop.h's OcrTitleReader), one per VNC probe; null:
// untitled.
using TitleReaderFactory = std::function<TitleReader()>;

std::unique_ptr<SessionControl> MakeSessionControl(TitleReaderFactory title_reader);

// `uiscope session attach`: the VNC desktop at `address` (vnc://HOST[:PORT],
// HOST:N for display N, HOST::PORT) as a session of its own. Connects once,
// so that nothing listening, a refused password or a missing password file
// is said now, and records the session with its screen size
// (RegisterRemoteSession). `password_file` ("" = none) is kept as an
// absolute path; the password itself is never stored or logged. The same
// address attached already and alive is that session again.
Result<DesktopInfo> AttachVncSession(std::string_view address, const std::string& password_file);

// Probes every session at once, each in a thread of its own with its own
// `deadline`, so a hung server (SIGSTOPped Xvfb, dbus-daemon or VNC server,
// a silent network) costs at most the deadline and never stalls the others
// or the caller: the call returns within about `deadline` whatever they do.
// A probe still blocked at the deadline is reported unreachable ("no answer
// within N ms") and left to end on its own timeouts. One result per session,
// in the same order.
std::vector<SessionHealth> ProbeSessions(const std::vector<DesktopInfo>& sessions,
                                         std::chrono::milliseconds deadline,
                                         const TitleReaderFactory& title_reader);

// A session as `session list --json` and MCP session_list give it: the
// record (ToJson) with the probe's `health`, `error` (when not connected),
// `apps`, and the size it found.
nlohmann::json SessionJson(const DesktopInfo& info, const SessionHealth& health);
// One line of text: ID, backend, display or URL, size, health (with the
// error), apps.
std::string SessionLine(const DesktopInfo& info, const SessionHealth& health);

}  // namespace uiscope

// Clipboard: the selections of a desktop (DESIGN §6: a Desktop has an
// optional clipboard): what an app copied, and content uiscope offers for
// apps to paste.
//
// Abstract so the engine never sees a backend header. The real
// implementation is X11Clipboard (platform/x11/x11_clipboard.h): ICCCM
// selections (CLIPBOARD, PRIMARY) through its own X connection, INCR for
// large transfers both ways, every wait bounded by a deadline.
//
// Content is bytes with a MIME type. Text is UTF-8 and named "text/plain"
// here whatever the X target that carried it (UTF8_STRING, STRING, TEXT,
// text/plain;charset=utf-8); any other MIME type ("image/png") is asked for
// and offered under its own name.
//
// X selections belong to a connection: content offered by Own() is served
// only while this object lives and runs Serve(). A caller that exits (the
// CLI) hands the content to a holder process (session/clipboard_holder.h).
//
// Thread safety: none; one instance per thread. Ownership: the backend owns
// its connection and its (unmapped) window.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace uiscope {

enum class Selection { kClipboard, kPrimary };

// "clipboard" / "primary" (the CLI and MCP spelling).
std::string_view SelectionName(Selection selection);
// InvalidArgument for anything but "clipboard" and "primary".
Result<Selection> ParseSelection(std::string_view name);

// The MIME type of UTF-8 text.
inline constexpr std::string_view kTextMime = "text/plain";
// True for the names UTF-8 text goes by: kTextMime, "text/plain;charset=utf-8",
// "UTF8_STRING", "text". Get() returns such content as kTextMime.
bool IsTextMime(std::string_view mime);
// Content larger than this is refused by Get() unless the caller asks for
// less (and by the holder): 64 MiB, far above what apps copy as text and
// above a 4K screenshot as PNG, far below what would hurt a client.
inline constexpr size_t kClipboardMaxBytes = size_t{64} << 20;

struct ClipboardData {
  std::string mime = std::string(kTextMime);
  std::string bytes;
};

// Who owns a selection: its owner window and, when the X server says
// (X-Resource extension) or the window does (_NET_WM_PID), the process.
struct ClipboardOwner {
  uint64_t window = 0;
  int pid = 0;               // 0 when unknown
  std::string app_class;     // WM_CLASS of the window or its client leader; "" when unset
  std::string app_instance;  // WM_CLASS instance; "" when unset
};

// Why Serve() returned.
enum class ServeEnd {
  kLost,         // another client took the selection (SelectionClear)
  kExpired,      // the deadline passed
  kDisplayGone,  // the X server went away (the session ended)
};
std::string_view ServeEndName(ServeEnd end);

class Clipboard {
 public:
  virtual ~Clipboard() = default;

  // The owner of `selection`. NotFound when nothing owns it (nothing was
  // copied, or the app that copied it exited).
  virtual Result<ClipboardOwner> Owner(Selection selection) = 0;

  // What the owner offers (its TARGETS, as MIME-ish atom names).
  // NotFound without an owner, Timeout when it does not answer in time.
  virtual Result<std::vector<std::string>> Targets(Selection selection,
                                                   std::chrono::milliseconds timeout) = 0;

  // The content of `selection` as `mime` (kTextMime: UTF-8 text). The whole
  // transfer, INCR included, ends within `timeout`. NotFound without an
  // owner; Timeout when the owner does not answer or stalls; Unsupported
  // when it offers no such type (the message lists what it offers);
  // InvalidArgument when the content is larger than `max_bytes` (nothing is
  // kept of it).
  virtual Result<ClipboardData> Get(Selection selection, std::string_view mime,
                                    std::chrono::milliseconds timeout,
                                    size_t max_bytes = kClipboardMaxBytes) = 0;

  // Takes ownership of `selection` with `data` (text is offered as
  // UTF8_STRING, STRING, TEXT, text/plain;charset=utf-8 and text/plain;
  // anything else under its MIME type; TARGETS and TIMESTAMP always).
  // Returns once the server confirms the ownership; apps are answered only
  // inside Serve().
  virtual Status Own(Selection selection, ClipboardData data) = 0;

  // Answers requests for what Own() offers until the selection is lost, the
  // display goes or `until` passes. Unavailable before Own().
  virtual Result<ServeEnd> Serve(std::chrono::steady_clock::time_point until) = 0;
};

// The selections of X display `display` ("" = $DISPLAY) through their own
// X connection. Unavailable when the display cannot be opened.
Result<std::unique_ptr<Clipboard>> OpenX11Clipboard(const std::string& display);

}  // namespace uiscope

// VncConnection: one RFB client connection to a VNC server (libvncclient),
// the transport under VncCapture, VncInput and VncClipboard
// (vnc_backend.h), shared by them.
//
// - A thread reads the server's messages: the framebuffer is kept current
//   from incremental updates (an incremental FramebufferUpdateRequest is
//   always outstanding), and the rectangles updated are kept as damage.
// - Freshness: input sent through the connection is noted (NoteInput); the
//   next WaitFresh() waits for the first update that arrives after it (at
//   most VncOptions::update_wait: no update means nothing changed on
//   screen), then until updates stop for VncOptions::quiet (at most
//   VncOptions::settle_max), so a capture after an action never shows the
//   screen from before it.
// - Health: a dropped connection (the server killed, the network gone, a
//   half-open socket silent past read_timeout) turns the state to
//   kReconnecting with the problem naming the URL; the thread reconnects
//   (every reconnect_interval, doubling up to 5 s) and the state returns to
//   kConnected. Meanwhile every operation fails with Unavailable naming the
//   URL and the problem.
// - Credentials: the password is read from a file (the first line; a
//   trailing newline is not part of it), kept in memory only for
//   (re)connecting, wiped on destruction, and never logged nor put in a
//   message. libvncclient's own log is silenced (its errors become ours).
//   VNC authentication uses at most the first 8 characters.
// - Pixels: 32-bit true colour, lossless encodings only (no JPEG), and the
//   cursor shape is asked for separately so that the server does not paint
//   the pointer into the framebuffer (as an X11 capture has none).
//
// Thread safety: every public member may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"
#include "image/image.h"
#include "platform/vnc/vnc_address.h"

struct _rfbClient;

namespace uiscope {
// rfbClientCleanup(): closes the socket and frees the client.
struct RfbClientDeleter {
  void operator()(_rfbClient* client) const;
};
}  // namespace uiscope

namespace uiscope {

struct VncOptions {
  // A file whose first line is the VNC password; "" = the server needs none.
  std::string password_file;
  std::chrono::milliseconds connect_timeout{5000};  // TCP connect and handshake
  // A connection silent this long while a read is under way is dropped.
  std::chrono::milliseconds read_timeout{5000};
  // Reconnect after a dropped connection; false: the state stays kClosed.
  bool reconnect = true;
  std::chrono::milliseconds reconnect_interval{500};  // first retry; doubles up to 5 s
  // Freshness after input (see WaitFresh). x11vnc (-wait 5 -defer 5) sends
  // one change as several updates tens of milliseconds apart as its polling
  // finds the parts (a click: the button's pressed look, then the status
  // label): with a 25 ms quiet period the capture after a click on the GTK
  // fixture's Login missed the label, with 60 ms it never did (Xvnc sends
  // a change at once). update_wait is how long "nothing changed" takes.
  std::chrono::milliseconds update_wait{150};
  std::chrono::milliseconds quiet{60};
  std::chrono::milliseconds settle_max{500};
  // libvncclient encodings, in order of preference; all lossless.
  std::string encodings = "copyrect zrle hextile zlib raw";
};

enum class VncState {
  kConnected,
  kReconnecting,  // dropped; the thread is trying again
  kClosed,        // dropped and reconnect is off, or the connection is being destroyed
};
std::string_view VncStateName(VncState state);

struct VncHealth {
  VncState state = VncState::kClosed;
  std::string url;          // "vnc://HOST:PORT"
  std::string server_name;  // the desktop name the server announced
  std::string problem;      // why it is not kConnected; "" when connected
  int width = 0;            // framebuffer size, screen pixels
  int height = 0;
  int reconnects = 0;    // successful reconnections since Connect()
  uint64_t updates = 0;  // framebuffer updates received with pixels in them
  // Since the last update with pixels; nullopt before the first.
  std::optional<std::chrono::milliseconds> since_update;
};

class VncConnection {
 public:
  // Connects, authenticates and waits for the first full frame (all within
  // connect_timeout). Unavailable naming the URL when the server cannot be
  // reached or closes the connection; InvalidArgument when the password
  // file cannot be read or the server refuses the password (or needs one
  // and none was given); Timeout when the first frame does not come.
  static Result<std::shared_ptr<VncConnection>> Connect(const VncAddress& address,
                                                        const VncOptions& options = {});
  ~VncConnection();
  VncConnection(const VncConnection&) = delete;
  VncConnection& operator=(const VncConnection&) = delete;

  const VncAddress& address() const { return address_; }
  std::string url() const { return address_.Url(); }
  VncHealth Health() const;
  // OkStatus when connected; Unavailable naming the URL and the problem
  // otherwise.
  Status Usable() const;

  // Framebuffer size (0 x 0 while never connected).
  int width() const;
  int height() const;

  // Where one reader of the damage (a capture) stands: each reader is told
  // what changed since its own previous copy, whatever other readers of the
  // same connection copied meanwhile.
  struct DamageCursor {
    uint64_t seen = 0;   // the last update rectangle it was told of
    uint64_t epoch = 0;  // the connection it was told of (reconnections)
    bool known = false;  // it copied before
  };

  // The pixels of `region` (clipped to the framebuffer by the caller) as
  // RGB. With `damage` and `cursor`: the rectangles updated since the
  // cursor's previous copy, clipped to `region` (nullopt the first time and
  // after a reconnection: unknown; the whole region when more changed than
  // the connection keeps a record of).
  Result<Image> Copy(const Rect& region, std::optional<std::vector<Rect>>* damage = nullptr,
                     DamageCursor* cursor = nullptr);

  // Input was sent: the next WaitFresh() waits for its effect.
  void NoteInput();
  // Where the server last said its pointer is (servers that send cursor
  // position updates: x11vnc does, for moves not made by this client; Xvnc
  // does not); nullopt when it never said.
  std::optional<Point> ServerPointer() const;
  // When input was noted since the last WaitFresh(): waits for the first
  // update after it (up to update_wait), then until updates stop for
  // `quiet` (up to settle_max in all). Returns at once otherwise.
  // Unavailable when the connection drops meanwhile.
  Status WaitFresh();
  // Waits until an update with pixels arrives after `after_updates` (a
  // Health().updates value) or `deadline` passes; true when one came.
  bool WaitForUpdate(uint64_t after_updates, std::chrono::steady_clock::time_point deadline);

  // RFB messages. Unavailable when not connected or the write fails.
  Status SendPointer(Point at, uint8_t button_mask);
  Status SendKey(uint32_t keysym, bool down);
  Status SendCutText(const std::string& latin1);

  // The last cut text the server sent (Latin-1, as sent) and a serial that
  // grows with each; nullopt before the first.
  std::optional<std::string> ServerCutText(uint64_t* serial) const;
  // Waits until the server sends cut text with a serial above `serial`, the
  // connection drops, or `until` passes; true when new text came.
  bool WaitForCutText(uint64_t serial, std::chrono::steady_clock::time_point until);

 private:
  VncConnection(VncAddress address, VncOptions options, std::string password);
  using Client = std::unique_ptr<_rfbClient, RfbClientDeleter>;
  // Makes and initialises a client; nullptr and `error` on failure.
  Client Open(Error* error);
  void Run();
  void Drop(const std::string& problem);  // with mu_ held

  // libvncclient callbacks (the connection is the client's data).
  static char* OnPassword(_rfbClient* client);
  static void OnUpdate(_rfbClient* client, int x, int y, int w, int h);
  static void OnFinished(_rfbClient* client);
  static void OnCutText(_rfbClient* client, const char* text, int length);
  static int8_t OnCursorPos(_rfbClient* client, int x, int y);  // rfbBool

  const VncAddress address_;
  const VncOptions options_;
  std::string password_;

  mutable std::mutex mu_;  // the client, the framebuffer and all state below
  std::condition_variable changed_;
  Client client_;
  VncState state_ = VncState::kConnected;
  std::string problem_;
  std::string server_name_;
  bool stop_ = false;
  int width_ = 0, height_ = 0;
  int reconnects_ = 0;
  int rects_this_update_ = 0;
  uint64_t updates_ = 0;
  std::chrono::steady_clock::time_point last_update_{};
  // The update rectangles, numbered in arrival order (the last
  // kMaxDamageRects); readers keep their place in DamageCursor.
  std::deque<std::pair<uint64_t, Rect>> damage_;
  uint64_t damage_seq_ = 0;    // the number of the last rectangle
  uint64_t damage_floor_ = 0;  // rectangles up to this one were dropped
  uint64_t damage_epoch_ = 1;  // a new connection: what readers saw is void
  bool input_pending_ = false;
  uint64_t input_mark_ = 0;
  std::chrono::steady_clock::time_point input_at_{};
  std::optional<Point> server_pointer_;  // as the server last reported it
  std::optional<std::string> cut_text_;
  uint64_t cut_serial_ = 0;

  std::thread thread_;
};

}  // namespace uiscope

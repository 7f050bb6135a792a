#include "platform/vnc/vnc_connection.h"

#include <rfb/rfbclient.h>
#include <string.h>

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <mutex>

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

// The tag under which a client's data is its VncConnection.
int kClientTag = 0;
// The update rectangles kept for the captures' damage (VncConnection::Copy):
// a capture that fell further behind is told its whole region changed.
// An update of a busy 1080p screen is tens of rectangles.
constexpr size_t kMaxDamageRects = 512;
constexpr std::chrono::milliseconds kMaxReconnectInterval{5000};

// libvncclient logs through two global hooks. Its messages are kept per
// thread (the thread that connects, or the reader) for our errors and never
// printed; none of them holds the password.
thread_local std::vector<std::string> t_log;

void Collect(const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.empty()) return;
  if (t_log.size() >= 16) t_log.erase(t_log.begin());
  t_log.push_back(std::move(text));
}

void SilenceLibraryLog() {
  static std::once_flag once;
  std::call_once(once, [] {
    rfbClientLog = Collect;
    rfbClientErr = Collect;
  });
}

// The library's last few messages, for an error.
std::string LibraryLog() {
  std::string out;
  for (size_t i = t_log.size() > 3 ? t_log.size() - 3 : 0; i < t_log.size(); ++i) {
    if (!out.empty()) out += "; ";
    out += t_log[i];
  }
  return out;
}

bool MentionsAuth(const std::string& text) {
  std::string lower;
  for (char c : text)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower.find("auth") != std::string::npos || lower.find("password") != std::string::npos;
}

VncConnection* Owner(rfbClient* client) {
  return static_cast<VncConnection*>(rfbClientGetClientData(client, &kClientTag));
}

unsigned Seconds(std::chrono::milliseconds ms) {
  return static_cast<unsigned>(std::max<int64_t>(1, (ms.count() + 999) / 1000));
}

thread_local bool t_password_asked = false;

}  // namespace

void RfbClientDeleter::operator()(rfbClient* client) const { rfbClientCleanup(client); }

std::string_view VncStateName(VncState state) {
  switch (state) {
    case VncState::kConnected:
      return "connected";
    case VncState::kReconnecting:
      return "reconnecting";
    case VncState::kClosed:
      return "closed";
  }
  return "closed";
}

VncConnection::VncConnection(VncAddress address, VncOptions options, std::string password)
    : address_(std::move(address)), options_(std::move(options)), password_(std::move(password)) {}

Result<std::shared_ptr<VncConnection>> VncConnection::Connect(const VncAddress& address,
                                                              const VncOptions& options) {
  SilenceLibraryLog();
  std::string password;
  if (!options.password_file.empty()) {
    std::ifstream in(options.password_file);
    if (!in || !std::getline(in, password)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cannot read the VNC password file " + options.password_file + ": " +
                           (in ? "it is empty" : std::string(strerror(errno))));
    }
    if (!password.empty() && password.back() == '\r') password.pop_back();
    if (password.empty()) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "the VNC password file " + options.password_file + " has an empty first line");
    }
  }
  std::shared_ptr<VncConnection> connection(
      new VncConnection(address, options, std::move(password)));
  Error error;
  Client client = connection->Open(&error);
  if (client == nullptr) return error;
  {
    std::lock_guard lock(connection->mu_);
    connection->width_ = client->width;
    connection->height_ = client->height;
    connection->server_name_ = client->desktopName != nullptr ? client->desktopName : "";
    connection->client_ = std::move(client);
  }
  connection->thread_ = std::thread([c = connection.get()] { c->Run(); });
  const auto deadline = Clock::now() + options.connect_timeout;
  if (!connection->WaitForUpdate(0, deadline)) {
    if (Status usable = connection->Usable(); !usable.ok()) return usable.error();
    return MakeError(ErrorCode::kTimeout,
                     "the VNC server at " + address.Url() + " sent no first frame within " +
                         std::to_string(options.connect_timeout.count()) + " ms");
  }
  return connection;
}

VncConnection::~VncConnection() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    state_ = VncState::kClosed;
    changed_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  client_.reset();
  explicit_bzero(password_.data(), password_.size());
}

VncConnection::Client VncConnection::Open(Error* error) {
  t_log.clear();
  t_password_asked = false;
  Client owned(rfbGetClient(8, 3, 4));  // 32-bit true colour: R, G, B, pad bytes
  if (owned == nullptr) {
    *error = MakeError(ErrorCode::kInternal, "libvncclient could not allocate a client");
    return nullptr;
  }
  rfbClient* client = owned.get();
  client->serverHost = strdup(address_.host.c_str());
  client->serverPort = address_.port;
  client->appData.encodingsString = options_.encodings.c_str();
  client->appData.enableJPEG = FALSE;
  client->appData.useRemoteCursor = TRUE;  // the pointer is not painted into the frame
  client->appData.compressLevel = 1;       // loopback: speed over size
  client->canHandleNewFBSize = TRUE;
  client->connectTimeout = Seconds(options_.connect_timeout);
  client->readTimeout = Seconds(options_.read_timeout);
  client->GetPassword = OnPassword;
  client->GotFrameBufferUpdate = OnUpdate;
  client->FinishedFrameBufferUpdate = OnFinished;
  client->GotXCutText = OnCutText;
  client->HandleCursorPos = OnCursorPos;
  rfbClientSetClientData(client, &kClientTag, this);
  const int saved_errno = errno;
  errno = 0;
  // rfbInitClient frees the client when it fails: it is ours again only on success.
  if (!rfbInitClient(owned.release(), nullptr, nullptr)) {
    const int connect_errno = errno;
    std::string log = LibraryLog();
    if (t_password_asked && (MentionsAuth(log) || log.empty())) {
      *error = MakeError(
          ErrorCode::kInvalidArgument,
          "the VNC server at " + address_.Url() + " refused the password" +
              (options_.password_file.empty() ? std::string(": it needs one (give a password file)")
                                              : " from " + options_.password_file) +
              (log.empty() ? "" : " (" + log + ")"));
    } else if (MentionsAuth(log)) {
      *error = MakeError(ErrorCode::kInvalidArgument,
                         "the VNC server at " + address_.Url() + " refused authentication: " + log);
    } else {
      std::string why = log;
      if (connect_errno != 0) why += std::string(why.empty() ? "" : ": ") + strerror(connect_errno);
      *error =
          MakeError(ErrorCode::kUnavailable, "cannot connect to the VNC server at " +
                                                 address_.Url() + (why.empty() ? "" : ": " + why));
    }
    errno = saved_errno;
    return nullptr;
  }
  errno = saved_errno;
  return Client(client);
}

void VncConnection::Drop(const std::string& problem) {
  client_.reset();
  state_ = options_.reconnect ? VncState::kReconnecting : VncState::kClosed;
  problem_ = problem;
  server_pointer_.reset();
  damage_.clear();
  damage_floor_ = damage_seq_;
  ++damage_epoch_;
  changed_.notify_all();
}

void VncConnection::Run() {
  auto backoff = options_.reconnect_interval;
  for (;;) {
    rfbClient* client = nullptr;
    {
      std::unique_lock lock(mu_);
      if (stop_) return;
      client = client_.get();
      if (client == nullptr) {
        if (!options_.reconnect) {
          changed_.wait(lock, [&] { return stop_; });
          return;
        }
        changed_.wait_for(lock, backoff, [&] { return stop_; });
        if (stop_) return;
      }
    }
    if (client == nullptr) {
      Error error;
      Client fresh = Open(&error);
      std::lock_guard lock(mu_);
      if (stop_) return;
      if (fresh == nullptr) {
        problem_ = "the VNC server at " + url() + " is gone (" + error.message + "); reconnecting";
        backoff = std::min(backoff * 2, kMaxReconnectInterval);
        continue;
      }
      width_ = fresh->width;
      height_ = fresh->height;
      client_ = std::move(fresh);
      state_ = VncState::kConnected;
      problem_.clear();
      ++reconnects_;
      backoff = options_.reconnect_interval;
      changed_.notify_all();
      continue;
    }
    // Only this thread reads from the socket or frees the client, so
    // waiting for data needs no lock; handling it (which writes the
    // framebuffer and the next update request) holds it.
    const int ready = WaitForMessage(client, 50 * 1000);
    if (ready == 0) continue;
    std::lock_guard lock(mu_);
    if (stop_) return;
    t_log.clear();
    if (ready < 0 || !HandleRFBServerMessage(client)) {
      const std::string log = LibraryLog();
      Drop("the VNC server at " + url() + " closed the connection" +
           (log.empty() ? "" : " (" + log + ")") + (options_.reconnect ? "; reconnecting" : ""));
    }
  }
}

char* VncConnection::OnPassword(rfbClient* client) {
  t_password_asked = true;
  VncConnection* self = Owner(client);
  // libvncclient frees what it gets.
  return strdup(self != nullptr ? self->password_.c_str() : "");
}

void VncConnection::OnUpdate(rfbClient* client, int x, int y, int w, int h) {
  VncConnection* self = Owner(client);
  if (self == nullptr) return;
  ++self->rects_this_update_;
  self->damage_.emplace_back(++self->damage_seq_, Rect{x, y, w, h});
  if (self->damage_.size() > kMaxDamageRects) {
    self->damage_floor_ = self->damage_.front().first;
    self->damage_.pop_front();
  }
}

void VncConnection::OnFinished(rfbClient* client) {
  VncConnection* self = Owner(client);
  if (self == nullptr) return;
  self->width_ = client->width;
  self->height_ = client->height;
  if (self->rects_this_update_ > 0) {
    ++self->updates_;
    self->last_update_ = Clock::now();
  }
  self->rects_this_update_ = 0;
  self->changed_.notify_all();
}

rfbBool VncConnection::OnCursorPos(rfbClient* client, int x, int y) {
  VncConnection* self = Owner(client);
  if (self == nullptr) return TRUE;
  self->server_pointer_ = Point{x, y};
  self->changed_.notify_all();
  return TRUE;
}

std::optional<Point> VncConnection::ServerPointer() const {
  std::lock_guard lock(mu_);
  return server_pointer_;
}

void VncConnection::OnCutText(rfbClient* client, const char* text, int length) {
  VncConnection* self = Owner(client);
  if (self == nullptr || length < 0) return;
  self->cut_text_ = std::string(text, static_cast<size_t>(length));
  ++self->cut_serial_;
  self->changed_.notify_all();
}

VncHealth VncConnection::Health() const {
  std::lock_guard lock(mu_);
  VncHealth h;
  h.state = state_;
  h.url = url();
  h.server_name = server_name_;
  h.problem = problem_;
  h.width = width_;
  h.height = height_;
  h.reconnects = reconnects_;
  h.updates = updates_;
  if (updates_ > 0) {
    h.since_update =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - last_update_);
  }
  return h;
}

Status VncConnection::Usable() const {
  std::lock_guard lock(mu_);
  if (client_ != nullptr && !stop_) return OkStatus();
  return MakeError(ErrorCode::kUnavailable,
                   problem_.empty() ? "the VNC connection to " + url() + " is closed" : problem_);
}

int VncConnection::width() const {
  std::lock_guard lock(mu_);
  return width_;
}

int VncConnection::height() const {
  std::lock_guard lock(mu_);
  return height_;
}

Result<Image> VncConnection::Copy(const Rect& region, std::optional<std::vector<Rect>>* damage,
                                  DamageCursor* cursor) {
  std::lock_guard lock(mu_);
  if (client_ == nullptr || stop_) {
    return MakeError(ErrorCode::kUnavailable,
                     problem_.empty() ? "the VNC connection to " + url() + " is closed" : problem_);
  }
  const Rect r = Intersect(region, Rect{0, 0, client_->width, client_->height});
  if (r.Empty() || client_->frameBuffer == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the region lies outside the " + std::to_string(client_->width) + "x" +
                         std::to_string(client_->height) + " VNC framebuffer of " + url());
  }
  Image image = MakeImage(r.w, r.h);
  const int bytes = client_->format.bitsPerPixel / 8;
  const rfbPixelFormat& f = client_->format;
  const bool plain = bytes == 4 && f.redShift == 0 && f.greenShift == 8 && f.blueShift == 16 &&
                     f.redMax == 255 && f.greenMax == 255 && f.blueMax == 255;
  for (int y = 0; y < r.h; ++y) {
    const uint8_t* src =
        client_->frameBuffer + (static_cast<size_t>(r.y + y) * client_->width + r.x) * bytes;
    uint8_t* dst = image.Pixel(0, y);
    if (plain) {
      for (int x = 0; x < r.w; ++x, src += 4, dst += 3) {
        dst[0] = src[0];
        dst[1] = src[1];
        dst[2] = src[2];
      }
    } else {
      for (int x = 0; x < r.w; ++x, src += bytes, dst += 3) {
        uint32_t pixel = 0;
        memcpy(&pixel, src, static_cast<size_t>(std::min(bytes, 4)));
        dst[0] = static_cast<uint8_t>(((pixel >> f.redShift) & f.redMax) * 255 /
                                      std::max<int>(1, f.redMax));
        dst[1] = static_cast<uint8_t>(((pixel >> f.greenShift) & f.greenMax) * 255 /
                                      std::max<int>(1, f.greenMax));
        dst[2] = static_cast<uint8_t>(((pixel >> f.blueShift) & f.blueMax) * 255 /
                                      std::max<int>(1, f.blueMax));
      }
    }
  }
  if (damage != nullptr && cursor != nullptr) {
    if (!cursor->known || cursor->epoch != damage_epoch_) {
      *damage = std::nullopt;
    } else if (cursor->seen < damage_floor_) {
      *damage = std::vector<Rect>{r};  // more changed than is kept
    } else {
      std::vector<Rect> out;
      for (const auto& [seq, d] : damage_) {
        if (seq <= cursor->seen) continue;
        const Rect c = Intersect(d, r);
        if (!c.Empty()) out.push_back(c);
      }
      *damage = std::move(out);
    }
    cursor->seen = damage_seq_;
    cursor->epoch = damage_epoch_;
    cursor->known = true;
  }
  return image;
}

void VncConnection::NoteInput() {
  std::lock_guard lock(mu_);
  input_pending_ = true;
  input_mark_ = updates_;
  input_at_ = Clock::now();
}

Status VncConnection::WaitFresh() {
  std::unique_lock lock(mu_);
  auto unusable = [&] {
    return MakeError(ErrorCode::kUnavailable,
                     problem_.empty() ? "the VNC connection to " + url() + " is closed" : problem_);
  };
  if (client_ == nullptr || stop_) return unusable();
  if (!input_pending_) return OkStatus();
  input_pending_ = false;
  const auto start = Clock::now();
  const bool got = changed_.wait_until(lock, input_at_ + options_.update_wait, [&] {
    return stop_ || client_ == nullptr || updates_ > input_mark_;
  });
  if (client_ == nullptr || stop_) return unusable();
  if (!got) return OkStatus();  // nothing on screen changed
  const auto cap = start + options_.settle_max;
  for (;;) {
    const auto now = Clock::now();
    const auto quiet_end = last_update_ + options_.quiet;
    if (now >= quiet_end || now >= cap) break;
    const uint64_t seen = updates_;
    changed_.wait_until(lock, std::min(quiet_end, cap),
                        [&] { return stop_ || client_ == nullptr || updates_ > seen; });
    if (client_ == nullptr || stop_) return unusable();
  }
  return OkStatus();
}

bool VncConnection::WaitForUpdate(uint64_t after_updates, Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  return changed_.wait_until(
             lock, deadline,
             [&] { return stop_ || client_ == nullptr || updates_ > after_updates; }) &&
         client_ != nullptr && !stop_ && updates_ > after_updates;
}

Status VncConnection::SendPointer(Point at, uint8_t button_mask) {
  std::lock_guard lock(mu_);
  if (client_ == nullptr || stop_) {
    return MakeError(ErrorCode::kUnavailable,
                     problem_.empty() ? "the VNC connection to " + url() + " is closed" : problem_);
  }
  if (!SendPointerEvent(client_.get(), at.x, at.y, button_mask)) {
    return MakeError(ErrorCode::kUnavailable,
                     "could not send a pointer event to the VNC server at " + url());
  }
  return OkStatus();
}

Status VncConnection::SendKey(uint32_t keysym, bool down) {
  std::lock_guard lock(mu_);
  if (client_ == nullptr || stop_) {
    return MakeError(ErrorCode::kUnavailable,
                     problem_.empty() ? "the VNC connection to " + url() + " is closed" : problem_);
  }
  if (!SendKeyEvent(client_.get(), keysym, down ? TRUE : FALSE)) {
    return MakeError(ErrorCode::kUnavailable,
                     "could not send a key event to the VNC server at " + url());
  }
  return OkStatus();
}

Status VncConnection::SendCutText(const std::string& latin1) {
  std::lock_guard lock(mu_);
  if (client_ == nullptr || stop_) {
    return MakeError(ErrorCode::kUnavailable,
                     problem_.empty() ? "the VNC connection to " + url() + " is closed" : problem_);
  }
  std::string copy = latin1;  // the library takes a non-const pointer
  if (!SendClientCutText(client_.get(), copy.data(), static_cast<int>(copy.size()))) {
    return MakeError(ErrorCode::kUnavailable,
                     "could not send cut text to the VNC server at " + url());
  }
  return OkStatus();
}

std::optional<std::string> VncConnection::ServerCutText(uint64_t* serial) const {
  std::lock_guard lock(mu_);
  if (serial != nullptr) *serial = cut_serial_;
  return cut_text_;
}

bool VncConnection::WaitForCutText(uint64_t serial, Clock::time_point until) {
  std::unique_lock lock(mu_);
  changed_.wait_until(lock, until,
                      [&] { return stop_ || client_ == nullptr || cut_serial_ > serial; });
  return cut_serial_ > serial;
}

}  // namespace uiscope

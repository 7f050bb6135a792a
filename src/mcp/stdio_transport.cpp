#include "mcp/stdio_transport.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace uiscope::mcp {

void LineSplitter::Feed(std::string_view bytes, const Sink& sink) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view chunk = bytes.substr(0, nl);
    if (discarding_) {
      discarded_ += chunk.size();
    } else if (pending_.size() + chunk.size() > max_) {
      discarding_ = true;
      discarded_ = pending_.size() + chunk.size();
      pending_.clear();
      pending_.shrink_to_fit();
    } else {
      pending_.append(chunk);
    }
    if (nl == std::string_view::npos) return;
    bytes.remove_prefix(nl + 1);
    if (discarding_) {
      sink(Line{{}, true, discarded_});
      discarding_ = false;
      discarded_ = 0;
    } else {
      std::string_view text = pending_;
      const size_t length = text.size();
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      sink(Line{text, false, length});
      pending_.clear();
    }
  }
}

void LineSplitter::Finish(const Sink& sink) {
  if (discarding_) {
    sink(Line{{}, true, discarded_});
  } else if (!pending_.empty()) {
    std::string_view text = pending_;
    if (text.back() == '\r') text.remove_suffix(1);
    sink(Line{text, false, pending_.size()});
  }
  pending_.clear();
  discarding_ = false;
  discarded_ = 0;
}

void HandleLine(Session& session, const LineSplitter::Line& line, size_t max_message_bytes,
                Outbound& out) {
  if (line.too_long) {
    session.HandleBadFrame(
        RpcError{kInvalidRequest,
                 "message too large: " + std::to_string(line.length) + " bytes, the limit is " +
                     std::to_string(max_message_bytes) + "; it was not read",
                 nullptr},
        out);
    return;
  }
  if (line.text.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank line
  Parsed parsed = ParseFrame(line.text);
  if (!parsed.ok) {
    session.HandleBadFrame(parsed.error, out);
    return;
  }
  session.Handle(parsed.value, out);
}

bool FdLineWriter::Send(const json& message) {
  std::string line = DumpMessage(message);
  line += '\n';
  std::lock_guard lock(mutex_);
  if (failed_) return false;
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failed_ = true;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

bool FdLineWriter::failed() const {
  std::lock_guard lock(mutex_);
  return failed_;
}

int ServeStdio(const Server& server, int in_fd, int out_fd, const StdioOptions& options) {
  FdLineWriter out(out_fd);
  auto session = server.NewSession();
  // Notifications the client did not ask for (resource updates) share the
  // one stream; Close() below lets go of it before `out` goes.
  session->SetNotifier(std::shared_ptr<Outbound>(&out, [](Outbound*) {}));
  LineSplitter splitter(options.max_message_bytes);
  auto sink = [&](const LineSplitter::Line& line) {
    HandleLine(*session, line, options.max_message_bytes, out);
  };
  std::string buffer(64 * 1024, '\0');
  while (!session->shutdown_requested() && !out.failed()) {
    if (options.stop_fd >= 0) {
      pollfd fds[2] = {{in_fd, POLLIN, 0}, {options.stop_fd, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[1].revents != 0) break;
    }
    ssize_t n = ::read(in_fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    splitter.Feed(std::string_view(buffer.data(), static_cast<size_t>(n)), sink);
  }
  if (!session->shutdown_requested()) splitter.Finish(sink);
  session->Drain();
  session->Close();
  return out.failed() ? 1 : 0;
}

}  // namespace uiscope::mcp

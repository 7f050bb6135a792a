#include "platform/cdp/cdp_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/ascii.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

std::optional<std::string> ReadSmallFile(const std::string& path, size_t max = 1u << 20) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(max, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::optional<int> ParsePort(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  int port = -1;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc() || p != text.data() + text.size() || port < 0 || port > 65535) {
    return std::nullopt;
  }
  return port;
}

}  // namespace

Result<std::vector<CdpTarget>> ParseCdpTargets(std::string_view body) {
  json list = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!list.is_array()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "DevTools /json/list did not answer a JSON array");
  }
  std::vector<CdpTarget> out;
  for (const json& t : list) {
    if (!t.is_object()) continue;
    auto text = [&](const char* key) {
      auto it = t.find(key);
      return it != t.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    CdpTarget target{text("id"), text("type"), text("url"), text("title"),
                     text("webSocketDebuggerUrl")};
    if (target.id.empty() || target.type.empty()) continue;
    out.push_back(std::move(target));
  }
  return out;
}

Result<std::vector<CdpTarget>> ListCdpTargets(int port, std::chrono::milliseconds timeout) {
  auto body = HttpGetLoopback("127.0.0.1", port, "/json/list", timeout);
  if (!body.ok()) return body.error();
  return ParseCdpTargets(*body);
}

Result<json> CdpVersion(int port, std::chrono::milliseconds timeout) {
  auto body = HttpGetLoopback("127.0.0.1", port, "/json/version", timeout);
  if (!body.ok()) return body.error();
  json version = json::parse(*body, nullptr, false);
  if (!version.is_object()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "DevTools /json/version on port " + std::to_string(port) + " did not answer a JSON object");
  }
  return version;
}

Result<int> DevToolsPortFromCommandLine(
    const std::vector<std::string>& argv,
    const std::function<std::optional<std::string>(const std::string&)>& read_file) {
  constexpr std::string_view kPortFlag = "--remote-debugging-port=";
  constexpr std::string_view kDirFlag = "--user-data-dir=";
  std::optional<int> port;
  std::string profile;
  for (const std::string& arg : argv) {
    // The last occurrence wins, as in Chromium's own switch parsing.
    if (arg.starts_with(kPortFlag)) {
      port = ParsePort(std::string_view(arg).substr(kPortFlag.size()));
      if (!port) {
        return MakeError(ErrorCode::kInvalidArgument, "bad DevTools switch \"" + arg + "\"");
      }
    } else if (arg.starts_with(kDirFlag)) {
      profile = arg.substr(kDirFlag.size());
    }
  }
  if (!port) {
    return MakeError(ErrorCode::kNotFound,
                     "started without --remote-debugging-port, so it has no DevTools endpoint");
  }
  if (*port > 0) return *port;
  // Port 0: the browser chose one and wrote it, then the browser target's
  // path, into <user-data-dir>/DevToolsActivePort.
  if (profile.empty()) {
    return MakeError(ErrorCode::kNotFound,
                     "started with --remote-debugging-port=0 but no --user-data-dir, so its "
                     "DevToolsActivePort file cannot be found");
  }
  const std::string file = profile + "/DevToolsActivePort";
  auto text = read_file(file);
  if (!text) {
    return MakeError(ErrorCode::kNotFound, "no " + file + " (the browser has not written it yet)");
  }
  auto chosen = ParsePort(std::string_view(*text).substr(0, text->find('\n')));
  if (!chosen || *chosen == 0) {
    return MakeError(ErrorCode::kInvalidArgument, file + " does not start with a port");
  }
  return *chosen;
}

Result<int> DevToolsPortOfProcess(int pid) {
  if (pid <= 0) return MakeError(ErrorCode::kNotFound, "no process");
  auto cmdline = ReadSmallFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (!cmdline) {
    return MakeError(ErrorCode::kNotFound,
                     "process " + std::to_string(pid) + " has gone (no /proc entry)");
  }
  std::vector<std::string> argv;
  std::string_view rest(*cmdline);
  while (!rest.empty()) {
    const size_t end = rest.find('\0');
    argv.emplace_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  // A process that set its title (setproctitle) may show its arguments
  // joined by spaces in one string; the switches are then split out of it
  // (a --user-data-dir holding a space is then cut, and only port 0 needs it).
  if (argv.size() == 1 && argv[0].find(" --") != std::string::npos) {
    std::vector<std::string> words;
    std::string_view joined(argv[0]);
    while (!joined.empty()) {
      const size_t end = joined.find(' ');
      if (end != 0) words.emplace_back(joined.substr(0, end));
      if (end == std::string_view::npos) break;
      joined.remove_prefix(end + 1);
    }
    argv = std::move(words);
  }
  return DevToolsPortFromCommandLine(
      argv, [](const std::string& path) { return ReadSmallFile(path, 4096); });
}

bool WantsDevToolsPort(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  for (const std::string& arg : argv) {
    if (arg.starts_with("--remote-debugging-port") || arg.starts_with("--remote-debugging-pipe")) {
      return false;
    }
  }
  const std::string exe = AsciiLower(argv[0].substr(argv[0].rfind('/') + 1));
  if (exe.find("chrom") != std::string::npos || exe.find("electron") != std::string::npos) {
    return true;
  }
  for (const std::string& arg : argv) {
    if (arg.ends_with(".asar")) return true;
  }
  return false;
}

std::vector<std::string> WithDevToolsPort(std::vector<std::string> argv, int port) {
  if (argv.empty()) return argv;
  argv.insert(argv.begin() + 1, "--remote-debugging-port=" + std::to_string(port));
  return argv;
}

Result<int> PickFreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return MakeError(ErrorCode::kInternal, "socket: " + std::string(strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  const std::string why = ok ? "" : strerror(errno);
  close(fd);
  if (!ok) return MakeError(ErrorCode::kUnavailable, "no free port on 127.0.0.1: " + why);
  return static_cast<int>(ntohs(addr.sin_port));
}

Result<std::unique_ptr<CdpConnection>> CdpConnection::Open(std::string_view websocket_url,
                                                           std::chrono::milliseconds timeout) {
  auto socket = WebSocketClient::Connect(websocket_url, timeout);
  if (!socket.ok()) return socket.error();
  return std::unique_ptr<CdpConnection>(new CdpConnection(std::move(socket).value()));
}

Result<int> CdpConnection::Send(std::string_view method, const json& params) {
  const int id = next_id_++;
  json message = {{"id", id}, {"method", method}, {"params", params}};
  std::string text;
  try {
    text = message.dump();
  } catch (const json::exception&) {  // a string that is not UTF-8 (typed text)
    return MakeError(ErrorCode::kInvalidArgument,
                     "the parameters of " + std::string(method) + " are not valid UTF-8");
  }
  // A send to a live loopback socket completes at once unless the browser
  // stopped reading: two seconds say it has.
  if (auto st = socket_->SendText(text, Clock::now() + std::chrono::seconds(2)); !st.ok()) {
    return st.error();
  }
  methods_[id] = std::string(method);
  return id;
}

Result<json> CdpConnection::Await(int id, Clock::time_point deadline) {
  auto method_of = [&](int of) {
    auto it = methods_.find(of);
    return it == methods_.end() ? std::string("command ") + std::to_string(of) : it->second;
  };
  auto finish = [&](json answer) -> Result<json> {
    const std::string method = method_of(id);
    methods_.erase(id);
    if (auto e = answer.find("error"); e != answer.end()) {
      std::string message = e->is_object() ? e->value("message", e->dump()) : e->dump();
      return MakeError(ErrorCode::kInternal, method + " at " + endpoint() + " failed: " + message);
    }
    auto r = answer.find("result");
    if (r == answer.end() || !r->is_object()) return json::object();
    return std::move(*r);
  };
  if (auto it = answers_.find(id); it != answers_.end()) {
    json answer = std::move(it->second);
    answers_.erase(it);
    return finish(std::move(answer));
  }
  while (true) {
    auto text = socket_->Receive(deadline);
    if (!text.ok()) {
      if (text.error().code == ErrorCode::kTimeout) {
        return MakeError(ErrorCode::kTimeout,
                         method_of(id) + ": no answer from " + endpoint() + " before the deadline");
      }
      return text.error();
    }
    json message = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!message.is_object()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       endpoint() + " sent a message that is not a JSON object");
    }
    auto id_it = message.find("id");
    if (id_it == message.end() || !id_it->is_number_integer()) {
      if (message.contains("method")) {
        events_.push_back(std::move(message));
        if (events_.size() > kMaxQueuedEvents) events_.pop_front();
      }
      continue;
    }
    const int got = id_it->get<int>();
    if (got == id) return finish(std::move(message));
    // An answer to a command not awaited yet; an unknown id is dropped.
    if (methods_.contains(got)) answers_[got] = std::move(message);
  }
}

Result<json> CdpConnection::Call(std::string_view method, const json& params,
                                 std::chrono::milliseconds timeout) {
  auto id = Send(method, params);
  if (!id.ok()) return id.error();
  return Await(*id, Clock::now() + timeout);
}

std::vector<json> CdpConnection::TakeEvents() {
  std::vector<json> out(std::make_move_iterator(events_.begin()),
                        std::make_move_iterator(events_.end()));
  events_.clear();
  return out;
}

}  // namespace uiscope

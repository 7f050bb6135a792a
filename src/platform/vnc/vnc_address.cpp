#include "platform/vnc/vnc_address.h"

#include <charconv>

namespace uiscope {
namespace {

constexpr std::string_view kForms =
    "use vnc://HOST[:PORT] (TCP port, default 5900), HOST:DISPLAY (port 5900 + DISPLAY) or "
    "HOST::PORT; an IPv6 host goes in brackets ([::1])";

Error Bad(std::string_view why) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "bad VNC address: " + std::string(why) + "; " + std::string(kForms));
}

// A decimal number in 0..65535; -1 otherwise.
int ParseNumber(std::string_view digits) {
  if (digits.empty() || digits.size() > 5) return -1;
  int value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value > 65535) return -1;
  return value;
}

bool ValidHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

}  // namespace

std::string VncAddress::Url() const {
  const bool v6 = host.find(':') != std::string::npos;
  return "vnc://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<VncAddress> ParseVncAddress(std::string_view text) {
  if (text.empty()) return Bad("it is empty");
  bool url = false;
  if (const size_t scheme = text.find("://"); scheme != std::string_view::npos) {
    if (text.substr(0, scheme) != "vnc") {
      return Bad("the scheme \"" + std::string(text.substr(0, scheme)) + "://\" is not vnc://");
    }
    url = true;
    text.remove_prefix(scheme + 3);
    if (!text.empty() && text.back() == '/') text.remove_suffix(1);  // "vnc://host/"
  }
  // Never echo what follows '@' or '?': it may be a password.
  if (text.find('@') != std::string_view::npos) {
    return Bad("it has a user part (user@): give the password with a password file instead");
  }
  if (text.find('?') != std::string_view::npos || text.find('#') != std::string_view::npos) {
    return Bad("it has a query or fragment: give the password with a password file instead");
  }
  if (text.find('/') != std::string_view::npos) return Bad("it has a path after the host");

  VncAddress out;
  std::string_view rest;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return Bad("the '[' of an IPv6 host is not closed");
    out.host = std::string(text.substr(1, close - 1));
    rest = text.substr(close + 1);
    if (out.host.empty()) return Bad("the host is empty");
    for (char c : out.host) {
      if (!(ValidHostChar(c) || c == ':' || c == '%')) return Bad("the IPv6 host is malformed");
    }
  } else {
    const size_t colon = text.find(':');
    out.host = std::string(text.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon);
    if (out.host.empty()) return Bad("the host is empty");
    for (char c : out.host) {
      if (!ValidHostChar(c))
        return Bad("the host \"" + out.host + "\" has a character not allowed in a host name");
    }
  }
  if (rest.empty()) return out;  // port 5900
  if (rest.front() != ':') return Bad("unexpected text after the host");
  rest.remove_prefix(1);
  const bool double_colon = !rest.empty() && rest.front() == ':';
  if (double_colon) {
    if (url) return Bad("HOST::PORT is not a vnc:// URL form: write vnc://HOST:PORT");
    rest.remove_prefix(1);
  }
  const int number = ParseNumber(rest);
  if (number < 0) return Bad("\"" + std::string(rest) + "\" is not a port or display number");
  if (url || double_colon || number >= 100) {
    if (number == 0) return Bad("port 0 is not a port");
    out.port = number;
  } else {
    out.port = kVncBasePort + number;  // a display number
  }
  return out;
}

}  // namespace uiscope

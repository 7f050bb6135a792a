// VncAddress: where a VNC server listens, parsed from what a user types —
// the pure half of the VNC backend (vnc_connection.h), unit-tested without a
// server.
//
// Accepted forms (the usual VNC conventions; documented in the CLI help):
//   vnc://HOST            TCP port 5900 (RFC 7869: the port of a vnc URI is
//   vnc://HOST:PORT       a TCP port, never a display number)
//   HOST:N                display N (N < 100): TCP port 5900 + N, as
//                         vncviewer reads it; N >= 100 is taken as a port
//   HOST::PORT            TCP port PORT (vncviewer's double colon)
//   HOST                  display 0: port 5900
// HOST is a name, an IPv4 address or a bracketed IPv6 address ("[::1]").
// Credentials never go in the address: a user part ("vnc://u:p@h") or a
// query ("?password=...") is InvalidArgument, and the message does not
// repeat them (the password comes from a file: VncOptions::password_file).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace uiscope {

inline constexpr int kVncBasePort = 5900;

struct VncAddress {
  std::string host;  // without brackets ("::1")
  int port = kVncBasePort;

  // "vnc://HOST:PORT" (IPv6 hosts bracketed): how the backend names the
  // server in messages and how sessions list it.
  std::string Url() const;
  bool operator==(const VncAddress&) const = default;
};

// InvalidArgument naming the accepted forms for anything else: an empty
// host, a port outside 1..65535, a scheme other than vnc://, a path, a user
// part or a query.
Result<VncAddress> ParseVncAddress(std::string_view text);

}  // namespace uiscope

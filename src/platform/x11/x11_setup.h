// The X11 connection set-up (X protocol, section 8), asked of a local
// display over its Unix socket without Xlib: whether its server answers at
// all, and, when it refuses a client, the reason it gives. Xlib prints that
// reason on stderr and returns only NULL from XOpenDisplay, which reads the
// same as a server that is not running; "Maximum number of clients reached"
// (Xvfb serves a fixed number) deserves its own message.
//
// Each call opens its own connection and closes it; a stopped (SIGSTOP) or
// wedged server costs the timeout, never a hang. Thread-safe.
#pragma once

#include <string>

namespace uiscope::x11 {

struct SetupAnswer {
  enum class Kind {
    kNotLocal,      // not a local display name (":N" or ":N.S")
    kNoServer,      // nothing listens at /tmp/.X11-unix/XN
    kNoAnswer,      // no reply within the timeout
    kClosed,        // the server closed the connection without a reply
    kRefused,       // set-up failed: `reason` says why
    kAccepted,      // set-up succeeded
    kAuthenticate,  // the server asks for more authentication
  };
  Kind kind = Kind::kNoServer;
  std::string reason;  // kRefused: the server's words; otherwise what happened
};

// Sends a set-up request (little-endian, protocol 11.0, no authorisation)
// to `display_name` and reads the reply's status, and a refusal's reason.
SetupAnswer AskSetup(const std::string& display_name, int timeout_ms);

// True when `answer` is the server refusing one more client: its client
// table is full.
bool IsTooManyClients(const SetupAnswer& answer);

}  // namespace uiscope::x11

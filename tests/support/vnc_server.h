// VNC servers for tests: free loopback ports, and x11vnc serving a test
// desktop, with their logs in a private directory removed at exit.
#pragma once

#include <memory>
#include <string>

#include "session/process.h"

namespace uiscope::test {

// A TCP port nothing listens on now (the kernel's pick).
int FreePort();

// Whether something accepts connections on loopback `port`.
bool Listening(int port);

// A private directory for the servers' logs and password files, removed at
// exit (after the suites' teardown stopped the servers).
const std::string& VncTempDir();

// x11vnc serving `display` on `port` (loopback only, no password, polling
// every 5 ms); nullptr and a test failure when it does not listen in 15 s.
std::unique_ptr<Process> StartX11Vnc(const std::string& display, int port);

// The last lines of a server's log, for failure messages.
std::string VncLogTail(const std::string& path);

}  // namespace uiscope::test

// Accessibility: the interface between the engine and an accessibility
// backend (DESIGN §2, §5.1).
//
// The real implementation is AtspiAccessibility (atspi/atspi_tree.h), which
// talks AT-SPI2 over raw, pipelined D-Bus; tests use the fake in
// tests/support. Implementations return plain core::Node trees without IDs
// (core/ids.h assigns them) with bounds in screen pixels of the display.
//
// Thread safety: one instance is used from one thread at a time.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/result.h"

namespace uiscope {

struct AppInfo {
  std::string name;             // accessible name of the application ("gedit")
  int pid = 0;                  // 0 when the bus does not know it
  std::string toolkit;          // "GTK", "Qt", "Chromium", ...
  std::string toolkit_version;  // "3.24.38"
  std::string bus_name;         // the app's unique name on the accessibility bus
};

struct TreeRequest {
  std::string app_name;         // only apps whose name equals this (case-insensitive); "" = all
  int pid = 0;                  // only this process; 0 = all
  bool include_hidden = false;  // keep non-showing and scrolled-out nodes
  int max_depth = 64;           // deeper nodes are not fetched
  int max_nodes = 20000;        // the walk stops adding nodes past this many
  std::chrono::milliseconds timeout{2000};  // per application
  bool fetch_actions = true;
  bool fetch_values = true;  // text of fields, value of sliders (never of passwords)
  // Applications never to read (the safety policy's deny list): true for an
  // application name means its tree is not fetched at all, and it is left
  // out of listings in errors. Asking for one by pid is kDenied.
  std::function<bool(const std::string& app_name)> skip_app;
};

struct TreeResult {
  std::vector<Node> apps;             // role kApplication, children windows
  std::vector<std::string> warnings;  // an app that timed out, a capped walk, ...
  int requests = 0;                   // D-Bus requests sent (for benchmarks)
};

class Accessibility {
 public:
  virtual ~Accessibility() = default;
  // Applications registered on the accessibility bus.
  virtual Result<std::vector<AppInfo>> ListApps() = 0;
  // The trees of the requested applications. An unknown app name or pid is a
  // NotFound error listing the applications present; an application that
  // stops answering is dropped with a warning once its deadline passes.
  virtual Result<TreeResult> Tree(const TreeRequest& request) = 0;
};

struct AtspiOptions {
  std::string session_bus_address;  // "" = $DBUS_SESSION_BUS_ADDRESS
  std::string display;              // for the AT_SPI_BUS root-window fallback; "" = $DISPLAY
  std::chrono::milliseconds connect_timeout{3000};
  bool peer_to_peer = true;  // talk to apps on their private sockets when they offer one
};

// Connects to the AT-SPI2 bus of the session. Unavailable errors say what
// to start ("no D-Bus session ...: run `uiscope session start`").
Result<std::unique_ptr<Accessibility>> ConnectAtspi(const AtspiOptions& options = {});

}  // namespace uiscope

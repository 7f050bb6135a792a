// `uiscope windows` (DESIGN §11): the desktop's top-level windows.
#include <cstdio>
#include <iostream>

#include "core/escape.h"
#include "core/format.h"
#include "engine/apps.h"
#include "hands_commands.h"
#include "mcp/wire.h"

namespace uiscope::cli {

CLI::App* AddWindowsCommand(CLI::App& app, GlobalFlags& g) {
  auto* cmd = app.add_subcommand(
      "windows", "list the top-level windows (id, app, pid, bounds, title), top-most last");
  cmd->add_option("--config", g.config,
                  "safety policy file (default ~/.config/uiscope/config.json)");
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
  return cmd;
}

int RunWindowsCommand(const GlobalFlags& g) {
  auto where = ActingWorkspace(g);
  if (!where.ok()) return Fail(g, where.error());
  Workspace workspace(*where);
  auto lease = workspace.Acquire("", Workspace::Need::kHands);
  if (!lease.ok()) return Fail(g, lease.error());
  auto windows = ListDesktopWindows(*lease);
  if (!windows.ok()) return Fail(g, windows.error());
  const bool wm = lease->hands->windows->has_window_manager();
  if (g.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const WindowEntry& e : *windows) list.push_back(WindowEntryToJson(e));
    std::cout << nlohmann::json{{"windows", list},
                                {"window_manager", wm},
                                {"display", lease->display}}
                     .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
    return kExitOk;
  }
  if (windows->empty()) std::cerr << "uiscope: no windows on " << lease->display << "\n";
  for (const WindowEntry& e : *windows) {
    const WindowInfo& w = e.window;
    std::printf("%-10s %-20s pid=%-7d %d,%d,%d,%d%s%s  %s\n", WindowIdText(w.id).c_str(),
                EscapeForDisplay(e.app, 20).c_str(), w.pid, w.bounds.x, w.bounds.y, w.bounds.w,
                w.bounds.h, w.focused ? " focused" : "", w.visible ? "" : " hidden",
                QuoteForDisplay(w.title, 80).c_str());
  }
  return kExitOk;
}

}  // namespace uiscope::cli

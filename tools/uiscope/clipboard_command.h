// `uiscope clipboard` (issue 15 part 10):
//   uiscope clipboard get [--mime M] [--selection clipboard|primary] [--out FILE]
//   uiscope clipboard set TEXT | --stdin | --file F [--mime M] [--selection S]
// get prints the selection's text (or writes it, or an image/png, to
// --out), refused when the deny list hides its owner; set is an action:
// through the safety policy and the audit log (mime and size only), then a
// holder process keeps the content until another app copies, the session
// ends or --hold-hours pass (session/clipboard_holder.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli.h"

namespace uiscope::cli {

struct ClipboardFlags {
  std::string selection = "clipboard";
  std::string mime = "text/plain";
  std::string out;  // get: the file ("" = stdout)
  int timeout_ms = 5000;
  // set: exactly one source of the content.
  std::string text;
  bool stdin_text = false;
  std::string file;
  int hold_hours = 8;
  std::string confirmation_token;
  int wait_confirm_s = 0;
};

struct ClipboardCommands {
  CLI::App* get = nullptr;
  CLI::App* set = nullptr;
};
ClipboardCommands AddClipboardCommand(CLI::App& app, GlobalFlags& g, ClipboardFlags& f);
int RunClipboardGetCommand(const GlobalFlags& g, const ClipboardFlags& f);
int RunClipboardSetCommand(const GlobalFlags& g, const ClipboardFlags& f);

}  // namespace uiscope::cli

// The learned memory on the command line (DESIGN §11, seed 002 §4.3, §11):
//   uiscope teach  LABEL --at X,Y [--size WxH] [--role ROLE]
//   uiscope memory list | show APP | forget APP|--all | export APP
// `teach` remembers a target a person names in the window under X,Y (its
// place relative to the window and a fingerprint of its pixels), so that
// later observations and `find` show it even where no accessibility tree
// does. `memory` lists what was learned, per app, and forgets it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli.h"

namespace uiscope::cli {

struct TeachFlags {
  std::string label;
  std::string at;    // "X,Y", screen pixels
  std::string size;  // "WxH"; default 50x30 around the point
  std::string role = "button";
};

struct MemoryFlags {
  std::string app;
  bool all = false;
};

struct MemoryCommands {
  CLI::App* teach = nullptr;
  CLI::App* list = nullptr;
  CLI::App* show = nullptr;
  CLI::App* forget = nullptr;
  CLI::App* exp = nullptr;
};

MemoryCommands AddMemoryCommands(CLI::App& app, GlobalFlags& g, TeachFlags& t, MemoryFlags& m);
// The exit code when one of them was parsed; -1 otherwise.
int RunMemoryCommands(const MemoryCommands& c, const GlobalFlags& g, const TeachFlags& t,
                      const MemoryFlags& m);

}  // namespace uiscope::cli

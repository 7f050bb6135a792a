// The name the kernel gives a process, for matching windows to applications.
#pragma once

#include <string>

namespace uiscope {

// The kernel's name of process `pid` (/proc/PID/comm: its executable's base
// name, at most 15 bytes); "" when it cannot be read (no such process, pid
// <= 0).
std::string ProcessName(int pid);

// The command line of process `pid` (/proc/PID/cmdline), its arguments
// joined by spaces, at most 4096 bytes; "" when it cannot be read.
std::string ProcessCommandLine(int pid);

}  // namespace uiscope

// The name the kernel gives a process, for matching windows to applications.
#pragma once

#include <string>
#include <string_view>

namespace uiscope {

// The kernel's name of process `pid` (/proc/PID/comm: its executable's base
// name, at most 15 bytes); "" when it cannot be read (no such process, pid
// <= 0).
std::string ProcessName(int pid);

// The command line of process `pid` (/proc/PID/cmdline), its arguments
// joined by spaces, at most 4096 bytes; "" when it cannot be read.
std::string ProcessCommandLine(int pid);

// The file process `pid` runs (/proc/PID/exe: "/usr/bin/python3.11" for a
// process launched as python3); "" when it cannot be read (another user's
// process, or gone).
std::string ProcessExecutable(int pid);

// The parent of process `pid` (/proc/PID/stat); 0 when it cannot be read.
int ParentProcess(int pid);

// Whether `wanted`, a name a person types, names process `pid`: core/
// app_name.h's rule against its kernel name, its launch name (argv[0]) and
// the file it runs ("libreoffice" names soffice.bin, installed in
// /usr/lib/libreoffice; "python3" names a Python GTK app that calls itself
// "named-by-label"; "java" a Swing app named after its window).
bool ProcessAnswersTo(std::string_view wanted, int pid);

// Whether `wanted` names the parent of process `pid` (ProcessAnswersTo),
// not pid 1: a launcher named "foo" that started the app as its child.
bool ParentAnswersTo(std::string_view wanted, int pid);

}  // namespace uiscope

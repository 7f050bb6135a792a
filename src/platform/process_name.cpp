#include "platform/process_name.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/app_name.h"

namespace uiscope {

std::string ProcessName(int pid) {
  if (pid <= 0) return "";
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

std::string ProcessCommandLine(int pid) {
  if (pid <= 0) return "";
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string line(4096, '\0');
  in.read(line.data(), static_cast<std::streamsize>(line.size()));
  line.resize(static_cast<size_t>(in.gcount()));
  while (!line.empty() && line.back() == '\0') line.pop_back();
  for (char& c : line) {
    if (c == '\0') c = ' ';
  }
  return line;
}

std::string ProcessExecutable(int pid) {
  if (pid <= 0) return "";
  std::error_code ec;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  return ec ? "" : exe.string();
}

int ParentProcess(int pid) {
  if (pid <= 0) return 0;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  // "PID (comm) STATE PPID ...": comm may hold spaces and parentheses, so the
  // fields are counted from the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  int ppid = 0;
  rest >> state >> ppid;
  return rest ? ppid : 0;
}

bool ProcessAnswersTo(std::string_view wanted, int pid) {
  if (pid <= 0) return false;
  const std::string command = ProcessCommandLine(pid);
  const std::string_view launch = std::string_view(command).substr(0, command.find(' '));
  return AppNameMatches(wanted, ProcessName(pid), launch) ||
         AppNameMatches(wanted, "", ProcessExecutable(pid));
}

bool ParentAnswersTo(std::string_view wanted, int pid) {
  const int parent = ParentProcess(pid);
  return parent > 1 && ProcessAnswersTo(wanted, parent);
}

}  // namespace uiscope

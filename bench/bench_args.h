// What every bench does with its command line and its state: --help prints
// the usage to stdout and exits 0 before anything starts, an unknown
// argument prints it to stderr and exits 2, and what the desktops a bench
// starts write goes to $UISCOPE_STATE_DIR or a private temporary directory,
// never the user's own state or home (issue 21 item 7).
#pragma once

#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

namespace uiscope::bench {

// True when the command line holds --help or -h; the usage went to stdout.
inline bool HelpAsked(int argc, char** argv, const char* usage) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(usage, stdout);
      return true;
    }
  }
  return false;
}

// An argument the bench does not know: the usage to stderr; returns 2.
inline int BadUsage(const char* argument, const char* usage) {
  std::fprintf(stderr, "unknown or incomplete argument \"%s\"\n%s", argument, usage);
  return 2;
}

// For the bench's life, a private temporary directory holding what the
// desktops it starts write: UISCOPE_STATE_DIR (unless set: the sessions'
// registry) and XDG_CONFIG_HOME, XDG_CACHE_HOME and XDG_DATA_HOME, which the
// desktop's helpers and apps inherit (openbox's log, dconf's database would
// otherwise land in $HOME). Removed at the end; declare it before the
// desktops, so that they stop first.
class PrivateStateDir {
 public:
  PrivateStateDir() {
    std::string path = (std::filesystem::temp_directory_path() / "uiscope-bench-XXXXXX").string();
    if (mkdtemp(path.data()) == nullptr) return;
    path_ = path;
    const char* set = std::getenv("UISCOPE_STATE_DIR");
    if (set == nullptr || *set == '\0') Point("UISCOPE_STATE_DIR", "state");
    Point("XDG_CONFIG_HOME", "config");
    Point("XDG_CACHE_HOME", "cache");
    Point("XDG_DATA_HOME", "data");
  }
  ~PrivateStateDir() {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  PrivateStateDir(const PrivateStateDir&) = delete;
  PrivateStateDir& operator=(const PrivateStateDir&) = delete;

 private:
  void Point(const char* variable, const char* name) {
    const std::string dir = path_ + "/" + name;
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    setenv(variable, dir.c_str(), 1);
  }

  std::string path_;
};

}  // namespace uiscope::bench

// What every bench does with its command line and its state: --help prints
// the usage to stdout and exits 0 before anything starts, an unknown
// argument prints it to stderr and exits 2, and the sessions a bench starts
// register under $UISCOPE_STATE_DIR or a private temporary directory —
// never the user's own state (issue 21 item 7).
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

// Unless UISCOPE_STATE_DIR is set, points it at a private temporary
// directory for the bench's life and removes it at the end (declare it
// before the desktops, so that they stop first).
class PrivateStateDir {
 public:
  PrivateStateDir() {
    const char* set = std::getenv("UISCOPE_STATE_DIR");
    if (set != nullptr && *set != '\0') return;
    std::string path = (std::filesystem::temp_directory_path() / "uiscope-bench-XXXXXX").string();
    if (mkdtemp(path.data()) == nullptr) return;
    path_ = path;
    setenv("UISCOPE_STATE_DIR", path_.c_str(), 1);
  }
  ~PrivateStateDir() {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
    unsetenv("UISCOPE_STATE_DIR");
  }
  PrivateStateDir(const PrivateStateDir&) = delete;
  PrivateStateDir& operator=(const PrivateStateDir&) = delete;

 private:
  std::string path_;
};

}  // namespace uiscope::bench

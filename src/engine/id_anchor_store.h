// IdAnchorStore: the ID anchors (core/id_anchors.h) of each application kept
// on disk, so that every process observing one desktop — each CLI call, an
// MCP server beside them — gives an app's objects the same IDs.
//
// One file per application, named after its unique bus name, in a directory
// per display (DirFor: SessionStateDir()/ids/<display>/, 0700). A file holds
// the app's name and pid too: a bus name is never reused on one bus, but a
// later session on the same display has a new bus that hands out the same
// names, so a file whose pid or name differs from the app's is someone
// else's and is ignored. Each file holds at most kMaxAnchorsPerApp anchors
// (about 100 bytes each: ~2 MB at the bound).
//
// Files are written whole to a private temporary (0600) and renamed over the
// old one, so a reader never sees a torn file; two processes saving the same
// app at once: the last rename wins (both wrote anchors derived from the same
// file, so they differ only in objects one of them saw and the other did
// not). A file that cannot be parsed is ignored with a warning, and replaced
// by the next save.
//
// Not thread-safe: one store per Observer.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/id_anchors.h"
#include "core/result.h"

namespace uiscope {

// Whose anchors a file holds.
struct AnchoredApp {
  std::string owner;  // unique bus name (BackendRef::owner)
  std::string name;
  int pid = 0;
};

class IdAnchorStore {
 public:
  explicit IdAnchorStore(std::string dir) : dir_(std::move(dir)) {}

  // SessionStateDir()/ids/<display, as a file name>.
  static std::string DirFor(const std::string& display);

  // Replaces anchors.apps[app.owner] with the file's anchors when the file
  // changed since this store last read or wrote it (another process saved
  // it); does nothing when it did not, or there is none. A corrupt file or
  // one of another app leaves `anchors` as it is; corruption adds a warning.
  void Load(const AnchoredApp& app, IdAnchors& anchors, std::vector<std::string>& warnings);

  // Writes the app's anchors (atomically, see above).
  Status Save(const AnchoredApp& app, const AppAnchors& anchors);

  // Whether files of bus names other than `alive` exist.
  bool HoldsOthers(const std::set<std::string>& alive) const;
  // Deletes the files of every bus name not in `alive` (apps that exited).
  void Forget(const std::set<std::string>& alive);

  std::string PathFor(const std::string& owner) const;

 private:
  struct Stamp {
    long long mtime_ns = 0;
    long long size = 0;
    unsigned long long inode = 0;
    bool operator==(const Stamp&) const = default;
  };
  std::string dir_;
  std::map<std::string, Stamp> stamps_;  // by owner: the file as last read or written
};

}  // namespace uiscope

// Which perception made an ID (issue 15 §5): the IDs of OCR and vision nodes
// exist only in an observation that ran those sources, so an action on one
// — in another CLI process, or in an MCP server whose observer keeps only
// the accessibility tree — must perceive again with the same sources and
// scope to find it. Perceive records here, per display in the state
// directory, the pixel-sourced IDs of its last few observations; the action
// executor looks an unknown ID up and re-perceives.
//
// Not thread-safe; the file is written whole and renamed, so concurrent
// processes lose at most each other's latest record.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/node.h"

namespace uiscope {

struct PixelIdOrigin {
  bool ocr = false;
  bool vision = false;
  std::string app;  // the observation's scope
  int pid = 0;
  bool ax = true;  // false: pixels alone (`--sources vision`), the tree left out
};

class PixelIds {
 public:
  // Observations remembered per display.
  static constexpr size_t kKept = 4;

  explicit PixelIds(std::string file) : file_(std::move(file)) {}

  // Records the OCR and vision nodes of `roots` (those not from
  // accessibility) as made by `origin`. Nothing is written without any.
  void Remember(const std::vector<Node>& roots, const PixelIdOrigin& origin);
  // The sources and scope that made `id`, from the latest record holding it.
  std::optional<PixelIdOrigin> Lookup(const std::string& id) const;

 private:
  std::string file_;
};

// The record file of display `display` in state directory `dir`.
std::string PixelIdsFile(const std::string& dir, const std::string& display);

}  // namespace uiscope

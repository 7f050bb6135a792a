// wait_for (DESIGN §7): waits, with a deadline, until the screen shows
// what the caller expects — an element by ID, an element by name (and
// role), a text (in the accessibility tree, else read by OCR), an element
// gone, or any change — and returns what it saw.
//
// Each poll takes the workspace lease, observes and releases it again, so a
// long wait never holds up other tools. The observation is the same one
// observe and actions use (IDs reconciled with the caller's), refreshing
// only one application when the condition is scoped to it.
//
// Thread-safe: runs on the caller's thread; the workspace serialises polls.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/diff.h"
#include "core/node.h"
#include "core/result.h"
#include "engine/read_text.h"
#include "engine/verify.h"
#include "engine/workspace.h"

namespace uiscope {

struct WaitCondition {
  enum class Kind { kElement, kName, kText, kGone, kChange };
  Kind kind = Kind::kChange;
  std::string id;  // kElement, kGone
  std::string
      name;  // kName: substring of the name (case- and accent-insensitive) or, exact, the name
  std::optional<Role> role;  // kName: only this role (also alone, without a name)
  bool exact = false;        // kName
  std::string text;          // kText: case-insensitive substring of a name, value or OCR line
  bool ocr = true;           // kText: read the pixels when the tree has no match
};

// "id btn_1a2b", "name \"Login\" (button)", "text \"Saved\"", "gone btn_1a2b", "any change".
std::string DescribeCondition(const WaitCondition& condition);

struct WaitForRequest {
  WaitCondition condition;
  std::string session;  // uiscope session ("" = the workspace's default desktop)
  std::string app;      // only this application (accessible name, case-insensitive)
  int pid = 0;          // only this process
  std::chrono::milliseconds timeout{5000};
  // Pause between polls (0: as fast as observing allows, with a 20 ms floor).
  std::chrono::milliseconds interval{0};
  std::chrono::milliseconds tree_timeout{2000};  // per accessibility walk
  // OCR, every `ocr_interval`, for kText when the tree has no match.
  std::chrono::milliseconds ocr_interval{500};
  TextReader* reader = nullptr;  // OCR engine; null = no OCR
  std::function<bool()> cancelled;
  // Called after each poll: elapsed ms, polls so far.
  std::function<void(double, int)> progress;
};

struct TextMatch {
  std::string text;  // the line or node text that matched
  Rect bounds;       // screen pixels
  double confidence = 1;
};

struct WaitForResult {
  bool satisfied = false;
  std::string condition;  // DescribeCondition
  std::string seen_in;    // "tree", "ocr", "pixels" (kChange without a tree change), ""
  double waited_ms = 0;
  int polls = 0;
  std::vector<Node> matches;            // kElement / kName / kText in the tree (without children)
  std::vector<TextMatch> text_matches;  // kText by OCR
  std::optional<Node> last_seen;        // kGone: the element as last seen
  TreeDiff change;                      // kChange: what changed
  PixelChange pixels;                   // kChange: the pixel change
  std::vector<std::string> warnings;
  // Applications the last poll could not read because they did not answer
  // ("gedit (pid 42)"): what may hide the awaited element.
  std::vector<std::string> not_answering;
  std::string display;
};

// Polls until the condition holds or the timeout passes; no poll waits for
// an application past the deadline, so the call ends within it (plus one
// poll's own work). Not satisfied by the deadline is a result (satisfied =
// false, with not_answering naming apps that did not answer), not an
// error. Errors: InvalidArgument (an empty condition), whatever acquiring
// the desktop or observing reports on the first poll (later failed polls
// are warnings), and Timeout naming the application when it never answered
// a poll (a scoped wait on a hung app).
Result<WaitForResult> WaitFor(Workspace& workspace, const WaitForRequest& request);

}  // namespace uiscope

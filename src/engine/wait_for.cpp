#include "engine/wait_for.h"

#include <algorithm>
#include <cctype>
#include <thread>

#include "core/app_name.h"
#include "core/ascii.h"
#include "core/clock.h"
#include "core/format.h"
#include "core/fuzzy.h"
#include "core/ids.h"
#include "engine/find.h"
#include "image/image_diff.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kMinInterval = std::chrono::milliseconds(20);
// Less time than this left is not worth a poll (see the loop).
constexpr auto kMinPollTime = std::chrono::milliseconds(50);
constexpr int kMaxMatches = 20;

Node Shallow(const Node& n) {
  Node c = n;
  c.children.clear();
  return c;
}

// The roots of the application the request is scoped to (all when none).
std::vector<Node> InScope(std::vector<Node> roots, const WaitForRequest& r) {
  if (r.app.empty() && r.pid == 0) return roots;
  std::vector<Node> out;
  for (Node& n : roots) {
    if (r.pid != 0 && n.pid != r.pid) continue;
    if (!r.app.empty() && !AppNameMatches(r.app, n.name)) continue;
    out.push_back(std::move(n));
  }
  return out;
}

// Observes for one poll: only the scoped application when its process is
// known and the observer's last observation covered everything. The poll
// waits for no application past the wait's `deadline`: a hung app costs
// what is left of the wait, never a whole tree_timeout more (issue 14).
Result<Observation> ObserveFor(Observer& observer, const WaitForRequest& r,
                               Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  const auto timeout = std::clamp(left, std::chrono::milliseconds(1), r.tree_timeout);
  int pid = r.pid;
  if (pid == 0 && !r.condition.id.empty()) {
    if (const Node* known = FindById(observer.last_roots(), r.condition.id)) pid = known->pid;
  }
  if (pid == 0 && !r.app.empty()) {
    for (const Node& root : observer.last_roots()) {
      if (AppNameMatches(r.app, root.name)) pid = root.pid;
    }
  }
  if (pid > 0 && observer.last_was_full()) return observer.RefreshApp(pid, timeout);
  ObserveRequest all;
  all.timeout = timeout;
  all.deadline = deadline;
  return observer.Observe(all);
}

// The screen area OCR and pixel comparison look at: the scoped app's
// windows, else the whole screen.
std::optional<Rect> ScopeRegion(const std::vector<Node>& roots, const WaitForRequest& r,
                                const Frame& frame) {
  if (frame.width <= 0 || frame.height <= 0) return std::nullopt;
  Rect screen{0, 0, frame.width, frame.height};
  if (r.app.empty() && r.pid == 0) return screen;
  Rect area;
  for (const Node& app : roots) {
    for (const Node& w : app.children) {
      if (w.bounds) area = Union(area, *w.bounds);
    }
  }
  area = ClampToFrame(area, frame.width, frame.height);
  return area.Empty() ? screen : area;
}

void TextInTree(const std::vector<Node>& roots, const std::string& needle,
                std::vector<Node>& matches) {
  ForEachNode(roots, [&](const Node& n, int) {
    if (static_cast<int>(matches.size()) >= kMaxMatches) return;
    if (n.role == Role::kApplication) return;
    if (AsciiLower(n.name).find(needle) != std::string::npos ||
        (!n.Has(State::kPassword) && AsciiLower(n.value).find(needle) != std::string::npos)) {
      matches.push_back(Shallow(n));
    }
  });
}

}  // namespace

std::string DescribeCondition(const WaitCondition& c) {
  switch (c.kind) {
    case WaitCondition::Kind::kElement:
      return "element " + c.id;
    case WaitCondition::Kind::kName: {
      std::string out = c.name.empty() ? "an element" : "name \"" + c.name + "\"";
      if (c.role) out += " (" + std::string(RoleName(*c.role)) + ")";
      return out;
    }
    case WaitCondition::Kind::kText:
      return "text \"" + c.text + "\"";
    case WaitCondition::Kind::kGone:
      return "element " + c.id + " gone";
    case WaitCondition::Kind::kChange:
      return "any change";
  }
  return "";
}

Result<WaitForResult> WaitFor(Workspace& workspace, const WaitForRequest& r) {
  const WaitCondition& c = r.condition;
  using Kind = WaitCondition::Kind;
  if ((c.kind == Kind::kElement || c.kind == Kind::kGone) && c.id.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "waiting for an element needs its ID");
  }
  if (c.kind == Kind::kName && c.name.empty() && !c.role) {
    return MakeError(ErrorCode::kInvalidArgument, "waiting by name needs a name or a role");
  }
  if (c.kind == Kind::kText && c.text.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "waiting for a text needs the text");
  }
  WaitForResult result;
  result.condition = DescribeCondition(c);
  const auto start = Clock::now();
  const auto deadline = start + r.timeout;
  const auto interval = std::max<std::chrono::milliseconds>(r.interval, kMinInterval);
  const bool wants_pixels = c.kind == Kind::kChange || (c.kind == Kind::kText && c.ocr);
  const std::string needle = AsciiLower(c.text);

  std::optional<std::vector<Node>> baseline;  // kChange
  std::optional<Image> baseline_pixels;
  std::optional<Rect> region;
  std::optional<Clock::time_point> last_ocr;
  bool warned_ocr = false;
  // An application not answering may answer later: such a poll is retried
  // until the deadline, and its error is the result only when no poll saw
  // the desktop at all.
  std::optional<Error> unanswered_error;
  bool observed = false;

  while (true) {
    const auto poll_start = Clock::now();
    ++result.polls;
    bool done = false;
    {
      auto lease = workspace.Acquire(
          r.session, wants_pixels ? Workspace::Need::kHands : Workspace::Need::kObserve);
      if (!lease.ok()) {
        if (result.polls == 1) return lease.error();
        result.warnings.push_back("poll " + std::to_string(result.polls) +
                                  " failed: " + lease.error().message);
      } else {
        result.display = lease->display;
        auto obs = ObserveFor(*lease->observer, r, deadline);
        if (!obs.ok() && obs.error().code == ErrorCode::kTimeout) {
          unanswered_error = obs.error();
          if (result.warnings.size() < 8) {
            result.warnings.push_back("poll " + std::to_string(result.polls) + ": " +
                                      obs.error().message);
          }
        } else if (!obs.ok()) {
          if (result.polls == 1 && c.kind != Kind::kGone) return obs.error();
          // An app that quit is gone, and so is every element of it.
          if (c.kind == Kind::kGone &&
              (obs.error().code == ErrorCode::kNotFound || obs.error().code == ErrorCode::kStale)) {
            done = true;
            result.seen_in = "tree";
          } else if (result.warnings.size() < 8) {
            result.warnings.push_back("observing failed: " + obs.error().message);
          }
        } else {
          // The scoped app left out for not answering: this poll saw nothing.
          bool scope_unanswered = false;
          for (const AppInfo& app : obs->unanswered) {
            if ((r.pid != 0 && app.pid == r.pid) ||
                (!r.app.empty() && AppNameMatches(r.app, app.name))) {
              scope_unanswered = true;
              unanswered_error = MakeError(
                  ErrorCode::kTimeout,
                  "application " + app.name + " (pid " + std::to_string(app.pid) +
                      ") is not answering: it is busy or hung. Wait and retry, or close it "
                      "(app_close)");
            }
          }
          observed |= !scope_unanswered;
          for (auto& w : obs->warnings) {
            if (result.warnings.size() < 8 &&
                std::find(result.warnings.begin(), result.warnings.end(), w) ==
                    result.warnings.end()) {
              result.warnings.push_back(std::move(w));
            }
          }
          result.not_answering.clear();
          for (const AppInfo& app : obs->unanswered) {
            result.not_answering.push_back((app.name.empty() ? "(no name)" : app.name) + " (pid " +
                                           std::to_string(app.pid) + ")");
          }
          std::vector<Node> roots = InScope(std::move(obs->snapshot.roots), r);
          if (!region) region = ScopeRegion(roots, r, lease->frame);
          ScreenCapture* capture = lease->hands ? lease->hands->capture.get() : nullptr;
          switch (c.kind) {
            case Kind::kElement:
              if (const Node* n = FindById(roots, c.id)) {
                result.matches = {Shallow(*n)};
                result.seen_in = "tree";
                done = true;
              }
              break;
            case Kind::kGone:
              if (const Node* n = FindById(roots, c.id)) {
                result.last_seen = Shallow(*n);
              } else {
                result.seen_in = "tree";
                done = true;
              }
              break;
            case Kind::kName: {
              FindQuery q;
              q.name = c.name;
              q.role = c.role;
              q.exact = c.exact;
              q.limit = kMaxMatches;
              auto found = FindNodes(roots, q);
              if (!found.ok()) return found.error();
              // find matches fuzzily (typos in long words); waiting for a
              // name means that name is there: a case- and accent-
              // insensitive substring, or the exact name.
              const std::string needle = FoldText(c.name);
              result.matches.clear();
              for (const FindMatch& m : found->matches) {
                if (c.exact || needle.empty() ||
                    FoldText(m.node->name).find(needle) != std::string::npos) {
                  result.matches.push_back(Shallow(*m.node));
                }
              }
              if (!result.matches.empty()) {
                result.seen_in = "tree";
                done = true;
              }
              break;
            }
            case Kind::kText: {
              TextInTree(roots, needle, result.matches);
              if (!result.matches.empty()) {
                result.seen_in = "tree";
                done = true;
                break;
              }
              const bool ocr_due = !last_ocr || Clock::now() - *last_ocr >= r.ocr_interval;
              if (!c.ocr || r.reader == nullptr || capture == nullptr || !region || !ocr_due) {
                break;
              }
              last_ocr = Clock::now();
              auto frame = capture->CaptureRegion(*region);
              if (!frame.ok()) {
                if (!warned_ocr) result.warnings.push_back("OCR: " + frame.error().message);
                warned_ocr = true;
                break;
              }
              std::vector<Rect> masks = PasswordFieldBounds(roots);
              auto read = r.reader->ReadImage(frame->image, Point{frame->region.x, frame->region.y},
                                              ocr::OcrOptions{}, masks);
              if (!read.ok()) {
                if (!warned_ocr) result.warnings.push_back("OCR: " + read.error().message);
                warned_ocr = true;
                break;
              }
              for (const ocr::OcrLine& line : read->lines) {
                if (AsciiLower(line.text).find(needle) != std::string::npos) {
                  result.text_matches.push_back({line.text, line.bounds, line.confidence});
                }
              }
              if (!result.text_matches.empty()) {
                result.seen_in = "ocr";
                done = true;
              }
              break;
            }
            case Kind::kChange: {
              std::optional<Image> pixels;
              if (capture && region) {
                auto frame = capture->CaptureRegion(*region);
                if (frame.ok()) pixels = std::move(frame->image);
              }
              if (!baseline) {
                baseline = std::move(roots);
                baseline_pixels = std::move(pixels);
                break;
              }
              result.change = DiffTrees(*baseline, roots);
              if (!result.change.empty()) {
                result.seen_in = "tree";
                done = true;
              }
              if (baseline_pixels && pixels && pixels->width == baseline_pixels->width &&
                  pixels->height == baseline_pixels->height) {
                auto diff = DiffImages(*baseline_pixels, *pixels);
                if (diff.ok()) {
                  result.pixels.captured = true;
                  result.pixels.region = *region;
                  result.pixels.score = diff->score;
                  result.pixels.changed_pixels = diff->changed_pixels;
                  if (diff->bounds) {
                    result.pixels.bounds = diff->bounds->Translated(region->x, region->y);
                    // A caret blinking is not a change worth waking up for.
                    if (!done && diff->bounds->w > 3) {
                      result.seen_in = "pixels";
                      done = true;
                    }
                  }
                }
              }
              break;
            }
          }
        }
      }
    }  // the lease is released between polls
    if (r.progress) r.progress(MsSince(start), result.polls);
    if (done) {
      result.satisfied = true;
      break;
    }
    if (Clock::now() >= deadline) break;
    if (r.cancelled && r.cancelled()) {
      result.warnings.push_back("cancelled");
      break;
    }
    const auto next = poll_start + interval;
    const auto wake = std::min(next, deadline);
    if (wake > Clock::now()) std::this_thread::sleep_until(wake);
    // A poll with almost no time left could only fail (and blame the apps
    // it had no time to read): the wait runs out without one.
    if (deadline - Clock::now() < kMinPollTime) {
      std::this_thread::sleep_until(deadline);
      break;
    }
  }
  result.waited_ms = MsSince(start);
  if (!result.satisfied && !observed && unanswered_error) return *unanswered_error;
  return result;
}

}  // namespace uiscope

// RateLimiter: at most N actions in any sliding window of W (seed 002 §11:
// "max 10 actions per minute without user confirmation"). Plain data with
// the time passed in, so it is tested without waiting.
//
// Not thread-safe: PolicyGate calls it under its lock.
#pragma once

#include <chrono>
#include <deque>

namespace uiscope::safety {

class RateLimiter {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  // max_actions 0 = no limit.
  RateLimiter(int max_actions, std::chrono::milliseconds window)
      : max_actions_(max_actions), window_(window) {}

  // True when one more action at `now` stays within the limit.
  bool Allows(TimePoint now);
  // Counts an action at `now` (whether or not Allows said so).
  void Add(TimePoint now);
  // Actions counted in the window ending at `now`.
  int Count(TimePoint now);
  // When the next action will be allowed again (now when it already is).
  TimePoint NextAllowed(TimePoint now);

  int max_actions() const { return max_actions_; }
  std::chrono::milliseconds window() const { return window_; }

 private:
  void Prune(TimePoint now);

  int max_actions_;
  std::chrono::milliseconds window_;
  std::deque<TimePoint> times_;  // ascending
};

}  // namespace uiscope::safety

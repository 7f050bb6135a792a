#include "safety/rate_limiter.h"

#include <algorithm>

namespace uiscope::safety {

void RateLimiter::Prune(TimePoint now) {
  // An action at exactly now - window has left the window.
  while (!times_.empty() && times_.front() <= now - window_) times_.pop_front();
}

bool RateLimiter::Allows(TimePoint now) {
  if (max_actions_ <= 0) return true;
  Prune(now);
  return static_cast<int>(times_.size()) < max_actions_;
}

void RateLimiter::Add(TimePoint now) {
  if (max_actions_ <= 0) return;
  // Seeded times (from the audit log) may arrive out of order.
  times_.insert(std::upper_bound(times_.begin(), times_.end(), now), now);
  Prune(std::max(now, times_.back()));
}

int RateLimiter::Count(TimePoint now) {
  Prune(now);
  return static_cast<int>(times_.size());
}

RateLimiter::TimePoint RateLimiter::NextAllowed(TimePoint now) {
  if (Allows(now)) return now;
  // The action that must leave the window for one more to fit.
  const size_t excess = times_.size() - static_cast<size_t>(max_actions_);
  return times_[excess] + window_;
}

}  // namespace uiscope::safety

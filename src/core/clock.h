// Elapsed time, as results and logs report it.
#pragma once

#include <chrono>
#include <cstdint>

namespace uiscope {

// Milliseconds (fractional) from `start` to now, on the steady clock.
inline double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Milliseconds since the Unix epoch, on the wall clock (for timestamps
// people and other processes read, e.g. the audit log).
inline int64_t UnixNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace uiscope

// Elapsed time, as results and logs report it.
#pragma once

#include <chrono>

namespace uiscope {

// Milliseconds (fractional) from `start` to now, on the steady clock.
inline double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace uiscope

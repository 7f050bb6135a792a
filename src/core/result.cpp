#include "core/result.h"

namespace uiscope {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kStale: return "stale";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kDenied: return "denied";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

std::string Error::ToString() const {
  return std::string(ErrorCodeName(code)) + ": " + message;
}

}  // namespace uiscope

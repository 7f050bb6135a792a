// Result<T>: the value-or-error type returned below the protocol layer.
//
// Errors carry a code that tells the caller what to do next and a message a
// user can act on ("no display: run `uiscope session start`"). Exceptions are
// not used for expected failures; libraries that throw are caught at the
// module boundary and turned into a Result.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace uiscope {

enum class ErrorCode {
  kInvalidArgument,  // the caller asked for something malformed: fix the request
  kNotFound,         // no such app / element / session: list what exists
  kStale,            // the ID or object no longer exists: observe again
  kTimeout,          // the peer did not answer in time: retry or check the app
  kDenied,           // the safety policy refused it
  kUnavailable,      // a service is missing (display, bus): start it
  kUnsupported,      // not possible with this backend
  kInternal,         // a bug or an unexpected failure
};

std::string_view ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;

  std::string ToString() const;
};

inline Error MakeError(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  Result(Error error) : data_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(data_); }
  const T& value() const& { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() { return Ok{}; }

}  // namespace uiscope

// Status and StatusOr: the result of anything a user, a file, a network or a peer can make fail.
//
// A Status is either OK or carries a human-readable message that already names its cause (file
// and line, layer, peer). Errors are built with the helpers below and passed upward unchanged,
// optionally with context prepended (Status::WithContext). Broken internal invariants are not
// Statuses: they abort through DT_CHECK (check.h).
//
// Value types; copyable; no shared state, so thread-safe like an int.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "core/check.h"

namespace dtrain {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kDataLoss,
  kUnsupported,
  kIo,
  kInternal
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "context: message". Used as an error travels up (e.g. the layer name is added by the net).
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }
  void IgnoreError() const {}

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIo, std::move(m)}; }

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) { DT_CHECK(!status_.ok()); }  // NOLINT
  StatusOr(T value) : value_(std::move(value)) {}                                    // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    DT_CHECK(ok());
    return *value_;
  }
  const T& value() const& {
    DT_CHECK(ok());
    return *value_;
  }
  T&& value() && {
    DT_CHECK(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace dtrain

#define DT_CONCAT_INNER(a, b) a##b
#define DT_CONCAT(a, b) DT_CONCAT_INNER(a, b)

// Returns early from the enclosing function if `expr` (a Status) is not OK.
#define DT_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::dtrain::Status dt_status_ = (expr);    \
    if (!dt_status_.ok()) return dt_status_; \
  } while (0)

// `DT_ASSIGN_OR_RETURN(auto x, MakeX())`: unwraps a StatusOr or returns its error.
#define DT_ASSIGN_OR_RETURN(lhs, expr) \
  DT_ASSIGN_OR_RETURN_IMPL(DT_CONCAT(dt_or_, __LINE__), lhs, expr)
#define DT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

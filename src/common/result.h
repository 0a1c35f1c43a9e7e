#pragma once

#include <string>
#include <utility>
#include <variant>

namespace dagadvisor {

/// The one error type that crosses stage boundaries. `field` names the config path, query name or
/// JSON path the error is about (empty when there is none), so messages can say where, not only
/// what.
struct Error {
  std::string message;
  std::string field;

  /// "field: message", or just the message when no field is set.
  std::string describe() const { return field.empty() ? message : field + ": " + message; }
};

/// Either a value or an Error; library exceptions never leave the file that wraps the library.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

/// Result of an operation that yields nothing but may fail.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error)
      : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Error makeError(std::string message, std::string field = {}) {
  return Error{std::move(message), std::move(field)};
}

}  // namespace dagadvisor

#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace dagadvisor::sources {

/// Spare capacity kept after every response body, so that a JSON parser needing padding
/// (simdjson wants SIMDJSON_PADDING = 64 bytes) can read the body in place.
inline constexpr std::size_t kBodyPadding = 64;

/// Bytes received or read whole (a response body, a recorded file) in one anonymous memory
/// mapping that grows in place: the kernel moves a mapping's pages when it must move it
/// (mremap), so growth never copies the bytes and never holds an old and a new buffer at once.
/// A std::string growing to hundreds of MB copies itself at every doubling and, for a moment,
/// needs one and a half times its size; two such bodies in flight would need twice the memory
/// their bytes do. Capacity is whole pages; the bytes past size() are zero. Move-only.
class BodyBuffer {
 public:
  BodyBuffer() = default;
  /// A copy of `text`, padded (small bodies, tests). Throws std::bad_alloc like std::string.
  template <class Text>
  requires std::is_convertible_v<const Text&, std::string_view> BodyBuffer(
      const Text& text)  // NOLINT(google-explicit-constructor): text converts as to a string
      : BodyBuffer(std::string_view(text), Copy{}) {}
  ~BodyBuffer();
  BodyBuffer(BodyBuffer&& other) noexcept;
  BodyBuffer& operator=(BodyBuffer&& other) noexcept;
  BodyBuffer(const BodyBuffer&) = delete;
  BodyBuffer& operator=(const BodyBuffer&) = delete;

  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {data_, size_}; }
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)
  std::string str() const { return std::string(view()); }

  /// The capacity `wanted` would take: whole pages. What a caller accounting for memory charges.
  static std::size_t roundedCapacity(std::size_t wanted);

  /// Makes capacity() at least `wanted`; false (nothing changed) when the system cannot map it.
  bool reserve(std::size_t wanted);

  /// Appends `bytes`, growing by at least an eighth of the capacity when it must.
  /// Throws std::bad_alloc when the system cannot map the growth, like std::string.
  void append(std::string_view bytes);
  BodyBuffer& operator+=(std::string_view bytes) {
    append(bytes);
    return *this;
  }
  BodyBuffer& operator+=(char c) {
    append(std::string_view(&c, 1));
    return *this;
  }
  char back() const { return data_[size_ - 1]; }

  /// Sets size() to `n` (at most capacity()): the bytes a caller wrote into data() directly.
  void setSize(std::size_t n);
  char* writable() { return data_; }

  friend bool operator==(const BodyBuffer& a, std::string_view b) { return a.view() == b; }

 private:
  struct Copy {};
  BodyBuffer(std::string_view text, Copy);

  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace dagadvisor::sources

#include "sources/body_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

namespace dagadvisor::sources {
namespace {

std::size_t pageSize() {
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

BodyBuffer::BodyBuffer(std::string_view text, Copy /*tag*/) {
  if (!reserve(text.size() + kBodyPadding)) {
    throw std::bad_alloc();
  }
  append(text);
}

BodyBuffer::~BodyBuffer() {
  if (data_ != nullptr) {
    ::munmap(data_, capacity_);
  }
}

BodyBuffer::BodyBuffer(BodyBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

BodyBuffer& BodyBuffer::operator=(BodyBuffer&& other) noexcept {
  BodyBuffer gone(std::move(*this));
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  return *this;
}

std::size_t BodyBuffer::roundedCapacity(std::size_t wanted) {
  const std::size_t page = pageSize();
  return std::max(page, (wanted + page - 1) / page * page);
}

bool BodyBuffer::reserve(std::size_t wanted) {
  if (wanted <= capacity_) {
    return true;
  }
  const std::size_t capacity = roundedCapacity(wanted);
  void* mapped = data_ == nullptr ? ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                  : ::mremap(data_, capacity_, capacity, MREMAP_MAYMOVE);
  if (mapped == MAP_FAILED) {
    return false;
  }
  data_ = static_cast<char*>(mapped);
  capacity_ = capacity;
  return true;
}

void BodyBuffer::append(std::string_view bytes) {
  const std::size_t needed = size_ + bytes.size();
  if (needed > capacity_ && !reserve(std::max(needed, capacity_ + capacity_ / 8))) {
    throw std::bad_alloc();
  }
  if (!bytes.empty()) {
    std::memcpy(data_ + size_, bytes.data(), bytes.size());
  }
  size_ = needed;
}

void BodyBuffer::setSize(std::size_t n) {
  size_ = std::min(n, capacity_);
}

}  // namespace dagadvisor::sources

#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace dagadvisor::model {

/// A 128-bit fingerprint of a key made of several strings. Two independent 64-bit hashes: the
/// chance that two of a million keys share one is about 1e-27, so records are told apart by their
/// fingerprint alone and a lookup never has to read the record's strings (two cache misses less
/// per sample, and the builder looks pods up millions of times per cycle).
struct Fingerprint {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  bool operator==(const Fingerprint&) const = default;
};

namespace detail {

/// A word-at-a-time multiply-rotate hash, unrelated to std::hash's murmur: the second half of a
/// fingerprint.
inline std::uint64_t wordHash(std::string_view part, std::uint64_t h) {
  constexpr std::uint64_t kMultiplier = 0xff51afd7ed558ccdULL;
  std::size_t i = 0;
  for (; i + 8 <= part.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, part.data() + i, 8);
    h = std::rotl((h ^ word) * kMultiplier, 29);
  }
  std::uint64_t tail = part.size();  // the length, so part boundaries count
  for (; i < part.size(); ++i) {
    tail = (tail << 8) | static_cast<unsigned char>(part[i]);
  }
  h = std::rotl((h ^ tail) * kMultiplier, 29);
  return h ^ (h >> 33);
}

}  // namespace detail

template <class... Parts>
Fingerprint fingerprint(const Parts&... parts) {
  Fingerprint f{0, 0x9e3779b97f4a7c15ULL};
  auto mix = [&f](std::string_view part) {
    f.low = (f.low ^ std::hash<std::string_view>{}(part)) * 0x9e3779b97f4a7c15ULL;
    f.low ^= f.low >> 32;  // the index takes the low bits: fold the high ones into them
    f.high = detail::wordHash(part, f.high);
  };
  (mix(parts), ...);
  return f;
}

/// An open-addressing index from a key's fingerprint to a record number: no key is stored or
/// compared, so the lookup touches one slot and nothing else.
class RecordIndex {
 public:
  using Record = std::uint32_t;

  std::optional<Record> find(const Fingerprint& key) const {
    if (slots_.empty()) {
      return std::nullopt;
    }
    for (std::size_t i = key.low & mask(); slots_[i].record != kEmpty; i = (i + 1) & mask()) {
      if (slots_[i].key == key) {
        return slots_[i].record;
      }
    }
    return std::nullopt;
  }

  /// The record stored under `key`, or `fresh` stored under it now (second: true).
  std::pair<Record, bool> findOrInsert(const Fingerprint& key, Record fresh) {
    if (auto found = find(key)) {
      return {*found, false};
    }
    if ((size_ + 1) * 2 > slots_.size()) {
      grow();
    }
    place(key, fresh);
    ++size_;
    return {fresh, true};
  }

  std::size_t size() const { return size_; }

  /// Forgets every record but keeps the slots, whose memory is already mapped.
  void clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    size_ = 0;
  }

  /// Room for `records` in all without growing: each growth re-places every record (at the
  /// reference size an index grows eight times to its ~111,000 pods, once per snapshot).
  void reserve(std::size_t records) {
    std::size_t slots = slots_.empty() ? 1024 : slots_.size();
    while (records * 2 > slots) {
      slots *= 2;
    }
    if (slots > slots_.size()) {
      rehash(slots);
    }
  }

 private:
  static constexpr Record kEmpty = std::numeric_limits<Record>::max();
  struct Slot {
    Fingerprint key;
    Record record = kEmpty;
  };

  std::size_t mask() const { return slots_.size() - 1; }

  void place(const Fingerprint& key, Record record) {
    std::size_t i = key.low & mask();
    while (slots_[i].record != kEmpty) {
      i = (i + 1) & mask();
    }
    slots_[i] = Slot{key, record};
  }

  void grow() { rehash(slots_.empty() ? 1024 : slots_.size() * 2); }

  void rehash(std::size_t slots) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(slots, Slot{});
    for (const Slot& slot : old) {
      if (slot.record != kEmpty) {
        place(slot.key, slot.record);
      }
    }
  }

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
};

/// Records appended in fixed-size chunks: growing never moves the records already stored, so the
/// builder's ~150,000 pods (500 bytes each) are written once instead of being copied at every
/// doubling of a vector, each copy touching fresh memory.
template <class T>
class RecordStore {
 public:
  static constexpr std::size_t kChunk = 4096;

  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const T& operator[](std::size_t i) const { return chunks_[i / kChunk][i % kChunk]; }

  T& emplaceBack() {
    if (size_ == chunks_.size() * kChunk) {
      chunks_.push_back(std::make_unique<T[]>(kChunk));
    }
    T& record = (*this)[size_];
    if (size_ < used_before_clear_) {
      record = T{};
    }
    ++size_;
    return record;
  }

  /// Forgets every record but keeps the chunks: the next records reuse their memory, already
  /// mapped (a store built afresh each read faults its pages in again after a heap trim). A
  /// record is reset when reused, not here.
  void clear() {
    used_before_clear_ = std::max(used_before_clear_, size_);
    size_ = 0;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;
  std::size_t used_before_clear_ = 0;  // records below it may hold what an earlier fill left
};

}  // namespace dagadvisor::model

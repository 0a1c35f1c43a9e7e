#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "model/resources.h"

namespace dagadvisor::analysis {

/// Whether demand `a` is packed before demand `b`: what "largest first" means to the caller (a
/// strict weak order; model::largerFirst is the usual one).
using PackingOrder =
    std::function<bool(const model::ResourceVector& a, const model::ResourceVector& b)>;

/// The bin of a demand no bin holds.
inline constexpr std::size_t kNoBin = std::numeric_limits<std::size_t>::max();

/// What first fit packs into, and the rules of a caller that packs under constraints. Each rule
/// left unset is the plain one (every member has an initializer, so that a designated
/// initializer names only what it sets).
struct Bins {
  /// Each bin's free room; what lands in a bin is taken from it, and opened bins are appended.
  std::vector<model::ResourceVector> room{};
  /// Whether demand `d` (an index into the demands) may land in bin `b`; unset: any bin.
  std::function<bool(std::size_t d, std::size_t b)> admits{};
  /// The room of an empty bin: when set, a demand no bin holds opens a new one of this room.
  std::optional<model::ResourceVector> empty_bin{};
  /// The caller's own first fit, for a demand whose bins are searched in an order of their own:
  /// the bin demand `d` lands in, or kNoBin. Unset: the first bin in index order with room.
  std::function<std::size_t(std::size_t d, const std::vector<model::ResourceVector>& room)>
      first_fit{};
  /// Told of each demand as it lands, in packing order, before the next one is placed.
  std::function<void(std::size_t d, std::size_t b)> landed{};
};

/// First-fit decreasing: the demands in `larger_first` order (equal ones keep their order), each
/// into the first bin with room for it, whose room it then takes. Returns the bin of each demand
/// (in the demands' order), kNoBin for a demand that fits nowhere.
std::vector<std::size_t> firstFitDecreasing(const std::vector<model::ResourceVector>& demands,
                                            const PackingOrder& larger_first, Bins& bins);

/// How many of `pods` (their requests) fit the free room `bins` (one free capacity per node):
/// first fit, largest first, a pod's size being its CPU and memory as shares of `scale` so that
/// neither unit dominates. The room a pod takes is gone for the next ones: a count of what fits
/// together, not of what fits alone.
std::size_t podsFittingTogether(const std::vector<model::ResourceVector>& pods,
                                std::vector<model::ResourceVector> bins,
                                const model::ResourceVector& scale);

}  // namespace dagadvisor::analysis

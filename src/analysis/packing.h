#pragma once

#include <cstddef>
#include <vector>

#include "model/resources.h"

namespace dagadvisor::analysis {

/// How many of `pods` (their requests) fit the free room `bins` (one free capacity per node):
/// first fit, largest first, a pod's size being its CPU and memory as shares of `scale` so that
/// neither unit dominates. The room a pod takes is gone for the next ones: a count of what fits
/// together, not of what fits alone.
std::size_t podsFittingTogether(std::vector<model::ResourceVector> pods,
                                std::vector<model::ResourceVector> bins,
                                const model::ResourceVector& scale);

}  // namespace dagadvisor::analysis

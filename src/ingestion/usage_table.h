#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.h"
#include "model/record_index.h"

namespace dagadvisor::ingestion {

/// The observed usage of every pod one read answered, by namespace and pod name (cAdvisor knows
/// no uid). Filled while a read decodes; afterwards shared, never copied: window reads between
/// two usage refreshes keep the one the last refresh read (a copy of ~110,000 records, two
/// strings each, twice a window read, was a fifth of the reader's CPU at the reference size).
class UsageTable {
 public:
  /// The usage of `pod`, added empty the first time.
  model::ObservedUsage& add(std::string_view namespace_, std::string_view pod);
  const model::ObservedUsage* find(std::string_view namespace_, std::string_view pod) const;
  std::size_t size() const { return records_.size(); }

 private:
  struct Record {
    std::string namespace_;
    std::string pod;
    model::ObservedUsage usage;
  };
  std::vector<Record> records_;
  model::RecordIndex index_;  // by namespace and pod
};

}  // namespace dagadvisor::ingestion

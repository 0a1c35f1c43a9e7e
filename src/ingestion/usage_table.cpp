#include "ingestion/usage_table.h"

namespace dagadvisor::ingestion {

model::ObservedUsage& UsageTable::add(std::string_view namespace_, std::string_view pod) {
  const auto [index, fresh] =
      index_.findOrInsert(model::fingerprint(namespace_, pod),
                          static_cast<model::RecordIndex::Record>(records_.size()));
  if (fresh) {
    records_.push_back({std::string(namespace_), std::string(pod), {}});
  }
  return records_[index].usage;
}

const model::ObservedUsage* UsageTable::find(std::string_view namespace_,
                                             std::string_view pod) const {
  const auto index = index_.find(model::fingerprint(namespace_, pod));
  return index ? &records_[*index].usage : nullptr;
}

}  // namespace dagadvisor::ingestion

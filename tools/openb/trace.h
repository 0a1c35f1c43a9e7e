#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dagadvisor::openb {

/// One node of the openb trace (`openb_node_list_*.csv`: sn, cpu_milli, memory_mib, gpu, model).
struct TraceNode {
  std::string name;
  std::int64_t cpu_millis = 0;
  std::int64_t memory_mib = 0;
  std::int64_t gpus = 0;
  std::string model;  // GPU model, empty on CPU-only nodes
};

/// One pod of the openb trace (`openb_pod_list_*.csv`). Plain Kubernetes has no GPU sharing, so
/// a sharing pod (gpu_milli < 1000) is read as asking for its num_gpu whole GPUs.
struct TracePod {
  std::string name;
  std::int64_t cpu_millis = 0;
  std::int64_t memory_mib = 0;
  std::int64_t gpus = 0;
  std::int64_t creation_time = 0;  // trace seconds; the row number when the file has none
};

/// The nodes of a node CSV, in file order. Throws std::runtime_error naming the file and line.
std::vector<TraceNode> readNodes(const std::string& path);

/// The pods of a pod CSV in arrival order (creation_time, then file order). The columns are
/// found by their header names, so the 5-column multigpu50 file reads too.
std::vector<TracePod> readPods(const std::string& path);

}  // namespace dagadvisor::openb

#include "trace.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dagadvisor::openb {
namespace {

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) {
    cells.push_back(cell);
  }
  if (!line.empty() && line.back() == ',') {
    cells.emplace_back();  // getline drops a trailing empty cell (CPU-only nodes' model)
  }
  return cells;
}

// A CSV read as a header and rows, with cells fetched by column name.
class Table {
 public:
  explicit Table(const std::string& path) : path_(path) {
    std::ifstream in(path);
    if (!in) {
      throw std::runtime_error("cannot read " + path);
    }
    std::string line;
    std::getline(in, line);
    header_ = splitCsv(line);
    while (std::getline(in, line)) {
      if (!line.empty()) {
        rows_.push_back(splitCsv(line));
      }
    }
  }

  std::size_t rows() const { return rows_.size(); }
  bool has(const std::string& column) const { return index(column) < header_.size(); }

  const std::string& text(std::size_t row, const std::string& column) const {
    const std::size_t i = index(column);
    if (i >= header_.size() || i >= rows_[row].size()) {
      throw std::runtime_error(path_ + ":" + std::to_string(row + 2) + ": no " + column);
    }
    return rows_[row][i];
  }

  std::int64_t number(std::size_t row, const std::string& column) const {
    const std::string& cell = text(row, column);
    try {
      return cell.empty() ? 0 : std::stoll(cell);
    } catch (const std::exception&) {
      throw std::runtime_error(path_ + ":" + std::to_string(row + 2) + ": " + column +
                               " is not a number: " + cell);
    }
  }

 private:
  std::size_t index(const std::string& column) const {
    return static_cast<std::size_t>(std::find(header_.begin(), header_.end(), column) -
                                    header_.begin());
  }

  std::string path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace

std::vector<TraceNode> readNodes(const std::string& path) {
  const Table table(path);
  std::vector<TraceNode> nodes(table.rows());
  for (std::size_t r = 0; r < table.rows(); ++r) {
    nodes[r] = {table.text(r, "sn"), table.number(r, "cpu_milli"), table.number(r, "memory_mib"),
                table.number(r, "gpu"), table.text(r, "model")};
  }
  return nodes;
}

std::vector<TracePod> readPods(const std::string& path) {
  const Table table(path);
  const bool timed = table.has("creation_time");
  std::vector<TracePod> pods(table.rows());
  for (std::size_t r = 0; r < table.rows(); ++r) {
    const auto arrival = timed ? table.number(r, "creation_time") : static_cast<std::int64_t>(r);
    pods[r] = {table.text(r, "name"), table.number(r, "cpu_milli"), table.number(r, "memory_mib"),
               table.number(r, "num_gpu"), arrival};
  }
  std::stable_sort(pods.begin(), pods.end(), [](const TracePod& a, const TracePod& b) {
    return a.creation_time < b.creation_time;
  });
  return pods;
}

}  // namespace dagadvisor::openb

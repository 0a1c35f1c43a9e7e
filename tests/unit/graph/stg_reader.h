#pragma once

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "model/workflow.h"

namespace dagadvisor::testing {

/// One graph of the Standard Task Graph Set (tests/fixtures/stg/README.md): tasks 0 and n+1 are
/// the zero-cost dummy entry and exit.
struct StgGraph {
  std::vector<double> cost;
  std::vector<model::Edge> edges;
  double cp_length = -1;  // from the "# CP Length : L" comment; -1 when absent
};

/// Parses the .stg text; an empty cost list means the text was malformed.
inline StgGraph parseStg(const std::string& text) {
  StgGraph out;
  std::istringstream in(text);
  std::string line;
  std::size_t expected = 0;
  bool have_count = false;
  while (std::getline(in, line)) {
    if (line.rfind('#', 0) == 0) {
      const auto colon = line.find(':');
      if (line.find("CP Length") != std::string::npos && colon != std::string::npos) {
        out.cp_length = std::stod(line.substr(colon + 1));
      }
      continue;
    }
    std::istringstream fields(line);
    if (!have_count) {
      have_count = static_cast<bool>(fields >> expected);
      expected += 2;
      continue;
    }
    std::size_t id = 0;
    std::size_t preds = 0;
    double c = 0;
    if (!(fields >> id >> c >> preds) || id != out.cost.size()) {
      continue;  // blank line or trailing text
    }
    out.cost.push_back(c);
    for (std::size_t k = 0, p = 0; k < preds && fields >> p; ++k) {
      out.edges.push_back({static_cast<model::TaskIndex>(p), static_cast<model::TaskIndex>(id)});
    }
  }
  if (out.cost.size() != expected) {
    out.cost.clear();
  }
  return out;
}

/// The optimum (or, where the set only bounds it, the lower and upper bound) of one graph.
struct StgOptimum {
  double lower = 0;
  double upper = 0;  // == lower when proven optimal
};

/// Parses optimal/CaseN_P_OPT.csv: `file,processors,opt` or `file,processors,lower,upper`.
/// Keyed by the file column, e.g. "50/rand0000.stg".
inline std::map<std::string, StgOptimum> parseStgOptima(const std::string& text) {
  std::map<std::string, StgOptimum> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) {
      cells.push_back(cell);
    }
    if (cells.size() == 3) {
      out[cells[0]] = {std::stod(cells[2]), std::stod(cells[2])};
    } else if (cells.size() == 4) {
      out[cells[0]] = {std::stod(cells[2]), std::stod(cells[3])};
    }
  }
  return out;
}

}  // namespace dagadvisor::testing

#include "report/report_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "common/duration.h"
#include "report/prediction_text.h"
#include "report/report_json.h"

namespace dagadvisor::report {
namespace {

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    out += prefix + line + "\n";
  }
  return out;
}

// The table keeps to the headline numbers; nested lists (per node, per pod) are counted here
// and shown in full by --output json|yaml.
std::string evidenceLine(const nlohmann::json& evidence) {
  if (!evidence.is_object()) {
    return dumpJson(evidence);
  }
  std::string out;
  for (const auto& [key, value] : evidence.items()) {
    std::string shown;
    if (value.is_string()) {
      shown = value.get<std::string>();
    } else if (value.is_array()) {
      shown = std::to_string(value.size()) + (value.size() == 1 ? " item" : " items");
    } else if (value.is_object()) {
      continue;
    } else {
      shown = dumpJson(value);
    }
    out += (out.empty() ? "" : ", ") + key + "=" + shown;
  }
  return out;
}

void writeHeader(std::ostream& out, const report::AnalysisReport& r) {
  const auto& s = r.summary;
  out << "dagadvisor analysis of cluster " << r.cluster << "\n"
      << "  source:     " << r.source << "\n"
      << "  data time:  " << formatTimestamp(r.data_time) << " (generated "
      << formatTimestamp(r.generated_at) << " in " << humanSeconds(r.analysis_seconds) << ", "
      << r.queries << " queries)\n"
      << "  nodes:      " << s.nodes << " (" << s.gpu_nodes << " with GPUs)\n"
      << "  pods:       " << s.pods << " (" << s.running_pods << " running, " << s.pending_pods
      << " pending)\n"
      << "  GPUs:       " << s.gpus_requested << " requested of " << s.gpus_allocatable
      << " allocatable\n";
  for (const auto& warning : r.warnings) {
    out << "  warning:    " << warning << "\n";
  }
}

using Row = std::vector<std::string>;

void writeTable(std::ostream& out, const std::vector<Row>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool last = i + 1 == row.size();
      line += " " + row[i] + (last ? "" : std::string(widths[i] - row[i].size() + 1, ' '));
    }
    out << line << "\n";
  }
}

void writeRecommendation(std::ostream& out, std::size_t rank, const report::AnalysisReport& r,
                         const advice::Recommendation& rec) {
  out << "\n"
      << rank << ". [" << analysis::severityName(rec.severity) << "] " << rec.title << "\n"
      << "   id:       " << rec.id << " (" << rec.kind << ", " << rec.target << ")\n";
  if (!rec.impact.empty()) {
    out << "   impact:   " << rec.impact << " (modelled)\n";
  }
  out << "   replayed: " << predictedLine(r, rec) << "\n";
  if (!rec.action.empty()) {
    out << "   action:   " << rec.action << "\n";
  }
  if (!rec.evidence.empty()) {
    out << "   evidence: " << evidenceLine(rec.evidence) << "\n";
  }
  if (!rec.patch_yaml.empty()) {
    out << "   patch:\n" << indent(rec.patch_yaml, "     ");
  }
}

void writeRecommendationsInFull(std::ostream& out, const report::AnalysisReport& r) {
  std::size_t rank = 0;
  for (const auto& rec : r.recommendations) {
    writeRecommendation(out, ++rank, r, rec);
  }
}

// The first `width` characters of `text` on one line, "…" marking a cut.
std::string clipped(const std::string& text, std::size_t width) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() <= width) {
    return line;
  }
  // Cut before the byte at `cut`, moved back to the start of its UTF-8 sequence so that no
  // character is cut in two.
  std::size_t cut = width - 1;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  line.resize(cut);
  return line + "…";
}

void writeRecommendationTable(std::ostream& out, const report::AnalysisReport& r) {
  std::vector<Row> rows{
      {"#", "SEVERITY", "ID", "TARGET", "GAIN (modelled)", "REPLAYED (modelled)"}};
  std::size_t rank = 0;
  for (const auto& rec : r.recommendations) {
    rows.push_back({std::to_string(++rank), std::string(analysis::severityName(rec.severity)),
                    rec.id, clipped(rec.target, 40), clipped(rec.impact, 72),
                    predictedCell(r, rec)});
  }
  writeTable(out, rows);
  out << "  Gains are modelled estimates (docs/findings.md says how each is made); REPLAYED is "
         "the\n"
         "  observed window replayed with the change against without it (docs/whatif.md).\n"
         "  Evidence, patches and the full prediction: add --details, or --recommendation ID.\n";
}

void writeRecommendations(std::ostream& out, const report::AnalysisReport& r, bool details) {
  out << "\nRECOMMENDATIONS (" << r.recommendations.size() << ")\n";
  if (r.recommendations.empty()) {
    out << "  none: no detector found a problem worth acting on\n";
  } else if (details) {
    writeRecommendationsInFull(out, r);
  } else {
    writeRecommendationTable(out, r);
  }
}

// Detectors that could not judge: an empty recommendation list must not read as "all is well"
// when the data to tell was missing.
void writeNoAdvice(std::ostream& out, const report::AnalysisReport& r) {
  std::size_t count = 0;
  for (const auto& d : r.detectors) {
    count += d.no_advice_reason.empty() ? 0 : 1;
  }
  if (count == 0) {
    return;
  }
  out << "\nNO ADVICE (" << count << ")\n";
  for (const auto& d : r.detectors) {
    if (!d.no_advice_reason.empty()) {
      out << "  " << d.name << ": no advice, because " << d.no_advice_reason << "\n";
    }
  }
}

std::string joined(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& item : items) {
    out += (out.empty() ? "" : sep) + item;
  }
  return out;
}

// A finished run's makespan; an unfinished run's time so far, which is no makespan yet.
std::string runTime(const report::RunSummary& run) {
  return run.finished ? humanSeconds(run.makespan_seconds)
                      : humanSeconds(run.makespan_seconds) + " elapsed";
}

// The what-if as what it is: a gain only where it is one.
std::string whatIf(const report::RunSummary& run) {
  if (!run.whatif_reading || !run.whatif_makespan_seconds) {
    return "-";
  }
  const std::string makespan = humanSeconds(*run.whatif_makespan_seconds);
  const graph::WhatIfReading& reading = *run.whatif_reading;
  switch (reading.verdict) {
    case graph::WhatIfVerdict::kGain:
      return makespan + ", saves " + humanSeconds(reading.gain_seconds);
    case graph::WhatIfVerdict::kEstimatedGain:
      return makespan + " est., saves >= " + humanSeconds(reading.gain_seconds);
    case graph::WhatIfVerdict::kEstimate:
      return makespan + " est. for the whole run";
    case graph::WhatIfVerdict::kLowerBound:
      return ">= " + makespan + ", no gain known";
    case graph::WhatIfVerdict::kNoGain:
      break;
  }
  return makespan + ", no gain";
}

void writeRuns(std::ostream& out, const report::AnalysisReport& r, const TextOptions& options) {
  std::vector<const report::RunSummary*> runs;
  for (const auto& run : r.runs) {
    runs.push_back(&run);
  }
  std::stable_sort(runs.begin(), runs.end(), [](const auto* a, const auto* b) {
    return a->makespan_seconds > b->makespan_seconds;
  });
  const std::size_t shown =
      options.max_runs == 0 ? runs.size() : std::min(runs.size(), options.max_runs);
  const auto unfinished =
      std::count_if(runs.begin(), runs.end(), [](const auto* run) { return !run->finished; });
  out << "\nRUNS (" << runs.size()
      << (unfinished > 0 ? ", " + std::to_string(unfinished) + " unfinished" : "") << ")\n";
  std::vector<Row> rows{{"RUN", "STATUS", "TASKS", "MAKESPAN OR ELAPSED", "CRITICAL PATH",
                         "EFFICIENCY", "HEFT WHAT-IF", "CRITICAL PATH TASKS"}};
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& run = *runs[i];
    rows.push_back({run.id, run.finished ? "finished" : "unfinished", std::to_string(run.tasks),
                    runTime(run), humanSeconds(run.critical_path_seconds),
                    fixed(run.efficiency * 100, 0) + "%", whatIf(run),
                    joined(run.critical_path, " > ")});
  }
  writeTable(out, rows);
  if (shown < runs.size()) {
    out << "  … and " << runs.size() - shown << " shorter runs\n";
  }
  out << "  An unfinished run has no makespan yet: its time is elapsed so far. The what-if (HEFT "
         "on\n"
         "  the observed nodes) is modelled; \"est.\" charges estimated run times to unfinished\n"
         "  tasks, \">=\" is a lower bound (some had no estimate).\n";
}

}  // namespace

std::string humanSeconds(double seconds) {
  if (!std::isfinite(seconds) || std::fabs(seconds) > 1e12) {
    return "-";
  }
  // Below one second the milliseconds matter; above it they are noise in a table.
  const double millis = std::fabs(seconds) < 1 ? seconds * 1000 : std::round(seconds) * 1000;
  return formatDuration(Duration(static_cast<Duration::rep>(std::llround(millis))));
}

std::string renderText(const report::AnalysisReport& report, const TextOptions& options) {
  std::ostringstream out;
  writeHeader(out, report);
  if (!options.recommendation_id.empty()) {
    for (std::size_t i = 0; i < report.recommendations.size(); ++i) {
      if (report.recommendations[i].id == options.recommendation_id) {
        writeRecommendation(out, i + 1, report, report.recommendations[i]);
      }
    }
    return out.str();
  }
  writeRecommendations(out, report, options.details);
  writeNoAdvice(out, report);
  writeRuns(out, report, options);
  return out.str();
}

}  // namespace dagadvisor::report

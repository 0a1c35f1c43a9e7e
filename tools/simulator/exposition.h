// Writes the simulated cluster as Prometheus series with the real exporters' names and labels:
// kube-state-metrics, kube-scheduler, cAdvisor (kubelet) and dcgm-exporter.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "simulation.h"

namespace dagadvisor::sim {

/// What a scrape adds to every series: the job and instance labels of each exporter.
struct Instances {
  std::string ksm = "10.0.0.10:8080";
  std::string scheduler = "10.0.0.2:10259";
};

/// Last emitted value and time of one series, for change-or-refresh thinning.
struct SeriesState {
  double value = 0;
  double time = -1e300;
};

/// Formats samples; with timestamps it is OpenMetrics for promtool backfill, without it is the
/// text format a scrape reads. `refresh` > 0 skips unchanged samples younger than `refresh`.
class SampleWriter {
 public:
  SampleWriter(std::FILE* out, bool timestamps, double refresh);
  ~SampleWriter();
  SampleWriter(const SampleWriter&) = delete;
  SampleWriter& operator=(const SampleWriter&) = delete;

  void family(const char* name, const char* type, const char* help);
  /// Writes `name{labels} value [time]` unless thinning skips it.
  void sample(SeriesState& state, const char* name, const std::string& labels, double value,
              double time);
  /// True when a group of series (one histogram's buckets, sum and count) must be written now:
  /// its `value` changed or `refresh` passed. The group is then written with `sample` below,
  /// so all its series share timestamps and histogram_quantile stays consistent.
  bool due(SeriesState& state, double value, double time);
  /// Writes the sample unconditionally.
  void sample(const char* name, const std::string& labels, double value, double time);
  /// Appends text as is (comments, `# EOF`).
  void raw(const std::string& text);
  void finish();

  std::size_t samplesWritten() const { return samples_; }

 private:
  void flushIfLarge();

  std::FILE* out_;
  bool timestamps_;
  double refresh_;
  std::string buffer_;
  std::size_t samples_ = 0;
};

/// A cumulative histogram: counts per bucket bound, then +Inf.
struct Histogram {
  std::vector<double> counts;
  double sum = 0;
  void observe(const std::vector<double>& bounds, double value);
  double count() const { return counts.empty() ? 0 : counts.back(); }
};

/// Emits every series of the history for the absolute time `unixTime` (one scrape).
class Exposition {
 public:
  Exposition(const History& history, SampleWriter& writer, bool usage);

  /// Writes the HELP/TYPE header of every family once.
  void writeHeader();
  /// Writes the samples of one scrape at `t` seconds after the scenario start.
  void writeStep(double t);
  /// Leaves the scheduler's SLI histograms out: they are served as native histograms instead
  /// (nativeSliScrape), which the text formats cannot carry.
  void omitClassicSli() { classicSli_ = false; }

 private:
  /// Thinning state and cached label text of one pod.
  struct PodState {
    std::vector<SeriesState> slots;
    std::string base;  // job, instance, namespace, pod, uid
  };
  void nodes(double t, double unixTime);
  void node(const Node& n, std::vector<SeriesState>& st, double unixTime);
  void nodeResources(const Node& n, std::vector<SeriesState>& st, const std::string& base,
                     double unixTime);
  void pods(double t, double unixTime);
  void pod(const Pod& p, PodState& st, double t, double unixTime);
  void podIdentity(const Pod& p, PodState& st, bool bound, double unixTime);
  void podRequests(const Pod& p, PodState& st, bool bound, double unixTime);
  void podSpecSeries(const Pod& p, PodState& st, double unixTime);
  void podTimes(const Pod& p, PodState& st, double t, double unixTime);
  void podUsage(const Pod& p, PodState& st, double t, double unixTime);
  void scheduler(double t, double unixTime);
  void sliHistograms(double t, double unixTime, const std::string& base);
  void attemptHistograms(double t, double unixTime, const std::string& base);
  void pendingPods(double t, double unixTime, const std::string& base);
  void gpus(double t, double unixTime);
  void updateActive(double t);
  void histogram(const char* family, const std::string& labels, const std::vector<double>& bounds,
                 const Histogram& hist, double unixTime);

  const History& h_;
  SampleWriter& w_;
  bool usage_;
  bool classicSli_ = true;
  bool usageNow_ = false;
  double lastUsage_ = -1e300;
  Instances instances_;
  std::vector<std::vector<SeriesState>> nodeStates_;
  std::vector<PodState> podStates_;
  std::vector<int> byCreation_;
  std::size_t nextCreated_ = 0;
  std::vector<int> active_;
  std::vector<SliObservation> sli_;
  std::vector<Attempt> attempts_;
  std::map<std::string, SeriesState> groups_;  // thinning state of whole histograms
  std::size_t sliCursor_ = 0;
  std::map<int, Histogram> sliByAttempts_;
  std::size_t attemptCursor_ = 0;
  Histogram attemptsByResult_[2];  // scheduled, unschedulable
};

/// Writes the whole window of the scenario as an OpenMetrics file ending in `# EOF`.
/// Returns the number of samples written.
std::size_t writeOpenMetrics(const History& history, std::FILE* out);

/// Exponential bucket bounds as kube-scheduler declares them.
std::vector<double> exponentialBuckets(double start, double factor, int count);

/// Shortest round-trip text of a number, integers without a decimal point, `+Inf` for infinity.
std::string formatNumber(double value);

}  // namespace dagadvisor::sim

#include "report/prediction_text.h"

#include <cmath>
#include <cstdio>

#include "report/report_text.h"

namespace dagadvisor::report {
namespace {

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", share * 100);
  return buf;
}

std::string signedPercentPoints(double change) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f pt", change * 100);
  return buf;
}

using Format = std::string (*)(double);

std::string figure(const prediction::BeforeAfter& f, Format value, Format change) {
  return value(f.before) + " → " + value(f.after) + " (" + change(f.change()) + ", range " +
         change(f.change_low) + " … " + change(f.change_high) + ")";
}

// A change whose range over the perturbed replays spans zero may be run-time noise.
bool reliable(const prediction::BeforeAfter& f) {
  return f.change_low > 0 || f.change_high < 0 || (f.change_low == 0 && f.change_high == 0);
}

std::string seconds(const prediction::BeforeAfter& f) {
  return figure(f, humanSeconds, signedSeconds) + (reliable(f) ? "" : ", no reliable effect");
}

std::string reachNote(const prediction::PredictionReach& reach) {
  if (reach.whole) {
    return "";
  }
  return ", over the " + std::to_string(reach.nodes) + " node(s), " + std::to_string(reach.pods) +
         " pod(s) and " + std::to_string(reach.runs) + " run(s) it can reach";
}

}  // namespace

std::string signedSeconds(double s) {
  return (s < 0 ? "−" : "+") + humanSeconds(std::fabs(s));
}

std::string predictionLine(const prediction::Prediction& p) {
  if (!p.replayed) {
    return "not replayed: " + p.not_replayed;
  }
  std::string line =
      "replayed " + std::to_string(p.replays) + "× (modelled" + reachNote(p.reach) + "): ";
  if (p.affected_runs == 0) {
    line += "no run's makespan changes";
  } else {
    line += "makespan of " + std::to_string(p.affected_runs) + " affected run(s) " +
            seconds(p.makespan_seconds) + "; their critical-path wait " +
            seconds(p.critical_path_wait_seconds);
  }
  if (p.watched_pods > 0) {
    line += "; wait in the window of its " + std::to_string(p.watched_pods) + " pod(s) " +
            seconds(p.watched_pending_seconds);
  }
  line += "; GPU pods' wait in the window " + seconds(p.gpu_pod_pending_seconds) +
          "; GPU allocation in the window " +
          figure(p.gpu_allocation, percent, signedPercentPoints);
  if (p.hand_offs.charged < p.hand_offs.tasks) {
    line += "; hand-offs not charged for " +
            std::to_string(p.hand_offs.tasks - p.hand_offs.charged) + " of the " +
            std::to_string(p.hand_offs.tasks) +
            " tasks it places (their transfer time stays as observed)";
  }
  return line;
}

std::string predictedLine(const AnalysisReport& report, const advice::Recommendation& rec) {
  const prediction::PredictionOf of = prediction::predictionOf(report.predictions, rec);
  return of.prediction == nullptr ? "not replayed: " + of.not_replayed
                                  : predictionLine(*of.prediction);
}

std::string predictedCell(const AnalysisReport& report, const advice::Recommendation& rec) {
  const prediction::Prediction* p = prediction::predictionOf(report.predictions, rec).prediction;
  if (p == nullptr) {
    return "-";
  }
  const auto change = [](const prediction::BeforeAfter& f) {
    return reliable(f) ? signedSeconds(f.change()) : "no reliable change";
  };
  std::string cell =
      p->affected_runs == 0 ? "runs unchanged" : "makespan " + change(p->makespan_seconds);
  if (p->gpu_pod_pending_seconds.change() != 0) {
    cell += ", GPU wait " + change(p->gpu_pod_pending_seconds);
  }
  return cell;
}

namespace {

std::string row(const std::string& label, const prediction::BeforeAfter& f, Format value,
                Format change) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-52s %12s %12s %12s   %s … %s\n", label.c_str(),
                value(f.before).c_str(), value(f.after).c_str(), change(f.change()).c_str(),
                change(f.change_low).c_str(), change(f.change_high).c_str());
  return buf;
}

std::string calibrationLine(const replay::CalibrationReport& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "calibration: the unchanged replay reproduces %zu finished run(s) within %.1f %% "
                "(median), %.1f %% (p90), %.1f %% at worst\n",
                c.finished_runs, c.median_error * 100, c.p90_error * 100, c.max_error * 100);
  std::string line = buf;
  if (c.gpu_pods > 0) {
    line += "calibration: the " + std::to_string(c.gpu_pods) + " GPU pod(s) wait in the window " +
            humanSeconds(c.replayed_gpu_pod_wait) + " on average in the unchanged replay, " +
            humanSeconds(c.observed_gpu_pod_wait) + " observed\n";
  }
  return line;
}

std::string notCharged() {
  return "not charged (each price needs " + std::to_string(analysis::kMinPricedFetches) + " pods)";
}

// Measured, from the task pods' received bytes; the replay charges them only when both are.
std::string transferLine(const analysis::TransferPrices& prices) {
  char buf[320];
  std::snprintf(
      buf, sizeof buf,
      "hand-offs %s: %.1f s/GB from a node of the same zone (%zu pods), %.1f s/GB "
      "across zones (%zu pods), measured from the pods' received bytes\n",
      prices.measured() ? "charged by where the replay puts each task" : notCharged().c_str(),
      prices.same_zone.seconds_per_gb, prices.same_zone.fetches, prices.cross_zone.seconds_per_gb,
      prices.cross_zone.fetches);
  return buf;
}

}  // namespace

std::string renderWhatIfText(const AnalysisReport& report) {
  const prediction::RecommendationPredictions& all = report.predictions;
  const prediction::Prediction& p = all.together;
  std::string text =
      "what-if on cluster " + report.cluster + ": " + std::to_string(all.together_ids.size()) +
      " recommendation(s) applied together, the observed window replayed " +
      std::to_string(p.replays) + "× with perturbed run times (modelled, docs/whatif.md)\n";
  for (const std::string& id : all.together_ids) {
    text += "  applied: " + id + "\n";
  }
  for (const std::string& id : all.left_out_of_together) {
    text += "  left out: " + id + " (slower in every replay on its own; name it to apply it)\n";
  }
  text += calibrationLine(all.calibration);
  text += transferLine(all.transfer_prices);
  if (!p.replayed) {
    return text + "not replayed: " + p.not_replayed + "\n";
  }
  char header[160];
  std::snprintf(header, sizeof header, "\nCLUSTER%-48s %12s %12s %12s   %s\n", "", "BEFORE",
                "AFTER", "CHANGE", "RANGE");
  text += header;
  text += row("mean makespan of " + std::to_string(p.affected_runs) + " affected run(s)",
              p.makespan_seconds, humanSeconds, signedSeconds);
  text += row("critical-path wait of the affected runs", p.critical_path_wait_seconds, humanSeconds,
              signedSeconds);
  text += row("mean wait in the window of the pods that request GPUs", p.gpu_pod_pending_seconds,
              humanSeconds, signedSeconds);
  if (p.watched_pods > 0) {
    text += row(
        "mean wait in the window of the " + std::to_string(p.watched_pods) + " pod(s) advised on",
        p.watched_pending_seconds, humanSeconds, signedSeconds);
  }
  text += row("GPU allocation in the window", p.gpu_allocation, percent, signedPercentPoints);
  std::snprintf(header, sizeof header, "\nRUNS (%zu affected)%-37s %12s %12s %12s   %s\n",
                p.affected_runs, "", "BEFORE", "AFTER", "CHANGE", "RANGE");
  text += header;
  bool running = false;
  for (const prediction::RunPrediction& run : p.runs) {
    const std::string partial = !run.finished_in_window ? " *" : "";
    const std::string incomplete = !run.complete_after ? " (unfinished after)" : "";
    text += row(run.run + partial + incomplete, run.makespan_seconds, humanSeconds, signedSeconds);
    running = running || !run.finished_in_window;
  }
  if (running) {
    text +=
        "  * running at the window's end: replayed with the tasks it had created by then (and "
        "those a finished run of its DAG had after them), some with a lower bound for a run "
        "time\n";
  }
  return text;
}

}  // namespace dagadvisor::report

#include "server/web_page.h"

#include <string>

namespace dagadvisor::server {
namespace {

// The page is plain HTML with a small script over the JSON API: no build step, nothing fetched
// from outside, so it works in air-gapped clusters. Every value from the API goes through esc().
constexpr std::string_view kPage = R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dagadvisor</title>
<style>
  body { font-family: Helvetica, Arial, sans-serif; margin: 0; color: #222; background: #f6f7f9; }
  header { background: #1f2d3d; color: #fff; padding: 12px 20px; }
  header h1 { margin: 0; font-size: 20px; display: inline-block; }
  header .meta { margin-left: 16px; font-size: 13px; opacity: .85; }
  main { padding: 12px 20px; }
  section { background: #fff; border-radius: 6px; padding: 10px 16px; margin-bottom: 14px;
            box-shadow: 0 1px 2px rgba(0,0,0,.08); }
  h2 { font-size: 17px; margin: 6px 0 10px; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #eee; vertical-align: top; }
  th { background: #fafafa; }
  .sev { border-radius: 3px; padding: 1px 6px; color: #fff; font-size: 12px; }
  .sev-critical { background: #c0392b; } .sev-warning { background: #e67e22; }
  .sev-info { background: #2980b9; }
  .stale { background: #c0392b; padding: 2px 8px; border-radius: 3px; margin-left: 12px; }
  .warn { color: #a94442; font-size: 13px; }
  pre { background: #f3f3f3; padding: 6px; overflow-x: auto; font-size: 12px; margin: 4px 0; }
  details summary { cursor: pointer; }
  .bar { display: inline-block; height: 10px; background: #fd8d3c; vertical-align: middle; }
  .pics img { max-width: 100%; border: 1px solid #ddd; margin: 4px 0; background: #fff; }
  .muted { color: #888; }
  .predicted { min-width: 18em; font-size: 0.92em; }
</style>
</head>
<body>
<header><h1>dagadvisor</h1><span class="meta" id="meta">loading…</span></header>
<main>
  <div id="error" class="warn"></div>
  <section><h2>Recommendations</h2><div id="recommendations">loading…</div></section>
  <section><h2>Workflow runs</h2><div id="runs">loading…</div></section>
  <section><h2>Run pictures</h2><div id="pictures" class="pics">loading…</div></section>
  <section><h2>Nodes</h2><div id="nodes">loading…</div></section>
</main>
<script>
"use strict";
const MAX_PICTURES = 3;
const MAX_RUNS = 12;
function esc(v) {
  return String(v === null || v === undefined ? "" : v).replace(/[&<>"']/g, c => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
}
function secs(v) {
  if (v === null || v === undefined) return "–";
  if (v >= 3600) return (v / 3600).toFixed(1) + " h";
  if (v >= 60) return (v / 60).toFixed(1) + " min";
  return v.toFixed(0) + " s";
}
function pct(v) { return (100 * (v || 0)).toFixed(0) + "%"; }
function runUrl(id) { return "/api/v1/dags/" + id.split("/").map(encodeURIComponent).join("/"); }
async function api(path) {
  const r = await fetch(path, {headers: {"Accept": "application/json"}});
  const body = await r.json();
  if (!r.ok) throw new Error(path + ": " + (body.error || r.status));
  return body;
}
function showMeta(d) {
  document.getElementById("meta").innerHTML = "cluster <b>" + esc(d.cluster) + "</b> · analysis " +
    esc(d.generated_at) + " · data age " + secs(d.data_age_seconds) +
    (d.stale ? '<span class="stale">STALE</span>' : "") +
    (d.warnings.length ? " · " + d.warnings.length + " data warnings" : "");
  if (d.warnings.length) {
    document.getElementById("error").innerHTML =
      d.warnings.map(w => "<div>⚠ " + esc(w) + "</div>").join("");
  }
}
function signedSecs(v) { return (v < 0 ? "−" : "+") + secs(Math.abs(v)); }
function beforeAfter(label, f, fmt, sign) {
  return '<div>' + label + ': ' + fmt(f.before) + ' → ' + fmt(f.after) + ' <span class="muted">(' +
    sign(f.change) + ', range ' + sign(f.change_range[0]) + ' … ' + sign(f.change_range[1]) +
    ')</span></div>';
}
// The replayed before/after of a recommendation: modelled, and said so.
function showPredicted(p) {
  if (!p || !p.replayed) {
    return '<div class="muted predicted">not replayed' + (p ? ': ' + esc(p.reason) : '') + '</div>';
  }
  const points = v => (v >= 0 ? "+" : "") + (100 * v).toFixed(1) + " pt";
  return '<div class="predicted"><b>replayed (modelled, ' + p.replays + ' runs of the window)</b>' +
    (p.affected_runs ? beforeAfter('makespan of ' + p.affected_runs + ' affected run(s)',
                                   p.makespan_seconds, secs, signedSecs)
                     : '<div>no run\'s makespan changes</div>') +
    (p.watched_pods ? beforeAfter('wait in the window of its ' + p.watched_pods + ' pod(s)',
                                  p.watched_pending_seconds, secs, signedSecs) : '') +
    beforeAfter('GPU pods\' wait in the window', p.gpu_pod_pending_seconds, secs, signedSecs) +
    beforeAfter('GPU allocation', p.gpu_allocation, pct, points) +
    (p.hand_offs && p.hand_offs.charged < p.hand_offs.tasks
       ? '<div class="muted">hand-offs not charged for ' + (p.hand_offs.tasks - p.hand_offs.charged) +
         ' of the ' + p.hand_offs.tasks + ' tasks it places: their transfer time stays as observed</div>'
       : '') + '</div>';
}
// What the predictions stand on: the unchanged replay against what was observed, and whether
// hand-offs were priced from the pods' received bytes (measured) and charged.
function showPredictionBasis(p) {
  if (!p || !p.replayed) {
    return '<p class="muted">Predictions: not replayed' + (p ? ': ' + esc(p.reason) : '') + '</p>';
  }
  const c = p.calibration, t = p.transfer_prices;
  const price = (label, x) => label + ' ' + (x.fetches ? x.seconds_per_gb.toFixed(1) + ' s/GB (' +
    x.fetches + ' pods)' : 'not seen');
  return '<p class="muted" id="prediction-basis">Predictions replay the observed window ' +
    '(modelled): unchanged, it reproduces ' + c.finished_runs + ' finished run(s) within ' +
    (100 * c.median_error).toFixed(1) + ' % (median)' + (c.gpu_pod_wait.pods ? ', and the ' +
    c.gpu_pod_wait.pods + ' GPU pod(s) wait in the window ' + secs(c.gpu_pod_wait.replayed_seconds) +
    ' (observed ' + secs(c.gpu_pod_wait.observed_seconds) + ')' : '') + '. Hand-offs ' +
    (t.charged ? 'charged' : 'not charged') + ', measured from the pods\' received bytes: ' +
    price('within a zone', t.same_zone) + ', ' + price('across zones', t.cross_zone) + '.</p>';
}
function showRecommendations(list) {
  if (!list.length) { return '<p class="muted">No recommendations: nothing to change.</p>'; }
  return '<table id="rec-table"><tr><th>#</th><th>severity</th><th>kind</th><th>recommendation</th>' +
    '<th>impact</th><th>predicted</th></tr>' + list.map((r, i) =>
      '<tr class="rec"><td>' + (i + 1) + '</td><td><span class="sev sev-' + esc(r.severity) + '">' +
      esc(r.severity) + '</span></td><td>' + esc(r.kind) + '</td><td><b>' + esc(r.title) +
      '</b><div class="muted">' + esc(r.target) + '</div><div>' + esc(r.action) + '</div>' +
      '<details><summary>evidence</summary><pre>' + esc(JSON.stringify(r.evidence, null, 2)) +
      '</pre></details>' + (r.patch_yaml ? '<details><summary>patch</summary><pre>' +
      esc(r.patch_yaml) + '</pre></details>' : "") + '</td><td>' + esc(r.impact) + '</td><td>' +
      showPredicted(r.predicted) + '</td></tr>'
    ).join("") + '</table>';
}
function longest(runs, n) {
  return runs.slice().sort((a, b) => b.elapsed_seconds - a.elapsed_seconds).slice(0, n);
}
// An unfinished run has no makespan yet: its time so far is shown as elapsed.
function runTime(r) {
  return r.finished ? secs(r.makespan_seconds) :
    secs(r.elapsed_seconds) + ' elapsed <span class="muted">(unfinished)</span>';
}
// The what-if as what it is: a gain only where it is one (docs/api.md, whatif_verdict).
function whatIf(r) {
  const m = secs(r.whatif_makespan_seconds), g = secs(r.whatif_gain_seconds);
  switch (r.whatif_verdict) {
    case "gain": return m + ", saves " + g;
    case "estimated_gain": return m + " est., saves ≥ " + g;
    case "estimate": return m + " est. for the whole run";
    case "lower_bound": return "≥ " + m + ", no gain known";
    case "no_gain": return m + ", no gain";
  }
  return "–";
}
function showRuns(all) {
  if (!all.length) { return '<p class="muted">No workflow runs in the window.</p>'; }
  const runs = longest(all, MAX_RUNS);
  const more = all.length > MAX_RUNS ? '<p class="muted">The ' + MAX_RUNS + ' longest of ' +
    all.length + ' runs; all of them in /api/v1/dags.</p>' : "";
  return more + '<table id="run-table"><tr><th>run</th><th>tasks</th><th>makespan (or elapsed)</th><th>critical path</th>' +
    '<th>efficiency</th><th>wait share</th><th>HEFT what-if</th><th>critical chain</th></tr>' +
    runs.map(r => '<tr><td><a href="' + esc(runUrl(r.id)) + '">' + esc(r.id) + '</a></td><td>' +
      r.tasks + '</td><td>' + runTime(r) + '</td><td>' +
      secs(r.critical_path_seconds) + '</td><td>' + pct(r.efficiency) + '</td><td>' +
      '<span class="bar" style="width:' + Math.round(60 * (r.wait_share || 0)) + 'px"></span> ' +
      pct(r.wait_share) + '</td><td>' + whatIf(r) + '</td><td>' +
      esc(r.critical_path.join(" → ")) + '</td></tr>').join("") + '</table>';
}
function showPictures(runs) {
  if (!runs.length) { return '<p class="muted">No runs to draw.</p>'; }
  const top = longest(runs, MAX_PICTURES);
  return top.map(r => '<h3>' + esc(r.id) + '</h3><div>DAG (critical path red, orange = waited):' +
    '</div><img class="dag" alt="DAG of ' + esc(r.id) + '" src="' + esc(runUrl(r.id)) +
    '?format=svg"><div>Gantt per node (hatched = idle):</div><img class="gantt" alt="Gantt of ' +
    esc(r.id) + '" src="' + esc(runUrl(r.id)) + '/gantt.svg">').join("") +
    (runs.length > MAX_PICTURES ? '<p class="muted">' + (runs.length - MAX_PICTURES) +
     ' shorter runs not drawn; see /api/v1/dags.</p>' : "");
}
function res(r) { return r.cpu_cores.toFixed(1) + " cpu, " +
  (r.memory_bytes / 2 ** 30).toFixed(1) + " GiB, " + r.gpus + " gpu"; }
function showNodes(nodes) {
  if (!nodes.length) { return '<p class="muted">No nodes.</p>'; }
  return '<table id="node-table"><tr><th>node</th><th>pool</th><th>allocatable</th><th>requested</th>' +
    '<th>pods</th><th>stranded</th></tr>' + nodes.map(n => '<tr><td>' + esc(n.name) +
      '</td><td>' + esc(n.pool) + '</td><td>' + res(n.allocatable) + '</td><td>' +
      res(n.requested) + '</td><td>' + n.pods + '</td><td>' + (n.stranded_resource ?
      pct(n.stranded_share) + " of " + esc(n.stranded_resource) : "–") + '</td></tr>').join("") +
    '</table>';
}
async function load() {
  try {
    const [rec, dags, nodes] = await Promise.all([api("/api/v1/recommendations"),
      api("/api/v1/dags"), api("/api/v1/nodes")]);
    showMeta(rec);
    document.getElementById("recommendations").innerHTML =
      showPredictionBasis(rec.prediction) + showRecommendations(rec.recommendations);
    document.getElementById("runs").innerHTML = showRuns(dags.dags);
    document.getElementById("pictures").innerHTML = showPictures(dags.dags);
    document.getElementById("nodes").innerHTML = showNodes(nodes.nodes);
  } catch (e) {
    document.getElementById("error").textContent = "Cannot load the analysis: " + e.message;
  }
}
load();
</script>
</body>
</html>
)html";

}  // namespace

std::string_view webPageHtml() {
  return kPage;
}

void registerWebPage(HttpServer& server) {
  server.route("GET", "/", [](const HttpRequest&) {
    return HttpResponse{200, "text/html; charset=utf-8", std::string(kPage), {}};
  });
}

}  // namespace dagadvisor::server

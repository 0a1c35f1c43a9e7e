// Validates every object in the given YAML files against the Kubernetes (and Prometheus
// Operator) OpenAPI schemas of the `kubernetes-models` npm packages, then checks dagadvisor's
// own rules: a non-root, read-only Deployment with probes and resources, and read-only RBAC.
// Usage: node validate_manifests.mjs FILE.yaml...
// ES modules ignore NODE_PATH, so validate_manifests.sh copies this file next to the
// node_modules folder it installed and runs it from there.
import fs from "node:fs";
import path from "node:path";

import yaml from "js-yaml";

const problems = [];
const fail = (where, message) => problems.push(`${where}: ${message}`);

function modelPath(apiVersion, kind) {
  if (apiVersion.startsWith("monitoring.coreos.com/")) {
    return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  }
  return `kubernetes-models/${apiVersion}/${kind}`;
}

async function schemaCheck(where, doc) {
  let Model;
  try {
    ({ [doc.kind]: Model } = await import(modelPath(doc.apiVersion, doc.kind)));
  } catch (e) {
    return fail(where, `no schema for ${doc.apiVersion} ${doc.kind}`);
  }
  try {
    new Model(doc).validate();
  } catch (e) {
    fail(where, `schema: ${e.message}`);
  }
}

function deploymentCheck(where, doc) {
  const pod = doc.spec.template.spec;
  if (pod.securityContext?.runAsNonRoot !== true) fail(where, "pod must set runAsNonRoot: true");
  for (const c of pod.containers) {
    const sc = c.securityContext || {};
    if (sc.readOnlyRootFilesystem !== true) fail(where, `${c.name}: readOnlyRootFilesystem must be true`);
    if (sc.allowPrivilegeEscalation !== false) fail(where, `${c.name}: allowPrivilegeEscalation must be false`);
    if (c.livenessProbe?.httpGet?.path !== "/healthz") fail(where, `${c.name}: liveness probe on /healthz`);
    if (c.readinessProbe?.httpGet?.path !== "/readyz") fail(where, `${c.name}: readiness probe on /readyz`);
    if (!c.resources?.requests || !c.resources?.limits) fail(where, `${c.name}: requests and limits`);
  }
}

function rbacCheck(where, doc) {
  for (const rule of doc.rules || []) {
    const bad = rule.verbs.filter((v) => !["get", "list", "watch"].includes(v));
    if (bad.length) fail(where, `verbs ${bad} (only get, list, watch)`);
    for (const r of rule.resources) {
      if (["secrets", "nodes/proxy", "*"].includes(r)) fail(where, `resource ${r} is not allowed`);
    }
  }
}

let count = 0;
for (const file of process.argv.slice(2)) {
  const docs = yaml.loadAll(fs.readFileSync(file, "utf8")).filter((d) => d);
  for (const doc of docs) {
    const where = `${path.basename(file)}: ${doc.kind}/${doc.metadata?.name}`;
    count++;
    await schemaCheck(where, doc);
    if (doc.kind === "Deployment") deploymentCheck(where, doc);
    if (doc.kind === "ClusterRole" || doc.kind === "Role") rbacCheck(where, doc);
  }
}
for (const p of problems) console.error(`FAIL: ${p}`);
console.log(`validated ${count} object(s), ${problems.length} problem(s)`);
process.exit(problems.length || count === 0 ? 1 : 0);

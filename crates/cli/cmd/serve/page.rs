//! The playground's page: HTML, style and script in one document, nothing loaded from
//! elsewhere. Its whole state is in the URL's fragment, so a link reproduces it.

/// The page served at `/`.
pub const PAGE: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>probesim playground</title>
<style>
body{font:14px/1.4 sans-serif;color:#222;margin:0;padding:8px}
h1{font-size:1.25em;margin:0 0 6px}h2{font-size:1em;margin:10px 0 4px;border-bottom:1px solid #ddd}
.cols{display:grid;grid-template-columns:minmax(0,1fr);gap:10px}
@media (min-width:1000px){.cols{grid-template-columns:420px minmax(0,1fr)}}
@media (max-width:999px){#results{order:-1}}
textarea{width:100%;box-sizing:border-box;font:12px/1.35 monospace}
#yaml{height:340px}#sets{height:60px}
table.probes{border-collapse:collapse;font-size:12px;width:100%}table.probes td,table.probes th{padding:1px 3px;text-align:left}
table.probes input{width:100%;box-sizing:border-box;min-width:0}
label{display:block;margin:3px 0}label input,label select{font:inherit}
input[type=text]{width:100%;box-sizing:border-box}
.row{display:flex;gap:8px;flex-wrap:wrap}.row label{flex:1 1 120px}
#error{background:#fde8e8;border:1px solid #d62728;padding:6px;white-space:pre-wrap;font:12px/1.35 monospace;overflow-x:auto}
.scroll{overflow-x:auto;border:1px solid #eee}#picture svg{display:block;width:100%;min-width:700px;height:auto}
pre{background:#f7f7f7;padding:6px;overflow-x:auto;font-size:12px;margin:0}
#explain{white-space:pre-wrap}
.meta{color:#555}.big{font-size:1.3em;font-weight:bold}
</style>
</head>
<body>
<h1>probesim playground</h1>
<p class="meta">Change anything: the kubelet is simulated again on the server and every view is redrawn. The address holds the whole state: copy it to share this run.</p>
<div class="cols">
<div>
<h2>Probes (what if)</h2>
<label>Container (leave empty when the pod has one) <input type="text" data-k="c" id="c" placeholder="kubia"></label>
<table class="probes" id="probes"></table>
<table class="probes" id="handlers"></table>
<p class="meta">A handler replaces the probe's own (port, path and command go with it): <code>httpGet</code> takes the port and path, <code>tcpSocket</code> and <code>grpc</code> the port, <code>exec</code> the command (words split at spaces).</p>
<label>terminationGracePeriodSeconds <input type="number" data-k="grace" id="grace" min="0"></label>
<h2>The app</h2>
<label>--app (scripts, e.g. <code>liveness=5x200 then 500</code>) <input type="text" data-k="app" id="app"></label>
<label>--sigterm (<code>ignore</code>, <code>exit 0 after 2s</code>) <input type="text" data-k="sigterm" id="sigterm"></label>
<label>--exit (<code>1 after 30s</code>) <input type="text" data-k="exit" id="exit"></label>
<label>More --set lines (PATH=VALUE, one a line) <textarea data-k="sets" id="sets"></textarea></label>
<div class="row">
<label>Release <select data-k="kubernetes" id="kubernetes"><option value="">the file's</option></select></label>
<label>Horizon (--for) <input type="text" data-k="for" id="for" placeholder="30m"></label>
<label>describe at <input type="text" data-k="at" id="at" placeholder="the end"></label>
</div>
<h2>The scenario file</h2>
<textarea data-k="yaml" id="yaml" spellcheck="false"></textarea>
<p><button id="download" type="button">Download the scenario file</button> <span class="meta">(with the edits written in: <code>probesim run</code> replays it)</span></p>
</div>
<div id="results">
<p><span class="big">Restarts: <span id="restarts">…</span></span> <span class="meta" id="took"></span></p>
<pre id="error" hidden></pre>
<h2>Timeline</h2>
<div class="scroll" id="picture"></div>
<h2>kubectl get pod -w</h2>
<pre id="get"></pre>
<h2>kubectl describe pod</h2>
<pre id="describe"></pre>
<h2>What happens, and why</h2>
<pre id="explain"></pre>
</div>
</div>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const PROBES = ["liveness", "readiness", "startup"];
const FIELDS = ["initialDelaySeconds", "periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold"];
const HANDLERS = ["httpGet", "tcpSocket", "exec", "grpc"];
const HANDLER_FIELDS = ["port", "path", "command"];
// A chosen handler as a YAML flow mapping for --set: a port of digits is a number, any other
// a named port; strings are written as JSON strings, which YAML reads as they are.
function handler(kind, p, probe) {
  const get = (f) => (p.get(probe + "." + f) || "").trim();
  const fields = [];
  const port = get("port");
  if (kind !== "exec" && port) fields.push(["port", /^[0-9]+$/.test(port) ? Number(port) : port]);
  if (kind === "httpGet" && get("path")) fields.push(["path", get("path")]);
  if (kind === "exec") fields.push(["command", get("command").split(/\s+/).filter((w) => w !== "")]);
  return "{" + fields.map(([k, v]) => k + ": " + JSON.stringify(v)).join(", ") + "}";
}
(function build() {
  const t = $("probes");
  let head = "<tr><th></th>";
  for (const f of FIELDS) head += "<th>" + f.replace("Seconds", "").replace("Threshold", "") + "</th>";
  t.insertAdjacentHTML("beforeend", head + "</tr>");
  for (const p of PROBES) {
    let row = "<tr><th>" + p + "</th>";
    for (const f of FIELDS) row += '<td><input type="number" min="0" title="' + p + "Probe." + f + '" data-k="' + p + "." + f + '" id="' + p + "-" + f + '"></td>';
    t.insertAdjacentHTML("beforeend", row + "</tr>");
  }
  const h = $("handlers");
  h.insertAdjacentHTML("beforeend", "<tr><th></th><th>handler</th><th>port</th><th>path</th><th>command</th></tr>");
  for (const p of PROBES) {
    let row = "<tr><th>" + p + '</th><td><select title="' + p + 'Probe handler" data-k="' + p + '.handler" id="' + p + '-handler"><option value="">the file\'s</option>';
    for (const kind of HANDLERS) row += '<option value="' + kind + '">' + kind + "</option>";
    row += "</select></td>";
    for (const f of HANDLER_FIELDS) row += '<td><input type="text" title="' + p + "Probe handler's " + f + '" data-k="' + p + "." + f + '" id="' + p + "-" + f + '"></td>';
    h.insertAdjacentHTML("beforeend", row + "</tr>");
  }
  const k = $("kubernetes");
  for (let m = 37; m >= 19; m--) k.insertAdjacentHTML("beforeend", '<option value="1.' + m + '">1.' + m + "</option>");
})();
const controls = () => Array.from(document.querySelectorAll("[data-k]"));
function state() {
  const p = new URLSearchParams();
  for (const el of controls()) if (el.value.trim() !== "") p.set(el.dataset.k, el.value);
  return p;
}
function restore(p) {
  for (const el of controls()) { const v = p.get(el.dataset.k); if (v !== null) el.value = v; }
}
function query(p) {
  const q = new URLSearchParams();
  const c = (p.get("c") || "").trim();
  const prefix = c ? c + "." : "";
  for (const pr of PROBES) for (const f of FIELDS) {
    const v = p.get(pr + "." + f);
    if (v) q.append("set", prefix + pr + "Probe." + f + "=" + v);
  }
  for (const pr of PROBES) {
    const kind = p.get(pr + ".handler");
    if (!HANDLERS.includes(kind)) continue;
    const base = prefix + pr + "Probe.";
    for (const other of HANDLERS) if (other !== kind) q.append("set", base + other + "=null");
    q.append("set", base + kind + "=" + handler(kind, p, pr));
  }
  const g = p.get("grace");
  if (g) q.append("set", "spec.terminationGracePeriodSeconds=" + g);
  for (const line of (p.get("sets") || "").split("\n")) if (line.trim()) q.append("set", line.trim());
  for (const k of ["app", "sigterm", "exit", "for", "at", "kubernetes"]) { const v = p.get(k); if (v) q.append(k, v); }
  return q;
}
let seq = 0, file = "", name = "scenario.yaml", timer = 0;
function showError(text) { $("error").textContent = text; $("error").hidden = false; $("restarts").textContent = "–"; }
async function update() {
  const p = state();
  history.replaceState(null, "", "#" + p.toString());
  const mine = ++seq;
  const t0 = performance.now();
  let r, text;
  try {
    r = await fetch("/run?" + query(p).toString(), { method: "POST", body: $("yaml").value });
    text = await r.text();
  } catch (e) { showError("the playground's server does not answer (" + e + ")"); return; }
  if (mine !== seq) return;
  if (!r.ok) { showError(text); return; }
  $("error").hidden = true; $("error").textContent = "";
  const box = document.createElement("div");
  box.innerHTML = text; // every text in it was escaped by the server
  $("picture").innerHTML = box.querySelector("#r-picture").innerHTML;
  for (const id of ["get", "describe", "explain"]) $(id).textContent = box.querySelector("#r-" + id).textContent;
  const ok = box.querySelector("#r-ok");
  $("restarts").textContent = ok.dataset.restarts;
  name = ok.dataset.name + ".yaml";
  file = box.querySelector("#r-file").value;
  $("took").textContent = "(simulated and drawn in " + Math.round(performance.now() - t0) + " ms)";
}
function later() { clearTimeout(timer); timer = setTimeout(update, 150); }
for (const el of controls()) el.addEventListener("input", later);
$("download").addEventListener("click", () => {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([file], { type: "text/yaml" }));
  a.download = name;
  a.click();
});
(async function start() {
  const p = new URLSearchParams(location.hash.slice(1));
  restore(p);
  if (!p.get("yaml")) {
    const r = await fetch("/scenario");
    $("yaml").value = await r.text();
  }
  update();
})();
</script>
</body>
</html>
"##;

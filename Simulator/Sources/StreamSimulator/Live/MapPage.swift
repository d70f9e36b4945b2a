import Foundation

/// The live map page a relay serves at `GET /`: one self-contained HTML
/// document (no external script, style, font or basemap; nothing but this
/// server is contacted) that draws the live service with its own code on a
/// canvas, in Web Mercator (WGS84 data is projected; other data is drawn as
/// it is), fitted to what it shows.
///
/// What it does, in order: reads the stream service's description (its
/// track field), the history layer's most recent observations (trails,
/// oldest first per track) and the latest layer (every entity's position),
/// then subscribes to the WebSocket (reconnecting after a close) and adds
/// every observation to its track. Every 2 s it reads `/status`: the
/// source's status, the store's counts, the subscribers, and the latest
/// succeeded hot-spot job, whose `Output_Features` cells it draws under the
/// tracks, coloured by `Gi_Bin` (cells that are not significant outlined). Points are coloured by track (a hue from
/// the track id). A token given to the page as `/?token=T` goes with every
/// request (`X-Esri-Authorization`, and the socket's `token`).
///
/// For tests and scripts the document says what it drew: `#socket` (the
/// socket's state), `#entities`, `#observations`, `#upstream`, `#hotspots`,
/// one `li` per track in `#tracks` with `data-track` and `data-points`, and
/// `body[data-drawn]` (how many times the map was drawn).
enum MapPage {
    /// Scripts and styles only from the page itself; requests only to this server.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self' ws: wss:; img-src 'self' data:"

    static func html(for service: LiveServiceSpecification) -> String {
        // Service names are letters, digits, '_' and '-': safe inside the script's string literals.
        let name = String(service.name.filter { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" })
        return template
            .replacingOccurrences(of: "{{NAME}}", with: name)
            .replacingOccurrences(of: "{{LATEST}}", with: name + "_Latest")
            .replacingOccurrences(of: "{{TRACKS}}", with: name + "_Tracks")
            .replacingOccurrences(of: "{{TASK}}", with: HotSpotServiceSpecification.taskName)
    }

    private static let template = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{NAME}} · EntityStream relay</title>
<style>
  html, body { margin: 0; height: 100%; font: 14px/1.4 system-ui, sans-serif; color: #1d2433; background: #f4f5f7; }
  body { display: grid; grid-template-columns: 1fr 280px; grid-template-rows: auto 1fr; height: 100vh; }
  header { grid-column: 1 / 3; display: flex; gap: 16px; align-items: baseline; padding: 8px 14px; background: #1d2433; color: #fff; }
  header h1 { font-size: 16px; margin: 0; font-weight: 600; }
  #socket { padding: 1px 8px; border-radius: 9px; background: #8a6d00; font-size: 12px; }
  #socket[data-state="connected"] { background: #1f7a3a; }
  #socket[data-state="disconnected"] { background: #a32b2b; }
  #map-wrap { position: relative; min-height: 0; }
  canvas { position: absolute; inset: 0; width: 100%; height: 100%; background: #fff; }
  aside { overflow: auto; padding: 10px 14px; border-left: 1px solid #d5d8de; background: #fafbfc; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0 0 10px; }
  dt { color: #5b6272; } dd { margin: 0; min-width: 0; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
  ol { list-style: none; margin: 0; padding: 0; font-size: 12px; }
  li { display: flex; gap: 6px; align-items: center; }
  li i { width: 10px; height: 10px; border-radius: 50%; display: inline-block; }
  .note { color: #5b6272; font-size: 12px; }
</style>
</head>
<body data-drawn="0">
<header><h1>{{NAME}}</h1><span id="socket" data-state="connecting">connecting</span><span class="note" id="extent"></span></header>
<div id="map-wrap"><canvas id="map"></canvas></div>
<aside>
  <dl>
    <dt>Upstream</dt><dd id="upstream">…</dd>
    <dt>Entities</dt><dd id="entities">0</dd>
    <dt>Observations</dt><dd id="observations">0</dd>
    <dt>Live messages</dt><dd id="live">0</dd>
    <dt>Store</dt><dd id="store">…</dd>
    <dt>Subscribers</dt><dd id="clients">…</dd>
    <dt>Hot spots</dt><dd id="hotspots">no job yet</dd>
  </dl>
  <ol id="tracks"></ol>
  <p class="note">Trails: the history layer ({{TRACKS}}); points: the latest layer ({{LATEST}}) and the stream.</p>
</aside>
<script>
"use strict";
const NAME = "{{NAME}}", REST = "/arcgis/rest/services/";
const token = new URLSearchParams(location.search).get("token") || "";
const headers = token ? { "X-Esri-Authorization": "Bearer " + token } : {};
const TRAIL = 400, HISTORY = 20000;
const tracks = new Map();
let trackField = null, wkid = 4326, live = 0, cells = [], cellJob = null, drawn = 0, dirty = true;
const $ = (id) => document.getElementById(id);

async function getJSON(path, query) {
  const url = new URL(path, location.href);
  for (const [k, v] of Object.entries(Object.assign({ f: "json" }, query || {}))) url.searchParams.set(k, v);
  const response = await fetch(url, { headers });
  const body = await response.json();
  if (body && body.error) throw new Error(body.error.message || "error " + body.error.code);
  return body;
}
function hue(text) { let h = 0; for (const c of String(text)) h = (h * 31 + c.codePointAt(0)) >>> 0; return (h * 137.508) % 360; }
function project(x, y, sr) {
  if ((sr || wkid) !== 4326) return [x, y];
  const lat = Math.max(-85, Math.min(85, y)) * Math.PI / 180;
  return [x * 20037508.34 / 180, Math.log(Math.tan(Math.PI / 4 + lat / 2)) * 6378137];
}
function track(id) {
  let t = tracks.get(id);
  if (!t) { t = { color: "hsl(" + hue(id).toFixed(0) + ",70%,42%)", points: [], latest: null }; tracks.set(id, t); }
  return t;
}
function add(feature, trail) {
  const g = feature.geometry, a = feature.attributes || {};
  if (!g || typeof g.x !== "number" || typeof g.y !== "number" || trackField === null) return;
  const id = a[trackField];
  if (id === undefined || id === null) return;
  const t = track(String(id)), p = project(g.x, g.y);
  if (trail) { t.points.push(p); if (t.points.length > TRAIL) t.points.splice(0, t.points.length - TRAIL); }
  t.latest = p;
  dirty = true;
}
async function pages(layer, query, limit, each) {
  const description = await getJSON(REST + layer + "/FeatureServer/0");
  const size = description.maxRecordCount || 1000;
  let offset = 0;
  while (offset < limit) {
    const page = await getJSON(REST + layer + "/FeatureServer/0/query",
      Object.assign({ where: "1=1", outFields: trackField, resultOffset: offset, resultRecordCount: Math.min(size, limit - offset) }, query(description)));
    for (const f of page.features || []) each(f);
    offset += (page.features || []).length;
    if (!page.exceededTransferLimit || !(page.features || []).length) break;
  }
}
async function prime() {
  const service = await getJSON(REST + NAME + "/StreamServer");
  trackField = (service.timeInfo && service.timeInfo.trackIdField) || service.displayField || null;
  wkid = (service.spatialReference && (service.spatialReference.latestWkid || service.spatialReference.wkid)) || 4326;
  if (wkid === 102100 || wkid === 3857) wkid = 3857;
  const history = [];
  await pages("{{TRACKS}}", (d) => ({ orderByFields: d.objectIdField + " DESC" }), HISTORY, (f) => history.push(f));
  for (let i = history.length - 1; i >= 0; i--) add(history[i], true);
  await pages("{{LATEST}}", () => ({}), 1e6, (f) => add(f, tracks.get(String((f.attributes || {})[trackField])) === undefined));
  return service;
}
function connect(service) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const entry = (service.streamUrls || [])[0] || {};
  const socketToken = entry.token || token;
  const socket = new WebSocket(scheme + "//" + location.host + "/arcgis/ws/services/" + NAME + "/StreamServer/subscribe" + (socketToken ? "?token=" + encodeURIComponent(socketToken) : ""));
  const state = (s) => { $("socket").textContent = s; $("socket").dataset.state = s; };
  socket.onopen = () => state("connected");
  socket.onmessage = (message) => {
    let value; try { value = JSON.parse(message.data); } catch (e) { return; }
    for (const feature of Array.isArray(value) ? value : [value]) if (feature && feature.attributes) { add(feature, true); live++; }
  };
  socket.onclose = () => { state("disconnected"); setTimeout(() => connect(service), 2000); };
}
async function poll() {
  try {
    const status = await getJSON("/status");
    const s = (status.services || []).find((x) => x.name === NAME) || {};
    const source = s.source || {};
    $("upstream").textContent = (source.status || "?") + (source.lastError ? " — " + source.lastError : "");
    if (s.store) $("store").textContent = s.store.entities + " entities, " + s.store.observations + " observations";
    if (s.stream) $("clients").textContent = s.stream.clients + " (" + (s.clients || []).reduce((n, c) => n + c.dropped, 0) + " messages dropped for slow ones)";
    if (s.latestHotSpotJob && s.latestHotSpotJob !== cellJob) {
      const result = await getJSON(REST + NAME + "/GPServer/{{TASK}}/jobs/" + s.latestHotSpotJob + "/results/Output_Features");
      const value = result.value || {};
      const sr = (value.spatialReference || {}).wkid || wkid;
      cells = (value.features || []).map((f) => ({ bin: (f.attributes || {}).Gi_Bin || 0,
        rings: f.geometry && f.geometry.rings ? f.geometry.rings.map((r) => r.map((c) => project(c[0], c[1], sr))) : null,
        point: f.geometry && typeof f.geometry.x === "number" ? project(f.geometry.x, f.geometry.y, sr) : null }));
      cellJob = s.latestHotSpotJob;
      const hot = cells.filter((c) => c.bin > 0).length, cold = cells.filter((c) => c.bin < 0).length;
      $("hotspots").textContent = cells.length + " cells (" + hot + " hot, " + cold + " cold), job " + cellJob;
      dirty = true;
    }
  } catch (e) { $("upstream").textContent = "status: " + e.message; }
}
const binColor = { 3: "#b2182b", 2: "#ef8a62", 1: "#fddbc7", "-1": "#d1e5f0", "-2": "#67a9cf", "-3": "#2166ac" };
function draw() {
  const canvas = $("map"), ratio = window.devicePixelRatio || 1;
  const box = canvas.parentElement.getBoundingClientRect();
  const width = Math.max(1, Math.round(box.width)), height = Math.max(1, Math.round(box.height));
  canvas.width = width * ratio; canvas.height = height * ratio;
  const c = canvas.getContext("2d");
  c.setTransform(ratio, 0, 0, ratio, 0, 0);
  c.clearRect(0, 0, width, height);
  let xmin = Infinity, ymin = Infinity, xmax = -Infinity, ymax = -Infinity;
  const grow = (p) => { if (p) { xmin = Math.min(xmin, p[0]); xmax = Math.max(xmax, p[0]); ymin = Math.min(ymin, p[1]); ymax = Math.max(ymax, p[1]); } };
  for (const t of tracks.values()) { t.points.forEach(grow); grow(t.latest); }
  for (const cell of cells) { if (cell.rings) cell.rings.forEach((r) => r.forEach(grow)); grow(cell.point); }
  if (xmin === Infinity) return;
  const span = Math.max(xmax - xmin, ymax - ymin, 1e-9), margin = 24;
  const scale = Math.min((width - 2 * margin) / Math.max(xmax - xmin, span * 1e-3), (height - 2 * margin) / Math.max(ymax - ymin, span * 1e-3));
  const ox = (width - (xmax - xmin) * scale) / 2, oy = (height - (ymax - ymin) * scale) / 2;
  const sx = (p) => ox + (p[0] - xmin) * scale, sy = (p) => height - (oy + (p[1] - ymin) * scale);
  for (const cell of cells) {
    // Significant cells are filled (hot red, cold blue); the others are outlined, so the job's grid shows.
    const color = binColor[cell.bin];
    c.fillStyle = color || "#000"; c.strokeStyle = "#9aa1ad"; c.lineWidth = 0.5; c.globalAlpha = color ? 0.75 : 0.6;
    c.beginPath();
    if (cell.rings) { for (const r of cell.rings) r.forEach((p, i) => i ? c.lineTo(sx(p), sy(p)) : c.moveTo(sx(p), sy(p))); c.closePath(); }
    else if (cell.point) { c.arc(sx(cell.point), sy(cell.point), 6, 0, 2 * Math.PI); }
    if (color) c.fill(); else c.stroke();
  }
  c.globalAlpha = 1;
  for (const t of tracks.values()) {
    if (t.points.length > 1) {
      c.strokeStyle = t.color; c.globalAlpha = 0.55; c.lineWidth = 1.5; c.beginPath();
      t.points.forEach((p, i) => i ? c.lineTo(sx(p), sy(p)) : c.moveTo(sx(p), sy(p))); c.stroke();
    }
  }
  c.globalAlpha = 1;
  for (const t of tracks.values()) {
    if (!t.latest) continue;
    c.fillStyle = t.color; c.strokeStyle = "#1d2433"; c.lineWidth = 1;
    c.beginPath(); c.arc(sx(t.latest), sy(t.latest), 4.5, 0, 2 * Math.PI); c.fill(); c.stroke();
  }
  $("extent").textContent = (wkid === 4326 ? "Web Mercator" : "wkid " + wkid) + ", " + Math.round(xmax - xmin) + " × " + Math.round(ymax - ymin) + " units";
  document.body.dataset.drawn = String(++drawn);
}
function list() {
  const ol = $("tracks"), names = Array.from(tracks.keys()).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  ol.replaceChildren(...names.map((name) => {
    const t = tracks.get(name), li = document.createElement("li"), dot = document.createElement("i");
    dot.style.background = t.color; li.dataset.track = name; li.dataset.points = String(t.points.length);
    li.append(dot, document.createTextNode(name + " · " + t.points.length));
    return li;
  }));
  $("entities").textContent = String(tracks.size);
  $("observations").textContent = String(Array.from(tracks.values()).reduce((n, t) => n + t.points.length, 0));
  $("live").textContent = String(live);
}
function frame() { if (dirty) { dirty = false; draw(); list(); } }
setInterval(frame, 250);
setInterval(poll, 2000);
window.addEventListener("resize", () => { dirty = true; });
(async function start() {
  for (;;) {
    try { const service = await prime(); connect(service); break; }
    catch (e) { $("upstream").textContent = "waiting for the service: " + e.message; await new Promise((r) => setTimeout(r, 1000)); }
  }
  poll(); frame();
})();
</script>
</body>
</html>
"""#
}

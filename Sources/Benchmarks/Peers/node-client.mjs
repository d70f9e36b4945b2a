// A Node.js stream-service client for comparison with `entitystream connect`:
// the built-in WebSocket and JSON.parse, the same store (per-track history
// capped at 1000, age purge at 300 s) and one JSON line per observation on
// stdout. Usage: node --experimental-websocket node-client.mjs WS_URL TRACK_FIELD COUNT
const [url, trackField, countText] = process.argv.slice(2);
const limit = Number(countText);
const maxPerTrack = 1000;
const maxAgeMs = 300_000;
const tracks = new Map();
let nextEntity = 1;
let seen = 0;
let pending = [];

function flush() {
  if (pending.length) {
    process.stdout.write(pending.join("\n") + "\n");
    pending = [];
  }
}

function purgeByAge(now) {
  for (const [track, entity] of tracks) {
    while (entity.head < entity.history.length && now - entity.history[entity.head].t > maxAgeMs) entity.head++;
    if (entity.head === entity.history.length) tracks.delete(track);
  }
}

const socket = new WebSocket(url);
socket.onmessage = (event) => {
  const now = Date.now();
  const feature = JSON.parse(event.data);
  const track = feature.attributes[trackField];
  let entity = tracks.get(track);
  if (!entity) {
    entity = { id: nextEntity++, history: [], head: 0 };
    tracks.set(track, entity);
  }
  entity.history.push({ t: now, feature });
  if (entity.history.length - entity.head > maxPerTrack) entity.head++;
  if (entity.head > 4096) {
    entity.history = entity.history.slice(entity.head);
    entity.head = 0;
  }
  pending.push(JSON.stringify({
    event: "observation", track, entity: entity.id, time: new Date(now).toISOString(), epoch: now,
    geometry: feature.geometry, attributes: feature.attributes,
  }));
  if (pending.length >= 1000) flush();
  seen += 1;
  if (seen % 10000 === 0) purgeByAge(now);
  if (seen >= limit) {
    // Exit only once stdout has taken everything: process.exit right after a
    // write can leave output queued for a pipe (and finish early).
    socket.onmessage = null;
    socket.close();
    const rest = pending.length ? pending.join("\n") + "\n" : "";
    pending = [];
    process.stdout.write(rest, () => process.exit(0));
  }
};
socket.onerror = (error) => {
  console.error(`node client: ${error.message ?? error}`);
  process.exit(1);
};

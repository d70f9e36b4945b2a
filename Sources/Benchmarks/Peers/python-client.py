"""A Python stream-service client for comparison with `entitystream connect`:
`websockets` and `orjson`, the same store (per-track history capped at 1000,
age purge at 300 s) and one JSON line per observation on stdout.

Usage: python3 python-client.py WS_URL TRACK_FIELD COUNT
"""
import asyncio
import collections
import datetime
import sys
import time

import orjson
import websockets

MAX_PER_TRACK = 1000
MAX_AGE_S = 300.0


async def main(url: str, track_field: str, limit: int) -> None:
    tracks: dict = {}
    entity_ids: dict = {}
    seen = 0
    out = sys.stdout.buffer
    pending = []
    async with websockets.connect(url, max_size=None) as socket:
        async for message in socket:
            now = time.time()
            feature = orjson.loads(message)
            track = feature["attributes"][track_field]
            history = tracks.get(track)
            if history is None:
                history = collections.deque(maxlen=MAX_PER_TRACK)
                tracks[track] = history
                entity_ids[track] = len(entity_ids) + 1
            history.append((now, feature))
            pending.append(orjson.dumps({
                "event": "observation", "track": track, "entity": entity_ids[track],
                "time": datetime.datetime.fromtimestamp(now, datetime.timezone.utc).isoformat(timespec="milliseconds"),
                "epoch": int(now * 1000), "geometry": feature["geometry"], "attributes": feature["attributes"],
            }))
            seen += 1
            if len(pending) >= 1000:
                out.write(b"\n".join(pending) + b"\n")
                pending.clear()
            if seen % 10000 == 0:
                for key in list(tracks):
                    entries = tracks[key]
                    while entries and now - entries[0][0] > MAX_AGE_S:
                        entries.popleft()
                    if not entries:
                        del tracks[key]
            if seen >= limit:
                break
    if pending:
        out.write(b"\n".join(pending) + b"\n")
    out.flush()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))

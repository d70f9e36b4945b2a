"""A Python JetStream peer for `entitystream-bench jetstream`, with nats-py:
the same work as `entitystream replay … --publish` and `entitystream consume`
without the entity store.

  publish: reads Esri feature JSON lines, writes one observation JSON line per
  feature on stdout and publishes it on SUBJECT.<service>.<track> with a
  Nats-Msg-Id, at most WINDOW unacknowledged (every acknowledgement awaited).
  consume: reads STREAM from its first message with a durable pull consumer
  (batches of 1024, acknowledging the last of each batch: "ack all"), and
  writes each message's line on stdout, until COUNT lines.

Usage: python3 jetstream-peer.py publish URL SUBJECT FILE TRACK_FIELD WINDOW STREAM
       python3 jetstream-peer.py consume URL STREAM COUNT
"""
import asyncio
import hashlib
import json
import sys
import time

import nats
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy


def token(text: str) -> str:
    out = []
    for byte in text.encode():
        ch = chr(byte)
        out.append(ch if ch.isalnum() or ch in "-_" else "~%02X" % byte)
    return "".join(out) or "~"


async def publish(url, subject, path, track_field, window, stream):
    nc = await nats.connect(url)
    js = nc.jetstream()
    await js.add_stream(name=stream, subjects=[subject + ".>"])
    service = token(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    slots = asyncio.Semaphore(window)
    pending = set()
    out = sys.stdout.buffer
    buffered = []
    observation = 0

    async def send(subj, payload, msg_id):
        try:
            # A generous acknowledgement wait: on a loaded machine the default 0.5 s fails the run.
            await js.publish(subj, payload, timeout=60, headers={"Nats-Msg-Id": msg_id})
        finally:
            slots.release()

    with open(path, "rb") as lines:
        for raw in lines:
            raw = raw.strip()
            if not raw:
                continue
            feature = json.loads(raw)
            attributes = feature.get("attributes") or {}
            track = str(attributes.get(track_field, ""))
            observation += 1
            now = time.time()
            line = json.dumps({"event": "observation", "track": track, "observation": observation,
                               "epoch": int(now * 1000), "geometry": feature.get("geometry"),
                               "attributes": attributes}, separators=(",", ":")).encode()
            buffered.append(line)
            if len(buffered) >= 1024:
                out.write(b"\n".join(buffered) + b"\n")
                buffered = []
            tok = token(track)
            msg_id = "%s.%s.%s" % (service, tok, hashlib.blake2b(raw, digest_size=8).hexdigest())
            await slots.acquire()
            task = asyncio.ensure_future(send("%s.%s.%s" % (subject, service, tok), line, msg_id))
            pending.add(task)
            task.add_done_callback(pending.discard)
    if buffered:
        out.write(b"\n".join(buffered) + b"\n")
    await asyncio.gather(*pending)
    await nc.close()


async def consume(url, stream, count):
    nc = await nats.connect(url)
    js = nc.jetstream()
    sub = await js.pull_subscribe("", durable="python-peer", stream=stream,
                                  config=ConsumerConfig(ack_policy=AckPolicy.ALL, deliver_policy=DeliverPolicy.ALL,
                                                        max_ack_pending=16384))
    out = sys.stdout.buffer
    seen = 0
    while seen < count:
        try:
            msgs = await sub.fetch(1024, timeout=5)
        except nats.errors.TimeoutError:
            break
        out.write(b"\n".join(m.data for m in msgs) + b"\n")
        out.flush()
        seen += len(msgs)
        await msgs[-1].ack()
    await nc.close()


if __name__ == "__main__":
    if sys.argv[1] == "publish":
        asyncio.run(publish(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7]))
    else:
        asyncio.run(consume(sys.argv[2], sys.argv[3], int(sys.argv[4])))

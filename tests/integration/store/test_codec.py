"""Codec and upcasters (architecture.md: a changed payload gets v + 1 and an upcaster)."""

from __future__ import annotations

import json
from typing import Any

import redis

from domain.events import Event
from domain.replay import replay
from domain.upcast import upcast
from store import codec
from store.event_store import events_key, meta_key
from store.service import MatchService
from tests.support import store_play


def test_encode_decode_round_trip_keeps_type_v_data_and_seq() -> None:
    event = Event("CardDiscarded", {"seat": 2, "card": "TS"}, v=1)
    fields = codec.encode(event, "2026-12-01T08:30:00.123Z", "abc")
    assert fields["data"] == '{"card":"TS","seat":2}'
    stored = codec.decode(b"0-17", {k.encode(): v.encode() for k, v in fields.items()})
    assert stored.seq == 17 and stored.event == event and stored.at == "2026-12-01T08:30:00.123Z"


def test_gin_card_drawn_v0_decodes_to_the_current_shape() -> None:
    """The upcast example: a v0 gin CardDrawn `{seat, card, discard: bool}` becomes the v1
    `{seat, from: "stock" | "discard", card}` of G5.2 at the storage edge."""
    old: dict[bytes | str, bytes | str] = {
        "type": "CardDrawn",
        "v": "0",
        "data": '{"seat":1,"card":"TS","discard":true}',
    }
    got = codec.decode("0-5", old, "three-hand-gin").event
    assert got == Event("CardDrawn", {"seat": 1, "from": "discard", "card": "TS"}, v=1)
    old_stock: dict[bytes | str, bytes | str] = {
        "type": "CardDrawn",
        "data": '{"seat":0,"card":"2C","discard":false}',
    }
    got = codec.decode("0-6", old_stock, "three-hand-gin").event  # no `v`: v0
    assert got == Event("CardDrawn", {"seat": 0, "from": "stock", "card": "2C"}, v=1)


def test_upcasters_are_per_variant() -> None:
    """Manipulation's CardDrawn `{seat, card, draw}` is another shape: the gin upcaster must not
    touch it, and current events pass through unchanged."""
    manip = Event("CardDrawn", {"seat": 0, "card": "TS", "draw": 1}, v=0)
    assert upcast(manip, "manipulation-rummy") == manip
    current = Event("CardDrawn", {"seat": 0, "from": "stock", "card": "TS"}, v=1)
    assert upcast(current, "three-hand-gin") is current


def test_a_log_with_old_entries_loads_to_the_same_state(
    service: MatchService, redis_client: redis.Redis
) -> None:
    """A gin match rewritten with v0 CardDrawn entries (as an old deployment wrote them) loads
    to exactly the state of the current log."""
    created = store_play.create(service, store_play.GIN)
    store_play.play(service, created.match_id, 40)
    _loaded = service.load(created.match_id)
    original, version = _loaded.state, _loaded.version
    legacy = "m_legacy"
    drawn = 0
    rows: Any = redis_client.xrange(events_key(created.match_id))  # raw reply (bytes)
    for entry_id, fields in rows:
        fields = dict(fields)
        if fields[b"type"] == b"CardDrawn":
            data = json.loads(fields[b"data"])
            old = {"seat": data["seat"], "card": data["card"], "discard": data["from"] == "discard"}
            fields[b"data"], fields[b"v"] = json.dumps(old).encode(), b"0"
            drawn += 1
        redis_client.xadd(events_key(legacy), fields, id=entry_id)
    meta: Any = redis_client.hgetall(meta_key(created.match_id))
    redis_client.hset(meta_key(legacy), mapping=meta)
    assert drawn > 0
    _loaded = service.load(legacy)
    state, legacy_version = _loaded.state, _loaded.version
    assert (state, legacy_version) == (original, version)
    assert replay([e.event for e in service.events(legacy, limit=10_000)]) == original

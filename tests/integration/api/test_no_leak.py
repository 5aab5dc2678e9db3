"""No leak (issue 4, api.md Views, G1.4): in every response of random matches, no card outside
the caller's visible set appears anywhere in the body.

The visible set is computed here from the unredacted log, not from the API's redaction: a seat
may see the cards it has held, the cards of its team mate's hand (the gin advisor sees the
captain's, G1.4), and every card that has been public this round (the upcard, discards, draws
from the discard pile, the knocker's spread; the Manipulation table). Every other card of the
deck is hidden from it. The check covers the first round, up to its scoring (the round result
then reveals both hands, and the same codes come back in the next deal).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from domain.variants import get_variant
from tests.support.api_helpers import CARD_CODE, auth, create, play
from tests.support.views import you_of

GIN_PUBLIC = {
    "UpcardPassed": ("card",),
    "UpcardTaken": ("card",),
    "CardDiscarded": ("card",),
    "Knocked": ("melds", "deadwood_cards"),
}


def card_strings(node: Any) -> Iterator[str]:
    """Every card code in a JSON value (values only). `JK=8S` is the joker: the card it
    stands for is a declaration, not a physical card (M5)."""
    if isinstance(node, str):
        if CARD_CODE.match(node):
            yield node.split("=")[0]
    elif isinstance(node, dict):
        for value in node.values():
            yield from card_strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from card_strings(value)


def scanned(body: Any) -> Any:
    """The body without the role draw (G1.2): its cards come from the shuffle that picks the
    roles, not from the deal, and are public."""
    if isinstance(body, dict) and isinstance(body.get("events"), list):
        events = [e for e in body["events"] if e.get("type") != "RolesDrawn"]
        return {**body, "events": events}
    return body


def public_cards(variant: str, event: Any) -> set[str]:
    data = event.data
    if event.type == "RoundDealt" and variant == "three-hand-gin":
        return {data["upcard"]}
    if event.type == "CardDrawn" and data.get("from") == "discard":
        return {data["card"]}
    if variant == "three-hand-gin" and event.type in GIN_PUBLIC:
        return {c for key in GIN_PUBLIC[event.type] for c in card_strings(data[key])}
    if event.type == "TableMelded":
        return set(card_strings(data["table"]))
    return set()


def visible_by_version(
    service: Any, match_id: str
) -> tuple[set[str], dict[int, dict[int | None, set[str]]]]:
    """The deck's codes, and for each version: {seat or None: the cards it may have seen}."""
    stored = service.events(match_id, after=0, limit=1000)
    variant = get_variant(stored[0].event.data["variant"])
    state = variant.initial_state()
    public: set[str] = set()
    held: dict[int, set[str]] = {}
    deck: set[str] = set()
    out: dict[int, dict[int | None, set[str]]] = {}
    for item in stored:
        if item.event.type == "RoundScored":
            break
        if item.event.type == "RoundDealt":
            data: Any = item.event.data
            deck = set(card_strings([data["hands"], data["stock"], data.get("upcard")]))
        state = variant.evolve(state, item.event)
        public |= public_cards(variant.name, item.event)
        spectator: Any = variant.view(state, None)  # gin has roles, Manipulation none
        roles = spectator.get("roles")
        for seat in range(len(spectator["seats"])):
            held.setdefault(seat, set()).update(you_of(variant.view(state, seat))["hand"])
        seen: dict[int | None, set[str]] = {None: set(public)}
        for seat in held:
            seen[seat] = public | held[seat]
            if (
                roles
                and seat == roles["advisor"]
                and spectator["options"].get("advisor_sees_captain_hand")
            ):
                seen[seat] |= held[roles["captain"]]
        out[item.seq] = seen
    return deck, out


def _collect(client: Any, match_id: str, tokens: list[str | None], rng: random.Random) -> Any:
    got: list[tuple[int | None, dict[str, Any]]] = []

    def record(seat: int | None, response: Any) -> None:
        if response.status_code == 200 and response.is_json:
            got.append((seat, response.get_json()))

    def hook(kind: str, seat: int | None, response: Any) -> None:
        record(seat, response)
        if kind != "move":
            return
        viewer = rng.choice([None, *range(len(tokens))])
        headers = auth(None if viewer is None else tokens[viewer])
        base = f"/v1/matches/{match_id}"
        after = rng.randrange(max(1, response.get_json()["version"]))
        record(viewer, client.get(f"{base}/events?after={after}", headers=headers))
        record(viewer, client.get(f"{base}/legal-moves", headers=headers))
        record(viewer, client.get(f"{base}?at={after + 1}", headers=headers))
        if viewer is not None:
            record(viewer, client.get(f"{base}/hint", headers=headers))

    return got, hook


@settings(
    max_examples=6,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # a failing match is already small
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.integers(0, 2**31),
    game=st.sampled_from(
        [("three-hand-gin", 3), ("manipulation-rummy", 2), ("manipulation-rummy", 4)]
    ),
)
def test_no_response_shows_a_hidden_card(client: Any, service: Any, seed: int, game: Any) -> None:
    variant, n = game
    match_id, tokens = create(client, variant, n, seed=seed)
    rng = random.Random(seed)
    got, hook = _collect(client, match_id, tokens, rng)

    def round_over(view: dict[str, Any]) -> bool:
        return view["phase"] == "scoring" or bool(view["rounds"])

    play(client, service, match_id, tokens, rng, hook=hook, until=round_over, advise_every=5)
    deck, visible = visible_by_version(service, match_id)
    checked = 0
    for seat, body in got:
        version = body.get("version") or body.get("match", {}).get("version")
        if version is None:  # a hint: checked against the current version
            version = max(visible)
        if version not in visible:
            continue
        shown = set(card_strings(scanned(body)))
        hidden = (deck - visible[version][seat]) & shown
        assert not hidden, f"seat {seat} was shown {sorted(hidden)} at version {version}"
        checked += 1
    assert checked > len(got) // 2


def test_the_visible_set_is_not_vacuous(client: Any, service: Any) -> None:
    """The oracle flags the raw log: the stock and the other hands are outside every seat's
    visible set right after the deal, so a response showing them would fail the test above."""
    match_id, _ = create(client, seed=5)
    deck, visible = visible_by_version(service, match_id)
    raw = [item.event.to_json() for item in service.events(match_id, after=0, limit=10)]
    dealt = raw[-1]["data"]
    for seat in (None, 0, 1, 2):
        hidden = deck - visible[len(raw)][seat]
        assert set(dealt["stock"]) <= hidden
        assert hidden & set(card_strings(scanned({"events": raw})))
    spectator_page = client.get(f"/v1/matches/{match_id}/events").get_json()
    assert not (deck - visible[len(raw)][None]) & set(card_strings(scanned(spectator_page)))

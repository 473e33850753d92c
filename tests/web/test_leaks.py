"""No answer of the browser table shows a card its seat may not see (HL-8, HK-5): not another
seat's hand, not the draw pile — whatever the request."""

from __future__ import annotations

import json
import random
import re

import pytest

from hot_envs.core.games import get_game
from hot_envs.heisse_luft.facts import CARD_INDEX, card_label
from hot_envs.web.tables import Table


def hidden_luft_cards(state, seat: int) -> set[str]:
    """HL-8: the opponent's hand less its shown cards, and the draw pile."""
    other = state.to_dict()
    known = set(state.view(seat)["known_opponent_cards"])
    return (set(other["hands"][1 - seat]) - known) | set(other["draw_pile"])


def strings(value):
    """Every string (keys too) in a decoded JSON answer."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def names_a_card(answer, cards: set[str]) -> set[str]:
    """The ``cards`` (codes such as ``H7``) that ``answer`` names, as a code or as ``♥7``."""
    labels = {card_label(CARD_INDEX[code]): code for code in cards}
    if not labels:
        return set()
    label = re.compile("|".join(map(re.escape, labels)) + r"(?![0-9])")
    found = set()
    for text in strings(answer):
        if text in cards:
            found.add(text)
        found.update(labels[m] for m in label.findall(text))
    return found


def test_no_heisse_luft_answer_names_a_hidden_card(client, store):
    """A whole game, with every kind of request at every turn: no answer names a card of the
    opponent's hand that was not shown (HL-3.4), nor a card of the draw pile — unless seat 1
    saw it earlier (played cards come round again after a reshuffle, HL-3.5)."""
    assert names_a_card({"log": ["♥10 → stage 1", "H7"]}, {"H10", "H7", "H1"}) == {"H10", "H7"}
    created = client.ok(
        "POST", "/api/games", {"game": "heisse-luft", "seats": ["random", "human"], "seed": 8}
    )
    game_id, table, rng = created["id"], store.get(created["id"]), random.Random(8)
    snap, checked, seen = created, 0, set()
    while True:
        seen |= set(strings(table.state.view(1))) & set(CARD_INDEX)
        hidden = hidden_luft_cards(table.state, 1) - seen
        # Playing a hidden card is never legal for seat 1; the refusal names only that card.
        probe = min(hidden, default="H1")
        probes = [
            snap,
            client.call("GET", f"/api/games/{game_id}")[1],
            client.call("GET", f"/api/games/{game_id}?seat=0")[1],
            client.call("POST", f"/api/games/{game_id}/step?seat=0")[1]
            if not snap["agent_to_move"]
            else {},
            client.call("POST", f"/api/games/{game_id}/move", {"action": 8 * CARD_INDEX[probe]})[1]
            if hidden
            else {},
            client.call("POST", f"/api/games/{game_id}/seek", {"step": 0})[1],
            client.call("GET", "/api/agents")[1],
        ]
        for answer in probes:
            assert not names_a_card(answer, hidden - {probe}), (answer, hidden)
            checked += 1
        if snap["over"]:
            break
        if snap["agent_to_move"]:
            snap = client.ok("POST", f"/api/games/{game_id}/step")
        else:
            snap = client.ok(
                "POST",
                f"/api/games/{game_id}/move",
                {"action": rng.choice(snap["moves"])["action"]},
            )
    assert checked > 300 and snap["step"] > 40


def twin_tables(game: str, seats: list[str], swap) -> tuple[Table, Table, int]:
    """Two tables whose deals differ only in cards seat 0 cannot see: ``swap(d)`` moves hidden
    cards around in a state dict and returns the action id of playing one of them."""
    engine = get_game(game).engine
    first, second = Table(game, seats, 1), Table(game, seats, 1)
    d = first.state.to_dict()
    hidden_action = swap(d)
    second.state = engine.State.from_dict(d, seed=99)
    assert second.state.to_dict() != first.state.to_dict()
    return first, second, hidden_action


def karten_swap(d):
    """A card of seat 1's hand trades places with the draw pile's bottom card (HK-5: both
    unseen; the top card is drawn next)."""
    d["hands"][1][0], d["draw_pile"][-1] = d["draw_pile"][-1], d["hands"][1][0]
    return d["draw_pile"][-1] - 1  # HK-1.2


def luft_swap(d):
    """A card of the opponent's hand trades places with one of the draw pile (HL-8)."""
    d["hands"][1][0], d["draw_pile"][-1] = d["draw_pile"][-1], d["hands"][1][0]
    return 8 * CARD_INDEX[d["hands"][1][0]]  # that card to stage 1


@pytest.mark.parametrize(
    ("game", "seats", "swap"),
    [
        ("heisse-karten", ["human", "random", "random"], karten_swap),
        ("heisse-luft", ["human", "random"], luft_swap),
    ],
)
def test_answers_are_the_same_when_only_hidden_cards_differ(client, store, game, seats, swap):
    """Every request the seat-0 browser can make gets the same answer from two deals that differ
    only in what seat 0 may not see."""
    first, second, hidden_action = twin_tables(game, seats, swap)
    ids = [store.add(first), store.add(second)]
    move = {"action": first.snapshot()["moves"][0]["action"]}
    requests = [
        ("GET", "", None),
        ("GET", "?seat=1", None),
        ("GET", "?seat=9", None),
        ("POST", "/step", None),
        ("POST", "/seek", {"step": 0}),
        ("POST", "/move", {"action": hidden_action}),
        ("POST", "/move", move),
        ("GET", "", None),
    ]
    for method, path, body in requests:
        answers = []
        for game_id in ids:
            status, answer = client.call(method, f"/api/games/{game_id}{path}", body)
            answer.pop("id", None)
            answers.append((status, json.dumps(answer, sort_keys=True)))
        assert answers[0] == answers[1], (method, path, answers)

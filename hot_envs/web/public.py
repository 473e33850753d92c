"""What the browser table shows besides a seat's view: the viewer's legal moves spelt out for the
page, and the last trick or stage flight, both worked out from public information only.

Every function here reads views (``State.view``) and action ids, never a full state, so nothing
it returns can hold a card the viewer may not see (docs/rules.md HL-8, HK-5).
"""

from __future__ import annotations

from hot_envs.heisse_karten.facts import CARD_VALUE as KARTEN_VALUE
from hot_envs.heisse_karten.facts import TRICK_RANK
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    CLAIM_TROPHY,
    EXCHANGE_DONE,
    EXCHANGE_PICK,
    OWN_SIDE,
    STOP_CLAIMING,
    SUITS,
)
from hot_envs.heisse_luft.facts import CARD_VALUE as LUFT_VALUE
from hot_envs.heisse_luft.facts import action_name as luft_action_name


def luft_move(action: int, player: int) -> dict:
    """A Heiße Luft action of ``player`` for the page: what to click (a card, a stage side, a
    button). ``side`` is the seat whose side of the stage the card goes on (not relative)."""
    move = {"action": action, "name": luft_action_name(action)}
    if action < EXCHANGE_PICK:
        card, slot = divmod(action, 8)
        stage, side = divmod(slot, 2)
        seat = player if side == OWN_SIDE else 1 - player
        return move | {"kind": "play", "card": CARD_CODES[card], "stage": stage + 1, "side": seat}
    if action < EXCHANGE_DONE:
        return move | {"kind": "pick", "card": CARD_CODES[action - EXCHANGE_PICK]}
    if action == EXCHANGE_DONE:
        return move | {"kind": "done"}
    if action < STOP_CLAIMING:
        return move | {"kind": "claim", "suit": SUITS[action - CLAIM_TROPHY]}
    return move | {"kind": "stop"}


def karten_move(action: int, player: int) -> dict:
    """A Heiße Karten action for the page: the card to click (HK-1.2: action k - 1 plays k)."""
    return {"action": action, "name": f"play {action + 1}", "kind": "play", "card": action + 1}


def luft_flight(before: dict, mover: int, action: int, after: dict) -> dict | None:
    """The stage flight ``action`` caused (HL-4, HL-5.1), or None: the stage as it was complete,
    its sums and who took the prizes. ``before``/``after`` are views around the action."""
    if action >= EXCHANGE_PICK:
        return None
    move = luft_move(action, mover)
    number = move["stage"]
    stage = before["stages"][number - 1]
    sides = [list(cards) for cards in stage["sides"]]
    sides[move["side"]].append(move["card"])
    if sum(map(len, sides)) < 2 * len(stage["prizes"]):
        return None
    gained = [_prize_total(after, p) - _prize_total(before, p) for p in (0, 1)]
    winner = max((0, 1), key=gained.__getitem__)
    return {
        "kind": "flight",
        "stage": number,
        "terrain": stage["terrain"],
        "prizes": list(stage["prizes"]),
        "sides": sides,
        "sums": [sum(LUFT_VALUE[CARD_CODES.index(c)] for c in side) for side in sides],
        "last_player": mover,
        "winner": winner,
    }


def _prize_total(view: dict, player: int) -> int:
    """Prize cards a player has won, those paid into trophies included (public, HL-8)."""
    return sum(view["prizes_won"][player].values()) + sum(view["trophy_cards"][player].values())


def karten_trick(before: dict, mover: int, action: int, after: dict) -> dict | None:
    """The trick ``action`` completed (HK-3.2, HK-3.3), or None: its cards, winner and points."""
    if len(before["trick"]) < before["num_players"] - 1:
        return None
    cards = [list(pair) for pair in before["trick"]] + [[mover, action + 1]]
    winner = max(cards, key=lambda pair: TRICK_RANK[pair[1]])[0]
    return {
        "kind": "trick",
        "cards": cards,
        "winner": winner,
        "points": sum(KARTEN_VALUE[card] for _, card in cards),
    }

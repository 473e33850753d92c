"""Text rendering of a Heiße Karten table (``render_mode="ansi"/"human"``)."""

from __future__ import annotations

from hot_envs.heisse_karten.facts import card_label, seat_name
from hot_envs.heisse_karten.table import Table


def _cards(cards: list[int]) -> str:
    return " ".join(card_label(card) for card in cards) or "-"


def _per_seat(values: list[int]) -> str:
    return "  ".join(f"{seat_name(seat)} {value:+d}" for seat, value in enumerate(values))


def render(state: Table, viewer: int | None = None) -> str:
    """The public table, plus ``viewer``'s hand when a viewer is given.

    Cards read ``36b`` (black, counts +36) and ``17r`` (red, counts -17), as in HK-1.1. The last
    trick taken is shown with the seat that took it until the next one is taken.
    """
    n, options = state.num_players, state.options
    rounds = options["rounds"]
    match = (
        f"round {state.round + 1} of {rounds}"
        if options["target"] is None
        else (f"round {state.round + 1}, target {options['target']} (at most {rounds} rounds)")
    )
    lines = [
        f"Heiße Karten, {n} players, {match}; draw pile {state.draw_pile_size}"
        + (f", set aside {len(state.set_aside)}" if state.set_aside else ""),
        "Trick: "
        + (
            ", ".join(
                f"{seat_name((state.leader + i) % n)} {card_label(card)}"
                for i, card in enumerate(state.trick)
            )
            or ("empty" if state.current_player is None else f"{seat_name(state.leader)} leads")
        ),
        "Scores: " + _per_seat(state.scores),
    ]
    complete = len(state.played) // n
    if complete:  # HK-5 the last trick taken is public; its winner leads the current one
        last = state.played[(complete - 1) * n : complete * n]
        cards = ", ".join(f"{seat_name(seat)} {card_label(card)}" for seat, card in last)
        lines.insert(2, f"Last trick: {cards} — taken by {seat_name(state.leader)}")
    if rounds > 1:
        lines.append("Totals: " + _per_seat(state.totals))
    lines.append(
        "Hand sizes: "
        + "  ".join(f"{seat_name(seat)} {len(hand)}" for seat, hand in enumerate(state.hands))
    )
    if viewer is not None:
        lines.append(f"Hand of {seat_name(viewer)}: {_cards(state.hands[viewer])}")
    if state.current_player is None:
        winners = ", ".join(seat_name(seat) for seat in state.winners())
        returns = "  ".join(f"{r:+.3f}" for r in state.returns())
        lines.append(f"Game over. Winners: {winners}. Returns: {returns}")
    else:
        lines.append(f"To move: {seat_name(state.current_player)}")
    return "\n".join(lines)

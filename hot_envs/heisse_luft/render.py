"""Text rendering of a Heiße Luft table (``render_mode="ansi"``/``"human"``)."""

from __future__ import annotations

from hot_envs.heisse_luft.facts import (
    NUM_STAGES,
    OVER,
    PHASES,
    STAGE_SIZES,
    SUIT_SYMBOLS,
    TERRAINS,
    TROPHY,
    card_label,
)
from hot_envs.heisse_luft.table import Table


def _cards(cards: list[int] | set[int]) -> str:
    return " ".join(card_label(c) for c in cards) or "—"


def _prizes(counts: list[int]) -> str:
    return " ".join(f"{SUIT_SYMBOLS[s]}{n}" for s, n in enumerate(counts))


def render(state: Table, viewer: int | None = None) -> str:
    """The table as text. Only ``viewer``'s hand is shown (None: no hand); cards the opponent
    saw under HL-3.4 are shown as known."""
    lines = [_status(state)]
    for i in range(NUM_STAGES):
        if not state.in_play[i]:
            lines.append(f"Stage {i + 1}  out of the game")
            continue
        prizes = "".join(SUIT_SYMBOLS[s] for s in state.prizes[i]).ljust(STAGE_SIZES[-1])
        last = state.last_player[i]
        sides = "   ".join(
            f"P{p}: {_cards(state.sides[i][p])} ({state.sums[i][p]})".ljust(24) for p in (0, 1)
        )
        tail = f"last: P{last}" if last is not None else ""
        lines.append(f"Stage {i + 1}  {TERRAINS[state.terrain[i]]:<8}  {prizes}  {sides}{tail}")
    for p in (0, 1):
        trophies = "".join(SUIT_SYMBOLS[s] for s in state.trophies[p]) or "—"
        lines.append(
            f"P{p} prizes {_prizes(state.prizes_won[p])}  trophies {trophies}  "
            f"hand {len(state.hands[p])}"
        )
    for p in (0, 1):
        if p == viewer:
            lines.append(f"P{p} hand: {_cards(state.hands[p])}")
        elif state.revealed[p]:
            lines.append(f"P{p} known cards: {_cards(sorted(state.revealed[p]))}")
    if state.exchange_selection:
        lines.append(f"Exchanging: {_cards(state.exchange_selection)}")
    return "\n".join(lines)


def _status(state: Table) -> str:
    piles = (
        f"draw pile {len(state.draw_pile)} · discard {len(state.discard_pile)} · "
        f"prize deck {len(state.prize_deck)} · pass streak {state.pass_streak}"
    )
    if state.phase == OVER:
        if state.winner is None:
            result = "truncated, no winner"
        elif state.winner == "draw":
            result = "draw"
        else:
            result = f"P{state.winner} wins"
        return f"Turn {state.turn} · game over: {result} · {piles}"
    phase = PHASES[state.phase]
    if state.phase == TROPHY:
        phase += f" (stage won by P{state.trophy_winner})"
    return f"Turn {state.turn} · P{state.current_player} to move ({phase}) · {piles}"

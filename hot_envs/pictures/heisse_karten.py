"""The Heiße Karten table as a picture, drawn from one player's view dict (HK-5 in
docs/rules.md).

Across the top one panel per seat (score, cards in hand, who leads, who is to move); in the
middle the trick in play order and, beside it, the last finished trick with its winner; at the
bottom the viewer's hand. Cards are black (even, count plus) or red (odd, count minus), HK-1.1.
"""

from __future__ import annotations

from PIL import Image

from hot_envs.heisse_karten.facts import CARD_VALUE, trick_winner
from hot_envs.pictures.draw import HIGHLIGHT, INK, MUTED, WHITE, WIDTH, Canvas, row_left, signed

FELT = (28, 92, 66)
FELT_LIGHT = (44, 118, 88)
SEAT = (236, 243, 238)
BLACK = (24, 24, 28)
RED = (200, 24, 46)
BLACK_FACE, RED_FACE = (246, 246, 242), (255, 238, 236)
PALE = (214, 232, 222)

TRICK_CARD, LAST_CARD, HAND_CARD = (92, 128), (48, 68), (80, 112)


def draw(view: dict, spectator: bool = False) -> Image.Image:
    """:func:`hot_envs.pictures.picture_of_view` of a Heiße Karten view."""
    canvas = Canvas(FELT)
    canvas.header("HEISSE KARTEN", _status(view), _piles(view))
    _seats(canvas, view)
    _trick(canvas, view)
    _last_trick(canvas, view)
    if spectator:
        _result(canvas, view)
    else:
        _hand(canvas, view)
    return canvas.image


def _status(view: dict) -> str:
    options, n = view["options"], view["num_players"]
    rounds = options["rounds"]
    if options["target"] is None:
        match = f"round {view['round'] + 1} of {rounds}"
    else:
        match = f"round {view['round'] + 1}, to {options['target']} points"
    mover = view["current_player"]
    turn = "game over" if mover is None else f"P{mover} to move"
    return f"{n} players · {match} · {turn}"


def _piles(view: dict) -> str:
    text = f"draw pile {view['draw_pile_size']}"
    if view["set_aside_count"]:
        text += f" · set aside {view['set_aside_count']}"
    return text


def _card(canvas: Canvas, box: tuple, card: int, raised: bool = False) -> None:
    """A face-up card: its number in its colour, and what it counts at the bottom."""
    black = card % 2 == 0
    ink = BLACK if black else RED
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    face = BLACK_FACE if black else RED_FACE
    canvas.card(box, str(card), face, ink, HIGHLIGHT if raised else ink, size=int(w * 0.44))
    canvas.text(
        ((x0 + x1) / 2, y1 - h * 0.14), signed(CARD_VALUE[card]), max(10, w // 6), ink, "mm"
    )


def _seats(canvas: Canvas, view: dict) -> None:
    n = view["num_players"]
    width = (WIDTH - 28 - 8 * (n - 1)) / n
    show_totals = view["options"]["rounds"] > 1
    for seat in range(n):
        x0, y0 = 14 + seat * (width + 8), 46
        x1, y1 = x0 + width, y0 + 92
        mover = view["current_player"] == seat
        canvas.box(
            (x0, y0, x1, y1), SEAT, HIGHLIGHT if mover else PALE, radius=10, width=3 if mover else 1
        )
        canvas.text((x0 + 10, y0 + 16), f"P{seat}", 17, INK, "lm", bold=True)
        tags = (["to move"] if mover else []) + (["leads"] if view["leader"] == seat else [])
        right = x1 - 8
        for tag in reversed(tags):
            right -= canvas.width(tag, 12) + 20
            canvas.pill(right, y0 + 16, tag, (176, 96, 0) if tag == "to move" else FELT, size=12)
        score = view["scores"][seat]
        colour = BLACK if score >= 0 else RED
        canvas.text((x0 + 10, y0 + 50), signed(score), 26, colour, "lm", bold=True)
        if show_totals:
            canvas.text(
                (x1 - 10, y0 + 50), f"total {signed(view['totals'][seat])}", 13, MUTED, "rm"
            )
        canvas.text((x0 + 10, y0 + 78), f"{view['hand_sizes'][seat]} in hand", 13, MUTED, "lm")
        canvas.text((x1 - 10, y0 + 78), f"{len(view['taken'][seat])} taken", 13, MUTED, "rm")


def _trick(canvas: Canvas, view: dict) -> None:
    top = 152
    canvas.box((14, top, 680, 402), FELT_LIGHT, None, radius=14)
    canvas.text((28, top + 18), "TRICK", 15, WHITE, "lm", bold=True)
    trick = view["trick"]
    if not trick and view["current_player"] is not None:
        canvas.text((347, top + 125), f"P{view['leader']} leads", 20, PALE, "mm")
    step = TRICK_CARD[0] + 14
    left = row_left(len(trick), TRICK_CARD[0], step, 347)
    for k, (seat, card) in enumerate(trick):
        x = left + k * step
        canvas.text((x + TRICK_CARD[0] / 2, top + 50), f"P{seat}", 15, WHITE, "mm", bold=True)
        _card(canvas, (x, top + 66, x + TRICK_CARD[0], top + 66 + TRICK_CARD[1]), card)


def _last_trick(canvas: Canvas, view: dict) -> None:
    """The trick finished last this round (derived from ``played``), and who took it."""
    top, n = 152, view["num_players"]
    canvas.box((690, top, WIDTH - 14, 402), FELT_LIGHT, None, radius=14)
    canvas.text((704, top + 18), "LAST TRICK", 15, WHITE, "lm", bold=True)
    played, open_cards = view["played"], len(view["trick"])
    finished = played[: len(played) - open_cards]
    if len(finished) < n:
        canvas.text((852, top + 125), "none yet", 16, PALE, "mm")
        return
    last = finished[-n:]
    winner = trick_winner(last[0][0], [card for _, card in last], n)
    points = sum(CARD_VALUE[card] for _, card in last)
    step = LAST_CARD[0] + 4 if n <= 5 else LAST_CARD[0] - 2
    left = row_left(n, LAST_CARD[0], step, 852)
    for k, (seat, card) in enumerate(last):
        x = left + k * step
        canvas.text((x + LAST_CARD[0] / 2, top + 68), f"P{seat}", 13, WHITE, "mm")
        box = (x, top + 80, x + LAST_CARD[0], top + 80 + LAST_CARD[1])
        _card(canvas, box, card, raised=seat == winner)
    canvas.text(
        (852, top + 180), f"P{winner} took it: {signed(points)}", 17, WHITE, "mm", bold=True
    )


def _hand(canvas: Canvas, view: dict) -> None:
    top = 414
    canvas.text((28, top + 12), f"HAND OF P{view['player']}", 15, WHITE, "lm", bold=True)
    hand = view["hand"]
    step = HAND_CARD[0] + 10
    left = row_left(len(hand), HAND_CARD[0], step, WIDTH / 2)
    for k, card in enumerate(hand):
        x = left + k * step
        _card(canvas, (x, top + 32, x + HAND_CARD[0], top + 32 + HAND_CARD[1]), card)
    if not hand:
        canvas.text((WIDTH / 2, top + 88), "no cards left", 18, PALE, "mm")


def _result(canvas: Canvas, view: dict) -> None:
    """Game over: the final totals and the winners (HK-4.2)."""
    totals = view["totals"]
    best = max(totals)
    winners = [f"P{seat}" for seat, total in enumerate(totals) if total == best]
    text = ("Winner: " if len(winners) == 1 else "Shared win: ") + ", ".join(winners)
    canvas.text((WIDTH / 2, 460), "GAME OVER", 26, WHITE, "mm", bold=True)
    canvas.text((WIDTH / 2, 500), f"{text} with {signed(best)}", 20, HIGHLIGHT, "mm", bold=True)

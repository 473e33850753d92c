"""The Heiße Luft table as a picture, drawn from one player's view dict (HL-8 in
docs/rules.md).

The viewer sits at the bottom, the opponent at the top; between them the four stages
(docs/rules.md HL-1.3), each with its terrain, its prize cards, both sides' balloon cards with
their sums, the empty slots still to fill, and the player who placed the stage's last card (the
tie-break of HL-4.3). Each player's strip shows the hand (the opponent's face down, except the
cards seen under HL-3.4), the prize cards won and the trophies.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from hot_envs.pictures.draw import GOLD, HIGHLIGHT, INK, MUTED, WHITE, WIDTH, Canvas, row_left

SKY = (206, 229, 245)
PANEL = (240, 247, 252)
PANEL_EDGE = (150, 183, 207)
OUT = (214, 220, 226)
SUITS = "HDCS"
SUIT_SHAPES = {"H": "heart", "D": "diamond", "C": "club", "S": "spade"}
# HL-1.1 suit colours: hearts red, diamonds yellow, clubs green, spades blue; then the ink on them.
SUIT_COLOURS = {"H": (214, 40, 57), "D": (240, 180, 0), "C": (36, 150, 64), "S": (36, 102, 199)}
SUIT_INK = {"H": WHITE, "D": (60, 40, 0), "C": WHITE, "S": WHITE}
LOWLAND = ((118, 184, 82), (88, 152, 62))  # hill colours, light and dark
MOUNTAIN = ((150, 140, 130), (110, 100, 94))

STAGES_TOP, STAGE_HEIGHT, STAGE_WIDTH, STAGE_GAP = 130, 318, 242, 8
SIDE_CARD = (46, 64)
HAND_CARD = (54, 76)
SIDE_STEP, HAND_STEP = 52, 60


def draw(view: dict, spectator: bool = False) -> Image.Image:
    """:func:`hot_envs.pictures.picture_of_view` of a Heiße Luft view."""
    me = view["player"]
    canvas = Canvas(SKY)
    canvas.header("HEISSE LUFT", _status(view), _piles(view))
    for i, stage in enumerate(view["stages"]):
        _stage(canvas, i, stage, me)
    own = len(view["hand"])
    _strip(canvas, view, 1 - me, 42, hidden=view["opponent_hand_size"], me=me)
    shown = [] if spectator else view["hand"]
    _strip(canvas, view, me, 456, hidden=own if spectator else 0, me=me, hand=shown)
    return canvas.image


def _status(view: dict) -> str:
    turn = f"Turn {view['turn']}"
    if view["phase"] == "over":
        winner = view["winner"]
        if winner is None:
            return f"{turn} · game over: turn limit, no winner"
        return f"{turn} · game over: " + ("a draw" if winner == "draw" else f"P{winner} wins")
    mover = view["current_player"]
    phase = {"play": "play a card", "exchange": "stuck: exchange cards", "trophy": "trophies"}
    text = f"{turn} · P{mover} to move: {phase[view['phase']]}"
    if view["trophy_phase"]:
        text += f" (stage won by P{view['trophy_phase']['winner']})"
    return text


def _piles(view: dict) -> str:
    return (
        f"draw {view['draw_pile_size']} · discard {len(view['discard_pile'])} · "
        f"prize deck {view['prize_deck_size']}"
    )


def _balloon(canvas: Canvas, box: tuple, code: str, raised: bool = False) -> None:
    """A balloon card: its value on the suit's colour, a small suit icon in the corner."""
    suit = code[0]
    canvas.card(box, code[1:], SUIT_COLOURS[suit], SUIT_INK[suit], HIGHLIGHT if raised else None)
    size = max(10, (box[2] - box[0]) // 4)
    canvas.suit(
        SUIT_SHAPES[suit], (box[0] + size * 0.5 + 4, box[1] + size * 0.5 + 4), size, SUIT_INK[suit]
    )


def _prize(canvas: Canvas, centre: tuple[float, float], suit: str, w: int = 30) -> None:
    """A prize card: the suit's icon, white on its colour."""
    h = int(w * 1.4)
    x, y = centre[0] - w / 2, centre[1] - h / 2
    canvas.box((x, y, x + w, y + h), SUIT_COLOURS[suit], WHITE, radius=5, width=2)
    canvas.suit(SUIT_SHAPES[suit], centre, int(w * 0.62), SUIT_INK[suit])


def _stage(canvas: Canvas, i: int, stage: dict, me: int) -> None:
    x0 = 14 + i * (STAGE_WIDTH + STAGE_GAP)
    y0, x1, y1 = STAGES_TOP, x0 + STAGE_WIDTH, STAGES_TOP + STAGE_HEIGHT
    mid = (x0 + x1) / 2
    if not stage["in_play"]:
        canvas.box((x0, y0, x1, y1), OUT, PANEL_EDGE, radius=12)
        canvas.text((x0 + 12, y0 + 18), f"STAGE {i + 1}", 16, MUTED, "lm", bold=True)
        canvas.text((mid, (y0 + y1) / 2), "out of the game", 16, MUTED, "mm")
        return
    canvas.box((x0, y0, x1, y1), PANEL, PANEL_EDGE, radius=12)
    canvas.text((x0 + 12, y0 + 16), f"STAGE {i + 1}", 16, INK, "lm", bold=True)
    lowland = stage["terrain"] == "lowland"
    rule = "low sum wins" if lowland else "high sum wins"
    colour = LOWLAND[1] if lowland else MOUNTAIN[1]
    canvas.pill(x1 - 28 - canvas.width(rule, 13), y0 + 16, rule, colour)
    slots = max(len(stage["prizes"]), *map(len, stage["sides"]))  # a side needs a card per prize
    # Terrain band with the prizes on it (HL-2.1 terrain, HL-1.3 prize cards).
    band = (x0 + 2, y0 + 124, x1 - 2, y0 + 194)
    _terrain(canvas, band, lowland)
    for k, suit in enumerate(stage["prizes"]):
        _prize(canvas, (row_left(slots, 30, 38, mid) + 15 + 38 * k, (band[1] + band[3]) / 2), suit)
    opponent = 1 - me
    for player, top in ((opponent, y0 + 52), (me, y0 + 204)):
        cards = stage["sides"][player]
        left = row_left(slots, SIDE_CARD[0], SIDE_STEP, mid)
        for k in range(slots):
            x = left + SIDE_STEP * k
            box = (x, top, x + SIDE_CARD[0], top + SIDE_CARD[1])
            if k < len(cards):
                _balloon(canvas, box, cards[k])
            else:
                canvas.slot(box)
        # The side's owner and sum on the line outside its cards; who placed last (HL-4.3 ties).
        y = top - 11 if player == opponent else top + SIDE_CARD[1] + 13
        label = f"P{player}" + (" · placed last" if stage["last_player"] == player else "")
        ink = (176, 96, 0) if stage["last_player"] == player else MUTED
        canvas.text((x0 + 12, y), label, 13, ink, "lm")
        total = sum(int(code[1:]) for code in cards)  # a code is its suit and value: "H7"
        canvas.text((x1 - 12, y), f"sum {total}", 16, INK, "rm", bold=True)


def _terrain(canvas: Canvas, band: tuple, lowland: bool) -> None:
    """Rolling hills for lowland, peaks with snow for mountains, clipped to ``band``."""
    x0, y0, x1, y1 = (round(v) for v in band)
    w, h = x1 - x0, y1 - y0
    light, dark = LOWLAND if lowland else MOUNTAIN
    scene = Image.new("RGB", (w, h), (222, 238, 250))
    draw = ImageDraw.Draw(scene)
    if lowland:
        for k, (cx, r, top) in enumerate(((0.15, 0.4, 0.55), (0.6, 0.5, 0.4), (1.05, 0.4, 0.6))):
            draw.ellipse(
                ((cx - r) * w, top * h, (cx + r) * w, 2 * h), fill=light if k % 2 else dark
            )
    else:
        for k, (cx, peak) in enumerate(((0.16, 0.3), (0.5, 0.05), (0.86, 0.35))):
            base, top = 0.28 * w, (cx * w, peak * h)
            draw.polygon(
                [(top[0] - base, h), top, (top[0] + base, h)], fill=dark if k % 2 else light
            )
            cap = 0.22 * (h - top[1]) / h  # the snow cap, a larger part of a higher peak
            snow_line = top[1] + (h - top[1]) * cap
            draw.polygon(
                [(top[0] - base * cap, snow_line), top, (top[0] + base * cap, snow_line)],
                fill=WHITE,
            )
    draw.rectangle((0, h - 3, w, h), fill=dark)
    canvas.image.paste(scene, (x0, y0))


def _strip(
    canvas: Canvas,
    view: dict,
    player: int,
    top: int,
    hidden: int,
    me: int,
    hand: list[str] | None = None,
) -> None:
    """One player's strip: name, hand, prize cards won, trophies."""
    height = 82 if player != me else 116
    canvas.box((8, top, WIDTH - 8, top + height), (231, 241, 249), PANEL_EDGE, radius=12)
    mid = top + height / 2
    name = f"P{player}"
    if view["current_player"] == player:
        canvas.pill(14, mid - 20, "to move", (176, 96, 0))
    canvas.text((16, mid + 8), name, 24, INK, "lm", bold=True)
    card = HAND_CARD if player == me else (40, 56)
    step = HAND_STEP if player == me else 22
    known = [] if player == me else view["known_opponent_cards"]
    y = mid - card[1] / 2
    right = 96 - step + card[0]  # right edge of the last card drawn
    selected = set(view["exchange_selection"]) if player == view["current_player"] else set()
    for code in hand or []:
        x, lift = right + step - card[0], 8 if code in selected else 0
        _balloon(canvas, (x, y - lift, x + card[0], y - lift + card[1]), code, raised=bool(lift))
        right = x + card[0]
    for _ in range(hidden - len(known)):
        x = right + step - card[0]
        canvas.back((x, y, x + card[0], y + card[1]))
        right = x + card[0]
    if known:  # seen when the opponent was stuck (HL-3.4)
        canvas.text((right + 6, y - 1), "seen", 11, MUTED, "ld")
    for code in known:
        x = right + 6
        _balloon(canvas, (x, y, x + card[0], y + card[1]), code)
        right = x + card[0]
    count = len(hand or []) + hidden
    canvas.text((right + 12, mid), f"{count} cards", 14, MUTED, "lm")
    _prizes_and_trophies(canvas, view, player, mid)


def _prizes_and_trophies(canvas: Canvas, view: dict, player: int, mid: float) -> None:
    x, won = 640, view["prizes_won"][player]
    canvas.text((x, mid - 30), "prizes", 13, MUTED, "lm")
    for suit in SUITS:
        _prize(canvas, (x + 15, mid + 6), suit, 26)
        canvas.text((x + 32, mid + 8), str(won[suit]), 18, INK, "lm", bold=True)
        x += 60
    x += 12
    canvas.text((x, mid - 30), "trophies", 13, MUTED, "lm")
    trophies = view["trophies"][player]
    if not trophies:
        canvas.text((x, mid + 6), "none yet", 14, MUTED, "lm")
    for suit in trophies:
        canvas.draw.ellipse(
            (x, mid - 12, x + 36, mid + 24), fill=(255, 250, 232), outline=GOLD, width=4
        )
        canvas.suit(SUIT_SHAPES[suit], (x + 18, mid + 6), 20, SUIT_COLOURS[suit])
        x += 44

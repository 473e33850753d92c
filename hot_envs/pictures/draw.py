"""Drawing pieces both tables share: the canvas, fonts, colours, cards, card backs and suit icons.

Text uses Pillow's bundled default font (``ImageFont.load_default(size=…)``), so nothing is
fetched or looked up on the system; it covers ASCII only, which is why suits are drawn as
shapes (anti-aliased sprites) and text says ``-17``, not ``−17``.
"""

from __future__ import annotations

from functools import cache, lru_cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 1024, 576  # 16:9, both multiples of 16 (video codecs' macroblocks)

INK = (32, 36, 44)
MUTED = (96, 106, 120)
WHITE = (255, 255, 255)
HEADER = (22, 50, 79)
HIGHLIGHT = (255, 196, 0)
GOLD = (212, 160, 23)
CARD_BACK = (46, 84, 140)
SLOT = (150, 170, 190)

Box = tuple[int, int, int, int]


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font at ``size`` pixels (Pillow ≥ 10.1)."""
    return ImageFont.load_default(size=size)


# Suit shapes in a unit square: circles (cx, cy, r) and polygons, drawn as one mask.
_SHAPES: dict[str, tuple[tuple, tuple]] = {
    "heart": (
        ((0.29, 0.36, 0.25), (0.71, 0.36, 0.25)),
        (((0.05, 0.44), (0.95, 0.44), (0.5, 0.94)),),
    ),
    "diamond": ((), (((0.5, 0.02), (0.9, 0.5), (0.5, 0.98), (0.1, 0.5)),)),
    "club": (
        ((0.5, 0.28, 0.22), (0.27, 0.58, 0.22), (0.73, 0.58, 0.22)),
        (((0.5, 0.4), (0.33, 0.97), (0.67, 0.97)),),
    ),
    "spade": (
        ((0.29, 0.6, 0.23), (0.71, 0.6, 0.23)),
        (((0.06, 0.54), (0.94, 0.54), (0.5, 0.04)), ((0.5, 0.55), (0.3, 0.98), (0.7, 0.98))),
    ),
}


@cache
def _suit_mask(shape: str, size: int) -> Image.Image:
    """An anti-aliased mask of a suit shape: drawn 4× larger, then scaled down."""
    big = 4 * size
    mask = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(mask)
    circles, polygons = _SHAPES[shape]
    for cx, cy, r in circles:
        draw.ellipse(((cx - r) * big, (cy - r) * big, (cx + r) * big, (cy + r) * big), fill=255)
    for polygon in polygons:
        draw.polygon([(x * big, y * big) for x, y in polygon], fill=255)
    return mask.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, stroke: int, anchor: str) -> tuple[Image.Image, int, int]:
    """Rendered text as a mask and its offset from the anchor point: card values and labels
    recur in every frame, and rendering glyphs is most of a frame's time."""
    face = font(size)
    left, top, right, bottom = face.getbbox(text, anchor=anchor, stroke_width=stroke)
    mask = Image.new("L", (max(right - left, 1), max(bottom - top, 1)), 0)
    ImageDraw.Draw(mask).text(
        (-left, -top), text, font=face, fill=255, anchor=anchor, stroke_width=stroke,
        stroke_fill=255,
    )  # fmt: skip
    return mask, left, top


class Canvas:
    """A picture being drawn, with the few primitives the tables need."""

    def __init__(self, background: tuple[int, int, int]) -> None:
        self.image = Image.new("RGB", (WIDTH, HEIGHT), background)
        self.draw = ImageDraw.Draw(self.image)

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int,
        fill: tuple[int, int, int] = INK,
        anchor: str = "la",
        bold: bool = False,
    ) -> float:
        """Draw ``text``; returns its width. ``bold`` thickens the strokes by one pixel."""
        mask, left, top = _text_mask(text, size, 1 if bold else 0, anchor)
        x, y = round(xy[0]) + left, round(xy[1]) + top
        self.image.paste(fill, (x, y, x + mask.width, y + mask.height), mask)
        return self.width(text, size) + (2 if bold else 0)

    def width(self, text: str, size: int) -> float:
        return _text_width(text, size)

    def box(
        self,
        box: Box,
        fill: tuple[int, int, int] | None,
        outline: tuple[int, int, int] | None = None,
        radius: int = 8,
        width: int = 1,
    ) -> None:
        self.draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)

    def suit(self, shape: str, centre: tuple[float, float], size: int, colour: tuple) -> None:
        """A suit icon (``heart``, ``diamond``, ``club``, ``spade``) centred at ``centre``."""
        size = int(size)
        mask = _suit_mask(shape, size)
        x, y = round(centre[0] - size / 2), round(centre[1] - size / 2)
        self.image.paste(colour, (x, y, x + size, y + size), mask)

    def card(
        self,
        box: Box,
        label: str,
        face: tuple[int, int, int],
        ink: tuple[int, int, int],
        border: tuple[int, int, int] | None = None,
        size: int | None = None,
    ) -> None:
        """A face-up card: ``label`` large in the middle, in ``ink`` on ``face``."""
        x0, y0, x1, y1 = box
        w = x1 - x0
        border = border or tuple(int(c * 0.7) for c in face)  # a darker face
        self.box(box, face, border, radius=max(4, w // 8), width=2)
        size = size or max(12, int(w * 0.46))
        self.text(((x0 + x1) / 2, (y0 + y1) / 2 + 2), label, size, ink, "mm", bold=True)

    def back(self, box: Box) -> None:
        """A face-down card."""
        x0, y0, x1, y1 = box
        r = max(3, (x1 - x0) // 8)
        self.box(box, CARD_BACK, WHITE, radius=r, width=2)
        self.box((x0 + 5, y0 + 5, x1 - 5, y1 - 5), None, (120, 160, 210), radius=r - 1)

    def slot(self, box: Box) -> None:
        """An empty place for a card (a thin outline)."""
        self.box(box, None, SLOT, radius=max(4, (box[2] - box[0]) // 8), width=1)

    def pill(
        self, left: float, mid_y: float, text: str, fill: tuple, ink: tuple = WHITE, size: int = 13
    ) -> float:
        """A rounded label starting at ``left``; returns its right edge."""
        width = self.width(text, size) + 16
        self.box((left, mid_y - size * 0.8, left + width, mid_y + size * 0.8), fill, radius=9)
        self.text((left + width / 2, mid_y + 1), text, size, ink, "mm")
        return left + width

    def header(self, title: str, status: str, right: str) -> None:
        """The bar across the top: game title, status, and piles on the right."""
        self.draw.rectangle((0, 0, WIDTH, 36), fill=HEADER)
        x = 14 + self.text((14, 19), title, 19, WHITE, "lm", bold=True)
        self.text((x + 18, 19), status, 16, (230, 236, 245), "lm")
        self.text((WIDTH - 14, 19), right, 15, (190, 205, 225), "rm")


@lru_cache(maxsize=4096)
def _text_width(text: str, size: int) -> float:
    return font(size).getlength(text)


def row_left(count: int, width: int, step: int, centre: float) -> float:
    """The left edge of ``count`` cards ``width`` wide, ``step`` apart, centred on ``centre``."""
    return centre - ((count - 1) * step + width) / 2 if count else centre


def signed(value: int) -> str:
    """``+36``, ``-17``, ``0`` (ASCII minus: the font has no U+2212)."""
    return f"{value:+d}" if value else "0"

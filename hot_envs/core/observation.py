"""Declarative observation layouts (after OpenSpiel's observer).

A layout is declared once as a list of named pieces. The encoder writes into one flat float32
vector at the pieces' offsets (``layout.offset``, looked up once) or through named views of it
(``layout.views``), so the encoding code reads like the table that documents it, and
``layout.table()`` renders that table for docstrings and docs. The full-state vectors of
``env.state()`` (each game's ``state_encoding`` module) are declared with the same pieces.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np


@dataclass(frozen=True)
class Piece:
    """One named part of an observation vector."""

    name: str
    shape: tuple[int, ...]
    meaning: str
    low: float = 0.0
    high: float = 1.0

    @property
    def size(self) -> int:
        return prod(self.shape)


class ObservationLayout:
    """An ordered list of pieces with their slices in the flat vector."""

    def __init__(self, pieces: list[Piece], version: int) -> None:
        self.pieces = list(pieces)
        self.version = version
        self.slices: dict[str, slice] = {}
        start = 0
        for piece in self.pieces:
            if piece.name in self.slices:
                raise ValueError(f"duplicate observation piece {piece.name!r}")
            self.slices[piece.name] = slice(start, start + piece.size)
            start += piece.size
        self.size = start
        self.low = np.concatenate([np.full(p.size, p.low, np.float32) for p in self.pieces])
        self.high = np.concatenate([np.full(p.size, p.high, np.float32) for p in self.pieces])

    def offset(self, name: str, *position: int) -> int:
        """Flat index of piece ``name``'s entry at ``position`` (row-major; trailing axes left
        out count as 0), e.g. ``offset("stage_cards", stage, side)`` starts that row.

        Encoders look offsets up once, at import: per-call :meth:`views` cost more than a small
        encoding itself.
        """
        start = self.slices[name].start  # KeyError for an unknown piece
        shape = next(p.shape for p in self.pieces if p.name == name)
        if len(position) > len(shape):
            raise ValueError(f"piece {name!r} has {len(shape)} axes, not {len(position)}")
        flat = 0
        for axis, size in enumerate(shape):
            i = position[axis] if axis < len(position) else 0
            if not 0 <= i < size:
                raise IndexError(f"index {i} is out of range for axis {axis} of {name!r} {shape}")
            flat = flat * size + i
        return start + flat

    def indices(self, name: str) -> list[int]:
        """Flat indices of every entry of piece ``name``, in row-major order."""
        s = self.slices[name]
        return list(range(s.start, s.stop))

    def views(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Named views (not copies) into ``vector``, each reshaped to its piece's shape."""
        return {p.name: vector[self.slices[p.name]].reshape(p.shape) for p in self.pieces}

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Same as :meth:`views`; reads an observation back into its named pieces."""
        return self.views(vector)

    def table(self) -> str:
        """The layout as a Markdown table: name, slice, shape, value range, meaning."""
        rows = ["| piece | slice | shape | range | meaning |", "|---|---|---|---|---|"]
        for p in self.pieces:
            s = self.slices[p.name]
            bounds = f"[{p.low:g}, {p.high:g}]"
            rows.append(f"| `{p.name}` | {s.start}:{s.stop} | {p.shape} | {bounds} | {p.meaning} |")
        return "\n".join(rows)

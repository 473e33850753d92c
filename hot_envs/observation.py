"""Declarative observation layouts (after OpenSpiel's observer).

A layout is declared once as a list of named pieces. The encoder writes into one flat float32
vector through named views of it, so the encoding code reads like the table that documents it,
and ``layout.table()`` renders that table for docstrings and docs.
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

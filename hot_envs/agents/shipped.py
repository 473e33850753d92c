"""Where a checkpoint is: a path on disk, or the name of one that ships with hot_envs.

The package ``hot_envs.checkpoints`` holds the repository's ``checkpoints/`` policies
(``NAME.npz`` + ``NAME.json``; the ``.zip`` training models stay in the repository), so
``CheckpointAgent.load("heisse_luft_v0")`` and the agent spec ``heisse_luft_v0`` work from any
folder; a path that exists wins over a shipped name. Earlier shipped policies stay loadable by
name, ``checkpoints/earlier/NAME_YYYY_MM_DD`` (``_HHMM`` UTC for a later one of the same date),
e.g. ``heisse_karten_v0_2026_11_30`` (:func:`earlier_names`).
"""

from __future__ import annotations

from pathlib import Path

import hot_envs.checkpoints

SUFFIXES = (".zip", ".npz", ".json")
SHIPPED = Path(hot_envs.checkpoints.__file__).resolve().parent  # checkpoints/ in the repository
EARLIER = SHIPPED / "earlier"


def checkpoint_stem(path: str | Path) -> Path:
    """``runs/x/best`` for ``runs/x/best``, ``runs/x/best.npz``, ``.zip`` or ``.json``."""
    path = Path(path)
    return path.with_suffix("") if path.suffix in SUFFIXES else path


def shipped_names() -> list[str]:
    """The names of the checkpoints that ship with hot_envs, e.g. ``heisse_luft_v0``."""
    return _names(SHIPPED)


def earlier_names() -> list[str]:
    """The names of earlier shipped policies, by date: ``heisse_karten_v0_2026_11_30`` …"""
    return _names(EARLIER)


def _names(folder: Path) -> list[str]:
    return sorted(file.stem for file in folder.glob("*.json") if file.with_suffix(".npz").is_file())


def is_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` names a checkpoint: one of its files exists, or it is a shipped name."""
    stem = checkpoint_stem(path)
    return _exists(stem) or _shipped(stem) is not None


def find_checkpoint(path: str | Path) -> Path:
    """The stem of the checkpoint ``path`` names: ``NAME`` or one of its files on disk, else a
    shipped checkpoint's name (``heisse_luft_v0``). ``FileNotFoundError`` lists the shipped names
    when neither fits."""
    stem = checkpoint_stem(path)
    if _exists(stem):
        return stem
    shipped = _shipped(stem)
    if shipped is not None:
        return shipped
    raise FileNotFoundError(
        f"checkpoint {str(path)!r} not found: no file {stem}.json, .npz or .zip, and no shipped "
        f"checkpoint of that name (shipped: {', '.join(shipped_names()) or 'none'}; earlier: "
        f"{', '.join(earlier_names()) or 'none'})"
    )


def _exists(stem: Path) -> bool:
    return any(stem.with_suffix(suffix).is_file() for suffix in SUFFIXES)


def _shipped(stem: Path) -> Path | None:
    """The shipped (or earlier shipped) checkpoint a bare name (no folder) stands for, if any."""
    name = str(stem)
    if name in shipped_names():
        return SHIPPED / name
    return EARLIER / name if name in earlier_names() else None

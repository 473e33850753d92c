"""Where a checkpoint is: a path on disk, or the name of one that ships with hot_envs.

The package holds the trained policies of the repository's ``checkpoints/`` folder as the
package ``hot_envs.checkpoints``: ``NAME.npz`` + ``NAME.json`` (the ``NAME.zip`` training models
stay in the repository), so ``CheckpointAgent.load("heisse_luft_v0")`` and the agent spec
``heisse_luft_v0`` work from any folder, installed from a wheel or editable. A path that exists
wins over a shipped name.

Earlier shipped policies stay loadable by name too, so a comparison against them can be repeated:
``checkpoints/earlier/NAME_YYYY_MM_DD.npz`` + ``.json`` is the policy ``NAME`` as shipped on that
date (:func:`earlier_names`, e.g. ``heisse_karten_v0_2026_11_30``), a later one of
the same date with its time of day too (``NAME_YYYY_MM_DD_HHMM``, UTC); the opponent suite
(docs/evaluation.md) plays them.
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
    return sorted(
        file.stem for file in SHIPPED.glob("*.json") if file.with_suffix(".npz").is_file()
    )


def earlier_names() -> list[str]:
    """The names of earlier shipped policies, by date: ``heisse_karten_v0_2026_11_30`` …"""
    return sorted(
        file.stem for file in EARLIER.glob("*.json") if file.with_suffix(".npz").is_file()
    )


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

"""Argument types and the training backend choice, shared by the ``hot-envs`` command line
(:mod:`hot_envs.cli`) and the training script's (:mod:`hot_envs.training.settings`,
:mod:`hot_envs.training.train`), so that neither imports the other; and the seam through which
the command line reaches training (:func:`training_entry`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from importlib.metadata import distributions, entry_points
from typing import Any


def int_at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an int ≥ ``low``. argparse names the option in the error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an int, not {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, not {value}")
        return value

    parse.__name__ = f"int ≥ {low}"
    return parse


non_negative_int = int_at_least(0)  # seeds
positive_int = int_at_least(1)  # counts


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
    return value


# hot-envs train --backend NAME: the extra each backend of this package needs; its main(argv) is
# the training entry point of that name (training_entry).
BACKENDS = {"sb3": "train", "rllib": "rllib", "openspiel": "train,openspiel"}

# The one seam between the library and its training: the training package names what
# `hot-envs train` and `hot-envs exploit` run as entry points of this group (pyproject.toml's
# [project.entry-points."hot_envs.trainers"]: sb3, rllib, openspiel, exploit), and the command
# line finds them by name, so that no module of the library names a module of training. Another
# installed package may add a backend to the group: `hot-envs train --backend NAME` runs its
# main(argv).
TRAINING_ENTRY_POINTS = "hot_envs.trainers"


def training_entry(name: str) -> Any:
    """What the training package registered as ``name`` in :data:`TRAINING_ENTRY_POINTS`, or
    else another installed package, imported. ``ImportError`` where it cannot be imported (its
    extra is missing) or no package has such an entry point (reinstall: ``pip install -e .``)."""
    # Every copy of the package's metadata on the path, not only the first: a source checkout
    # may hold an older one (a build's hot_envs.egg-info) ahead of the installed one.
    for distribution in distributions(name="hot_envs"):
        for entry in distribution.entry_points.select(group=TRAINING_ENTRY_POINTS, name=name):
            return entry.load()
    for entry in entry_points(group=TRAINING_ENTRY_POINTS, name=name):
        return entry.load()
    raise ImportError(
        f"no {TRAINING_ENTRY_POINTS} entry point {name!r} in the installed hot_envs"
        " (reinstall it: pip install -e .)"
    )


def backends() -> list[str]:
    """The names ``--backend`` takes: this package's (:data:`BACKENDS`), then those other
    installed packages add to :data:`TRAINING_ENTRY_POINTS` (every name there but ``exploit``)."""
    added = sorted({entry.name for entry in entry_points(group=TRAINING_ENTRY_POINTS)})
    return [*BACKENDS, *(name for name in added if name not in {*BACKENDS, "exploit"})]


def split_backend(argv: Sequence[str]) -> tuple[str, list[str]]:
    """``--backend NAME`` taken out of training arguments (default ``sb3``), and the rest, which
    are that backend's own."""
    parser = argparse.ArgumentParser(prog="hot-envs train", add_help=False, allow_abbrev=False)
    parser.add_argument("--backend", choices=backends(), default="sb3")
    known, rest = parser.parse_known_args(list(argv))
    return known.backend, rest

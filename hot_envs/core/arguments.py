"""Argument types and the training backend choice, shared by the ``hot-envs`` command line
(:mod:`hot_envs.cli`) and the training script's (:mod:`hot_envs.training.settings`,
:mod:`hot_envs.training.train`), so that neither imports the other."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence


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


# hot-envs train --backend NAME: the module whose main(argv) trains, and the extra it needs.
BACKENDS = {
    "sb3": ("hot_envs.training.train", "train"),
    "rllib": ("hot_envs.training.rllib_train", "rllib"),
}


def split_backend(argv: Sequence[str]) -> tuple[str, list[str]]:
    """``--backend NAME`` taken out of training arguments (default ``sb3``), and the rest, which
    are that backend's own."""
    parser = argparse.ArgumentParser(prog="hot-envs train", add_help=False, allow_abbrev=False)
    parser.add_argument("--backend", choices=list(BACKENDS), default="sb3")
    known, rest = parser.parse_known_args(list(argv))
    return known.backend, rest

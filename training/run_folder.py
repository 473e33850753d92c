"""What the run folders of both training backends share (SB3's: :mod:`hot_envs.training.run_state`;
RLlib's: :mod:`hot_envs.training.rllib_runs`): the file that marks where a run stands, written
whole or not at all, and the stop that a signal asks for.

Both keep ``run_state.json`` (:data:`STATE_FILE`), written through :func:`write_atomically`, and
end a run that SIGINT (Ctrl-C) or SIGTERM stopped with :class:`Interrupted`, exit code
``128 + signal`` (130, 143). Nothing here needs torch, stable-baselines3 or Ray.
"""

from __future__ import annotations

import signal
from pathlib import Path

from hot_envs.agents.checkpoint import atomic_file

STATE_FILE = "run_state.json"


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``exit_code`` is ``128 + signal`` (130 or 143).

    A ``KeyboardInterrupt``, so Ray and Tune pass it on as they pass on Ctrl-C (an ``Exception``
    raised in Ray's signal check comes out wrapped in a ``SystemError``)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)  # the only argument: copies rebuild it from args
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        self.saved = False  # set by whoever saved the run after it

    def __str__(self) -> str:
        return signal.Signals(self.signum).name


def write_atomically(path: str | Path, text: str) -> None:
    """``path`` gets ``text`` whole or keeps what it had (written beside it, flushed, renamed:
    :func:`hot_envs.agents.checkpoint.atomic_file`)."""
    with atomic_file(path) as file:
        file.write(text.encode())

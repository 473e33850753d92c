"""The callbacks that shape ``learn`` in :mod:`hot_envs.training.train` beyond the league, the
evaluations and the run checkpoints: the time limit, its progress bar, torch's threads during
the PPO update, and the learning rate's schedule. (numpy's BLAS threads for the whole run:
:mod:`hot_envs.core.blas`.)"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import torch
from stable_baselines3.common.callbacks import BaseCallback


class TimeLimit(BaseCallback):
    """Ends ``learn`` once ``seconds`` have passed since it started (0: never), so a run fits a
    sitting; the final evaluation and checkpoints follow as after the last step."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds, self.deadline = seconds, float("inf")

    def _on_training_start(self) -> None:
        if self.seconds > 0:
            self.deadline = time.perf_counter() + self.seconds

    def _on_step(self) -> bool:
        return time.perf_counter() < self.deadline


class TimeBudgetBar(BaseCallback):
    """The progress bar of a run with a time limit, in shares of its budget: it fills with the
    time learnt, or with the steps where they would end learning sooner (the step bound), so its
    total and its ETA are those of the run; it shows the steps and the seconds against their
    bounds. SB3's own bar counts towards the step bound, which a time-limited run (a config's
    ``timesteps`` is an upper bound there) does not reach."""

    REFRESH = 0.5  # seconds between updates

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.bar: Any = None

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        self.started = self.shown = time.perf_counter()
        self.first_step = self.model.num_timesteps
        self.steps = max(self.locals["total_timesteps"] - self.first_step, 1)
        self.bar = tqdm(
            total=round(self.seconds),
            desc="learning",
            unit="s",  # of the budget; the postfix shows the steps and seconds themselves
            bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]",
        )

    def _on_step(self) -> bool:
        if time.perf_counter() - self.shown >= self.REFRESH:
            self.show()
        return True

    def _on_rollout_start(self) -> None:  # after each PPO update
        self.show()

    def show(self) -> None:
        self.shown = now = time.perf_counter()
        steps = self.model.num_timesteps - self.first_step
        done = min(max((now - self.started) / self.seconds, steps / self.steps), 1.0)
        self.bar.update(done * self.bar.total - self.bar.n)
        self.bar.set_postfix_str(
            f"{steps:,}/{self.steps:,} steps, {now - self.started:.0f}/{self.seconds:.0f} s",
            refresh=False,
        )

    def _on_training_end(self) -> None:
        self.show()
        self.bar.close()


def progress_callbacks(progress_bar: bool, time_limit: float) -> tuple[bool, list[BaseCallback]]:
    """SB3's ``progress_bar`` flag and the callbacks that end learning and show its progress:
    with a time limit, the bar counts seconds of it (:class:`TimeBudgetBar`)."""
    if time_limit <= 0:
        return progress_bar, [TimeLimit(0)]
    return False, [TimeLimit(time_limit), *([TimeBudgetBar(time_limit)] if progress_bar else [])]


class UpdateThreads(BaseCallback):
    """``threads`` torch threads while the PPO update runs, ``rollout_threads`` while the
    rollouts are collected — the env workers wait during the update, so their cores are free."""

    def __init__(self, threads: int, rollout_threads: int) -> None:
        super().__init__()
        self.threads, self.rollout_threads = threads, rollout_threads

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(self.rollout_threads)

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.threads)

    def _on_training_end(self) -> None:
        torch.set_num_threads(self.rollout_threads)

    def _on_step(self) -> bool:
        return True


@dataclass(frozen=True)
class AnnealedLearningRate:
    """``[ppo] anneal_lr``: the learning rate falls linearly from ``start`` to 0 over the run's
    own steps, from ``first_step`` to ``target_step`` (CleanRL's ``anneal_lr``), as a schedule
    SB3 calls with its progress remaining. SB3 counts that progress over the model's lifetime
    steps (``1 − num_timesteps / target_step``); a run from a checkpoint starts at the
    checkpoint's steps, so the fraction is taken of the run's own. A continued run keeps the
    same three numbers, and with them the same rate at every step."""

    start: float
    first_step: int
    target_step: int

    def __call__(self, progress_remaining: float) -> float:
        step = (1.0 - progress_remaining) * self.target_step
        done = (step - self.first_step) / max(self.target_step - self.first_step, 1)
        return self.start * min(max(1.0 - done, 0.0), 1.0)

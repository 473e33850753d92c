"""``[ppo] anneal_lr``: the learning rate falls linearly to 0 over a run's own steps
(:class:`~hot_envs.training.callbacks.AnnealedLearningRate`; tiny runs with it, from a
checkpoint and continued after stops, are in ``test_train.py`` and ``test_fault_tolerance.py``)."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("sb3_contrib")

from hot_envs.training.callbacks import AnnealedLearningRate  # noqa: E402
from hot_envs.training.settings import parse_args  # noqa: E402


def at_step(schedule: AnnealedLearningRate, step: int) -> float:
    """The rate SB3 asks for once the model has ``step`` lifetime steps, learning to the
    schedule's target (its progress remaining: ``1 − step / target``)."""
    return schedule(1.0 - step / schedule.target_step)


def test_the_rate_falls_linearly_over_the_runs_own_steps():
    schedule = AnnealedLearningRate(1e-3, first_step=1_000, target_step=3_000)
    assert at_step(schedule, 1_000) == pytest.approx(1e-3)
    assert at_step(schedule, 1_500) == pytest.approx(7.5e-4)
    assert at_step(schedule, 2_000) == pytest.approx(5e-4)
    assert at_step(schedule, 3_000) == pytest.approx(0.0, abs=1e-12)
    # Outside the run's steps it stays within [0, start].
    assert at_step(schedule, 0) == pytest.approx(1e-3) and schedule(-0.5) == 0.0


def test_a_fresh_run_anneals_as_sb3s_linear_schedule_would():
    schedule = AnnealedLearningRate(3e-4, first_step=0, target_step=4_096)
    for progress in (1.0, 0.75, 0.5, 0.125, 0.0):
        assert schedule(progress) == pytest.approx(3e-4 * progress, abs=1e-15)


def test_the_schedule_pickles_with_its_numbers():
    """SB3 saves the schedule in a model's .zip; a loaded copy falls the same way."""
    schedule = AnnealedLearningRate(1e-3, 10, 20)
    copy = pickle.loads(pickle.dumps(schedule))
    assert copy == schedule and copy(0.25) == schedule(0.25)


def test_the_setting_is_read_and_checked(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[ppo]\nanneal_lr = true\n")
    assert parse_args(["heisse-luft", "--config", str(config)]).anneal_lr is True
    assert parse_args(["heisse-luft"]).anneal_lr is False  # the main job's rate is constant
    config.write_text('[ppo]\nanneal_lr = "yes"\n')
    with pytest.raises(ValueError, match="anneal_lr must be of type bool"):
        parse_args(["heisse-luft", "--config", str(config)])

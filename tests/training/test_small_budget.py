"""A run on a small budget says what it does: the critic's warm-up takes at most a share of a
run that ``--timesteps`` shortens, the progress bar names its units, and the league logs ε only
where a curriculum moves it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.logger import Logger  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from hot_envs.envs.single_agent import Opponent  # noqa: E402
from hot_envs.envs.vector_sb3 import SB3VectorEnv  # noqa: E402
from hot_envs.training.callbacks import TimeBudgetBar  # noqa: E402
from hot_envs.training.league import FixedOpponent, League, LeagueCallback  # noqa: E402
from hot_envs.training.settings import CONFIGS, WARMUP_SHARE, parse_args  # noqa: E402


def test_a_shortened_run_caps_the_critics_warm_up_and_says_so(capsys):
    args = parse_args(["heisse-karten", "--timesteps", "20000"])
    assert args.critic_warmup == int(WARMUP_SHARE * 20000) < 16_384
    assert "critic_warmup: 5000 steps, not the config's 16384" in capsys.readouterr().out
    assert parse_args(["heisse-karten"]).critic_warmup == 16_384  # the config's own run
    assert parse_args(["heisse-karten", "--timesteps", "10000000"]).critic_warmup == 16_384
    fit = str(CONFIGS / "heisse_karten_critic_fit.toml")  # a warm-up of the whole run stays
    assert parse_args(["heisse-karten", "--config", fit, "--timesteps", "20000"]).critic_warmup == (
        50_000_000
    )


def test_the_progress_bar_counts_steps_as_steps_and_seconds_as_seconds():
    bar = TimeBudgetBar(300)
    bar.model = SimpleNamespace(num_timesteps=0)
    bar.locals = {"total_timesteps": 20_000}
    bar._on_training_start()
    bar.model.num_timesteps = 5_000
    bar.show()
    text = str(bar.bar)
    bar.bar.close()
    assert " 25%" in text and "5,000/20,000 steps" in text and "/300 s" in text
    assert "/300 s," not in text.split("steps")[0]  # no step count read as seconds


class Recording(Logger):
    def __init__(self) -> None:
        super().__init__(None, [])
        self.keys: set[str] = set()

    def record(self, key, value, exclude=None) -> None:
        self.keys.add(key)
        super().record(key, value, exclude)


@pytest.mark.parametrize("curriculum", [False, True])
def test_the_league_logs_epsilon_only_with_a_curriculum(curriculum):
    league = League(
        "heisse-luft", [FixedOpponent("random"), FixedOpponent("heuristic", 1.0, curriculum)]
    )
    entries = [Opponent(*entry) for entry in league.initial_entries()]
    envs = VecMonitor(SB3VectorEnv(game="heisse-luft", num_envs=4, opponents=entries))
    model = MaskablePPO("MlpPolicy", envs, n_steps=8, batch_size=32, n_epochs=1, seed=0)
    logger = Recording()
    model.set_logger(logger)
    model.learn(32, callback=LeagueCallback(league, snapshot_every=10**6, window=10))
    assert ("league/epsilon" in logger.keys) is curriculum

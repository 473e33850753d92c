"""``hot-envs train GAME --backend rllib`` runs the RLlib script, and refuses bad options before
Ray starts. (That ``import hot_envs``, its CLI and the script import no Ray:
``tests/test_layers.py``.)"""

from __future__ import annotations

import sys

import pytest

from hot_envs.cli import main as cli
from tests.rllib.conftest import needs_ray

pytestmark = needs_ray


def test_train_backend_rllib_is_the_rllib_script(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli(["train", "heisse-luft", "--backend", "rllib", "-h"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--env-runners" in out and "--address" in out
    assert out.startswith("usage: hot-envs train --backend rllib ")


def test_bad_rllib_options_are_clear_errors_before_ray_starts(capsys) -> None:
    assert cli(["train", "heisse-karten", "--backend", "rllib", "--players", "9"]) == 2
    assert "9" in capsys.readouterr().err
    assert cli(["train", "heisse-luft", "--backend=rllib", "--fixed", "heuristic"]) == 2
    assert "--mode league" in capsys.readouterr().err
    league = ["train", "heisse-karten", "--backend", "rllib", "--mode", "league"]
    assert cli([*league, "--fixed", "heuristic", "--fixed-share", "1.5"]) == 2
    assert "--fixed-share must be within [0, 1]" in capsys.readouterr().err
    assert cli([*league, "--max-snapshots", "0"]) == 2
    assert "--max-snapshots must be ≥ 1" in capsys.readouterr().err
    assert "ray" not in sys.modules or not sys.modules["ray"].is_initialized()


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli(["train", "heisse-luft", "--backend", "tf"])
    assert exit_info.value.code == 2

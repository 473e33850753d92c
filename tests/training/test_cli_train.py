"""``hot-envs train`` hands everything after ``train`` to the training script."""

import pytest

from hot_envs.cli import main

pytest.importorskip("sb3_contrib")


def test_train_help_is_the_training_scripts(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "-h"])
    assert exit_info.value.code == 0
    assert "--timesteps" in capsys.readouterr().out


def test_train_with_an_unknown_game_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err

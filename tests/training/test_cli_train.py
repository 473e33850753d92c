"""``hot-envs train`` hands everything after ``train`` to the training script."""

import pytest

from hot_envs.cli import main

pytest.importorskip("sb3_contrib")


def test_train_help_is_the_training_scripts(capsys: pytest.CaptureFixture[str]) -> None:
    """The help names the command as it is typed, shows --backend, and explains each option."""
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "-h"])
    assert exit_info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("usage: hot-envs train ") and "--backend {sb3,rllib}" in out
    for option in ("--timesteps TIMESTEPS environment steps", "--seed SEED seed of the run"):
        assert option in out
    for option in ("--out OUT run folder", "--n-envs N_ENVS env workers", "--no-progress no"):
        assert option in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--timesteps", "-5"], "argument --timesteps: must be 1 or more, not -5"),
        (["--timesteps", "0"], "argument --timesteps: must be 1 or more, not 0"),
        (["--seed", "-1"], "argument --seed: must be 0 or more"),
        (["--n-envs", "0"], "argument --n-envs: must be 1 or more"),
    ],
)
def test_train_refuses_numbers_out_of_range_before_training(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "heisse-luft", "--out", str(tmp_path / "run"), *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # nothing trained, nothing written


def test_train_with_an_unknown_game_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_an_error_while_training_keeps_its_traceback(monkeypatch, tmp_path) -> None:
    """A crash in the run itself (say NaN logits an hour in) is not a usage error: it reaches the
    caller with its traceback instead of one line."""
    import hot_envs.training.train as train

    def crash(args, stop):
        raise ValueError("Expected parameter logits to satisfy the constraint (nan)")

    monkeypatch.setattr(train, "run", crash)
    with pytest.raises(ValueError, match="nan") as error:
        main(["train", "heisse-luft", "--out", str(tmp_path / "run"), "--timesteps", "64"])
    assert error.traceback[-1].name == "crash"  # raised where it happened, not re-raised


def test_the_training_script_takes_both_backends(monkeypatch) -> None:
    """``--backend`` offers sb3 and rllib, and the script itself hands rllib on, as the command
    line does."""
    import hot_envs.training.rllib_train as rllib_train
    import hot_envs.training.train as train

    seen = []
    monkeypatch.setattr(rllib_train, "main", lambda argv: seen.append(argv) or 0)
    assert train.main(["heisse-luft", "--backend", "rllib", "--iterations", "1"]) == 0
    assert seen == [["heisse-luft", "--iterations", "1"]]
    with pytest.raises(SystemExit):
        train.parse_args(["heisse-luft", "--backend", "tf"])

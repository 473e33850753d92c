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
    assert out.startswith("usage: hot-envs train ") and "--backend {sb3,rllib,openspiel}" in out
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


def test_a_time_limited_run_shows_its_time_budget(monkeypatch) -> None:
    """The main job's config bounds the steps at 5,000,000 but stops after 300 s: the bar counts
    seconds of that budget (total and ETA the run's), or the steps where they end it sooner."""
    from types import SimpleNamespace

    import hot_envs.training.train as train
    from hot_envs.training.callbacks import TimeLimit

    assert train.progress_callbacks(True, 0)[0] is True  # no limit: SB3's bar over the steps
    assert not [c for c in train.progress_callbacks(False, 300)[1] if hasattr(c, "bar")]
    sb3_bar, callbacks = train.progress_callbacks(True, 300)
    assert sb3_bar is False
    assert [c.seconds for c in callbacks if isinstance(c, TimeLimit)] == [300]
    clock = [1000.0]
    monkeypatch.setattr(train.time, "perf_counter", lambda: clock[0])
    for total_steps, steps, shown in [(5_000_000, 40_000, 150), (60_000, 40_000, 200)]:
        bar = next(c for c in train.progress_callbacks(True, 300)[1] if hasattr(c, "bar"))
        model = SimpleNamespace(num_timesteps=1_000, get_env=lambda: None, logger=None)
        bar.init_callback(model)
        bar.on_training_start({"total_timesteps": 1_000 + total_steps}, {})
        assert bar.bar.total == 300 and bar.bar.unit == "s"
        clock[0] += 150  # half the time
        model.num_timesteps += steps
        assert bar.on_step()
        assert bar.bar.n == pytest.approx(shown)  # time, or the larger share of the steps
        bar.on_training_end()

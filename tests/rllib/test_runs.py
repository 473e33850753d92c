"""The pieces of a fault-tolerant RLlib run that need no Ray: the atomic checkpoint swap and
what a resume reads, the progress log cut back to a checkpoint, signals turned into a clean
stop, ``--resume RUN_DIR`` arguments, and the fault-tolerance settings of the config."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import asdict
from pathlib import Path

import pytest

from hot_envs.training.rllib_runs import (
    CHECKPOINT,
    PARTIAL,
    PREVIOUS,
    Interrupted,
    StopOnSignal,
    latest_checkpoint,
    read_run_state,
    save_checkpoint,
    trim_progress,
)
from hot_envs.training.rllib_train import parse_args, progress_row
from tests.rllib.conftest import needs_ray

pytestmark = [needs_ray, pytest.mark.rllib]


def writer(content: str, fail: bool = False):
    """A stand-in for ``algorithm.save_to_path``: one file, or half a folder and a crash."""

    def save(folder: Path) -> None:
        folder.mkdir(parents=True)
        (folder / "weights").write_text(content)
        if fail:
            raise OSError("disk full")

    return save


def test_a_checkpoint_replaces_the_previous_one_only_when_complete(tmp_path) -> None:
    assert latest_checkpoint(tmp_path) is None
    first = save_checkpoint(writer("1"), tmp_path, {"iteration": 1})
    assert first == tmp_path / CHECKPOINT and read_run_state(first) == {"iteration": 1}
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(writer("2", fail=True), tmp_path, {"iteration": 2})
    # The crash left a partial folder beside it; a resume still reads the complete one.
    assert (tmp_path / PARTIAL / "weights").read_text() == "2"
    assert latest_checkpoint(tmp_path) == first and (first / "weights").read_text() == "1"
    second = save_checkpoint(writer("3"), tmp_path, {"iteration": 3})
    assert (second / "weights").read_text() == "3" and read_run_state(second)["iteration"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == [CHECKPOINT]


def test_a_crash_mid_swap_leaves_the_previous_checkpoint_to_resume_from(tmp_path) -> None:
    save_checkpoint(writer("1"), tmp_path, {"iteration": 1})
    # The moment between the two renames: the old one moved aside, the new one not yet in place
    # (a complete partial folder is still not what a resume reads).
    complete = save_checkpoint(writer("2"), tmp_path / "elsewhere", {"iteration": 2})
    os.replace(tmp_path / CHECKPOINT, tmp_path / PREVIOUS)
    os.replace(complete, tmp_path / PARTIAL)
    assert latest_checkpoint(tmp_path) == tmp_path / PREVIOUS
    assert read_run_state(latest_checkpoint(tmp_path))["iteration"] == 1
    # The next save keeps the previous one until its own is complete, then tidies up.
    save_checkpoint(writer("3"), tmp_path, {"iteration": 3})
    assert read_run_state(latest_checkpoint(tmp_path))["iteration"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", CHECKPOINT]


def test_the_progress_log_is_cut_back_to_the_checkpoint(tmp_path) -> None:
    log = tmp_path / "progress.jsonl"
    log.write_text(
        "".join(json.dumps({"iteration": i, "env_steps": 400 * i}) + "\n" for i in (1, 2, 3))
    )
    assert trim_progress(log, 2) == {"iteration": 2, "env_steps": 800}
    assert [json.loads(line)["iteration"] for line in log.read_text().splitlines()] == [1, 2]
    assert trim_progress(tmp_path / "none.jsonl", 5) is None


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_raises_interrupted_with_its_exit_code(signum, code) -> None:
    before = signal.getsignal(signum)
    with pytest.raises(Interrupted) as caught, StopOnSignal() as signals:
        os.kill(os.getpid(), signum)
    assert caught.value.exit_code == code and signals.received == signum
    assert signal.getsignal(signum) is before
    # Ray may hand back a plain KeyboardInterrupt: the signal received still decides.
    assert signals.interrupted(KeyboardInterrupt()).exit_code == code


def test_held_signals_are_recorded_not_raised_and_nested_stops_share_them() -> None:
    with StopOnSignal() as outer:
        with StopOnSignal() as inner:
            with pytest.raises(Interrupted):
                os.kill(os.getpid(), signal.SIGTERM)
            assert inner.received == outer.received == signal.SIGTERM
        outer.hold()
        os.kill(os.getpid(), signal.SIGINT)  # while Ray shuts down: no exception
    assert outer.received == signal.SIGTERM  # the first one counts


TINY = ["--batch-size", "400", "--minibatch-size", "200", "--hidden", "64", "64"]


@pytest.fixture
def run_dir(tmp_path) -> Path:
    """A run directory as a run leaves it: its args and a complete (stand-in) checkpoint."""
    args = parse_args(["heisse-luft", *TINY, "--iterations", "4", "--seed", "7"])
    (tmp_path / "args.json").write_text(json.dumps(asdict(args)))
    save_checkpoint(writer("1"), tmp_path, {"iteration": 2})
    return tmp_path


def test_resume_takes_the_runs_settings_and_a_new_total(run_dir) -> None:
    args = parse_args(["heisse-luft", "--resume", str(run_dir), "--iterations", "9"])
    assert (args.iterations, args.seed, args.hidden, args.batch_size) == (9, 7, [64, 64], 400)
    assert args.out == args.resume == str(run_dir.resolve())
    same = parse_args(["heisse-luft", "--resume", str(run_dir / CHECKPOINT), "--seed", "7"])
    assert same.out == str(run_dir.resolve()) and same.iterations == 4


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seed", "8"], "--seed cannot change"),
        (["--hidden", "32"], "--hidden cannot change"),
        (["--out", "/elsewhere"], "leave out --out"),
    ],
)
def test_resume_refuses_to_change_what_shapes_the_learning(run_dir, extra, message) -> None:
    with pytest.raises(ValueError, match=message):
        parse_args(["heisse-luft", "--resume", str(run_dir), *extra])


def test_resume_needs_a_run_of_this_game_with_a_complete_checkpoint(run_dir, tmp_path) -> None:
    with pytest.raises(ValueError, match="heisse-luft run, not heisse-karten"):
        parse_args(["heisse-karten", "--resume", str(run_dir)])
    with pytest.raises(ValueError, match="no args.json"):
        parse_args(["heisse-luft", "--resume", str(tmp_path / "nothing")])
    os.replace(run_dir / CHECKPOINT, run_dir / PARTIAL)
    with pytest.raises(ValueError, match="no complete checkpoint"):
        parse_args(["heisse-luft", "--resume", str(run_dir)])


def test_checkpoint_every_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="--checkpoint-every must be ≥ 0"):
        parse_args(["heisse-luft", "--checkpoint-every", "-1"])
    assert parse_args(["heisse-luft", "--checkpoint-every", "0"]).checkpoint_every == 0


def test_the_config_restarts_failed_env_runners() -> None:
    from hot_envs.training.rllib_train import build_config

    config = build_config(parse_args(["heisse-luft", *TINY]))
    assert config.restart_failed_env_runners and config.max_num_env_runner_restarts == 1000
    assert config.delay_between_env_runner_restarts_s == 10.0


class FakeRunners:
    """An env-runner group whose one runner is down until ``restore_env_runners`` has been
    called ``down_for`` times (Ray restarting it meanwhile)."""

    def __init__(self, down_for: int) -> None:
        self.down_for = down_for
        self.env_runner_group = self

    def num_remote_env_runners(self) -> int:
        return 1

    def num_healthy_remote_workers(self) -> int:
        return int(self.down_for <= 0)

    def restore_env_runners(self, group: FakeRunners) -> list[int]:
        self.down_for -= 1
        return [1] if self.down_for <= 0 else []


def test_with_every_runner_down_the_run_waits_for_one_to_come_back() -> None:
    from hot_envs.training.rllib_runs import wait_for_env_runners

    algorithm = FakeRunners(down_for=3)
    assert wait_for_env_runners(algorithm, poll_s=0.0) == 1 and algorithm.down_for == 0
    with pytest.raises(TimeoutError, match="no env runner came back"):
        wait_for_env_runners(FakeRunners(down_for=10**9), timeout_s=0.05, poll_s=0.01)


def test_an_iteration_without_episode_metrics_is_a_row_of_none_and_zeros() -> None:
    """RLlib reports NaN for what it logged nothing of in an iteration (so in the first one
    after a resume): a row, not a crash."""
    nan = float("nan")
    runners = {"num_env_steps_sampled_lifetime": 1605.0, "num_episodes": nan}
    runners |= {"main_return": nan, "illegal_actions": nan, "illegal_actions_lifetime": 0.0}
    row = progress_row({"training_iteration": 4, "env_runners": runners}, 2.0)
    assert row["env_steps"] == 1605 and row["episodes"] == 0 and row["illegal_actions"] == 0
    assert row["main_return"] is None and row["illegal_actions_lifetime"] == 0
    runners |= {"num_episodes": 5.0, "main_return": 0.5, "illegal_actions": 0.0}
    row = progress_row({"training_iteration": 5, "env_runners": runners}, 2.0)
    assert row["episodes"] == 5 and row["main_return"] == 0.5
    json.dumps(row, allow_nan=False)  # progress.jsonl stays plain JSON

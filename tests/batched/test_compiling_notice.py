"""The line that says the kernels compile: on stderr once, and only while numba's disk cache
lacks them (a first run after install), never on a run that loads them; and the groups of
kernels that then compile side by side, each in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hot_envs.batched import jit
from hot_envs.batched.streams import below, shuffle
from hot_envs.core.games import GAMES

REPOSITORY = Path(__file__).resolve().parents[2]  # where the processes import tests.batched from

RUN = """if True:
    from hot_envs.evaluation.arena import play_match
    play_match("heisse-karten", ["heuristic", "random", "low-dumper"], 12, workers=2)
"""  # two workers forked after the arena's kernels, each compiling the style's: one line
GROUPS = """if True:
    from numba.core import event
    from hot_envs.batched import jit
    groups = [("tests.batched.test_compiling_notice:draw",),
              ("tests.batched.test_compiling_notice:shuffled", 3)]
    with event.install_recorder("numba:compile") as compiles:
        jit.compile_groups(groups)
    print(*sorted({e.data["dispatcher"].py_func.__name__ for _, e in compiles.buffer}))
"""


def draw() -> None:
    """A group of one kernel (:data:`GROUPS`)."""
    below(np.ones((1, 2), dtype=np.int64), 0, 3)


def shuffled(count: int) -> None:
    """A group of one kernel, calling the other (:data:`GROUPS`)."""
    shuffle(np.ones((1, 2), dtype=np.int64), 0, np.arange(count), count)


def run(code: str, cache: os.PathLike) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh Python process with numba's disk cache in ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPOSITORY, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done


def test_each_game_has_an_estimate() -> None:
    assert all(game.compile_seconds > 0 for game in GAMES.values())


def test_the_line_comes_once_per_process(capsys: pytest.CaptureFixture[str]) -> None:
    jit.announce_compiling("a test's kernels", 3)
    jit.announce_compiling("a test's kernels", 3)
    assert capsys.readouterr().err == "compiling a test's kernels (once per install, about 3 s)…\n"


@pytest.mark.slow
@pytest.mark.skipif(not jit.COMPILED, reason="nothing compiles without numba's compiler")
def test_a_cold_cache_announces_and_a_warm_one_does_not(tmp_path) -> None:
    cold, cached = run(RUN, tmp_path).stderr, run(RUN, tmp_path).stderr
    assert cold.count("compiling Heiße Karten's kernels (once per install") == 1
    assert "compiling" not in cached


@pytest.mark.slow
@pytest.mark.skipif(not jit.COMPILED, reason="nothing compiles without numba's compiler")
def test_on_a_cold_cache_the_later_groups_compile_in_processes_of_their_own(tmp_path) -> None:
    # cold: the first group compiles here, the second in its own process, here only loaded
    assert run(GROUPS, tmp_path).stdout.split() == ["below"]
    assert run(GROUPS, tmp_path).stdout.split() == []  # warm: both load

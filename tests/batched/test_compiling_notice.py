"""The line that says the kernels compile: on stderr once, and only while numba's disk cache
lacks them (a first run after install), never on a run that loads them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hot_envs.batched import heisse_karten, heisse_luft, jit
from hot_envs.core.games import GAMES

RUN = """if True:
    from hot_envs.evaluation.arena import play_match
    play_match("heisse-karten", ["heuristic", "random"], 2, workers=1)
"""


def test_each_game_has_an_estimate() -> None:
    assert all(game.compile_seconds > 0 for game in GAMES.values())
    assert isinstance(heisse_luft.compiled(), bool)
    assert isinstance(heisse_karten.compiled(), bool)


def test_the_line_comes_once_per_process(capsys: pytest.CaptureFixture[str]) -> None:
    jit.announce_compiling("a test's kernels", 3)
    jit.announce_compiling("a test's kernels", 3)
    assert capsys.readouterr().err == "compiling a test's kernels (once per install, about 3 s)…\n"


@pytest.mark.slow
@pytest.mark.skipif(not jit.COMPILED, reason="nothing compiles without numba's compiler")
def test_a_cold_cache_announces_and_a_warm_one_does_not(tmp_path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def stderr() -> str:
        command = [sys.executable, "-c", RUN]
        return subprocess.run(command, env=env, capture_output=True, text=True, check=True).stderr

    cold, cached = stderr(), stderr()
    assert cold.count("compiling Heiße Karten's kernels (once per install") == 1
    assert "compiling" not in cached

"""docs/openspiel.md's learning example (OpenSpiel's PyTorch DQN on Heiße Karten) runs, small:
the documentation test skips it for its minutes of training."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # a fresh interpreter loads torch and OpenSpiel and trains: 3-4 s
def test_the_dqn_example_trains_and_reports() -> None:
    text = (REPOSITORY / "docs" / "openspiel.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(# train_dqn\.py.*?)```", text, re.S).group(1)
    small = code.replace("EPISODES = 3000", "EPISODES = 30").replace(
        "EVALUATION = 1000", "EVALUATION = 6"
    )
    assert small != code and "EPISODES = 30 " in small
    # learning starts once 500 transitions are stored: 30 games of 24 decisions store 720
    small += "\nassert learner.loss is not None, 'the network never learned'\n"
    result = subprocess.run(
        [sys.executable, "-c", small], capture_output=True, text=True, cwd=REPOSITORY, timeout=300
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert re.search(
        r"wins against random: [\d.]+% untrained, [\d.]+% after 30 games", result.stdout
    )

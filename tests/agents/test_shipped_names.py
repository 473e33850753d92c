"""Shipped checkpoints load by name from any folder (a path still works, a local path wins), and
``module:factory`` agents import from the current folder, as docs/agents.md says."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from hot_envs.agents import SPEC_HELP, make_agent
from hot_envs.agents.checkpoint import CheckpointAgent, read_metadata
from hot_envs.agents.shipped import SHIPPED, find_checkpoint, shipped_names
from hot_envs.cli import main

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """An empty current folder outside the repository."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_package_ships_both_policies() -> None:
    assert shipped_names() == ["heisse_karten_v0", "heisse_luft_v0"]
    assert all((SHIPPED / f"{name}.npz").is_file() for name in shipped_names())
    assert "heisse_luft_v0" in SPEC_HELP


@pytest.mark.parametrize(
    ("name", "game"), [("heisse_luft_v0", "heisse-luft"), ("heisse_karten_v0", "heisse-karten")]
)
def test_load_by_name_from_an_empty_folder(elsewhere, name, game) -> None:
    agent = CheckpointAgent.load(name)
    assert agent.game == game
    assert read_metadata(f"{name}.json")["game"] == game
    assert isinstance(make_agent(name, game), CheckpointAgent)


def test_a_path_still_works_and_an_existing_one_wins_over_a_name(elsewhere) -> None:
    stem = REPOSITORY / "checkpoints" / "heisse_luft_v0"
    assert CheckpointAgent.load(stem).game == "heisse-luft"
    assert find_checkpoint(f"{stem}.npz") == stem
    for suffix in (".npz", ".json"):  # the Heiße Karten policy under the Heiße Luft name
        shutil.copyfile(
            SHIPPED / f"heisse_karten_v0{suffix}", elsewhere / f"heisse_luft_v0{suffix}"
        )
    assert find_checkpoint("heisse_luft_v0") == Path("heisse_luft_v0")
    assert CheckpointAgent.load("heisse_luft_v0").game == "heisse-karten"


@pytest.mark.parametrize(
    "missing", ["heisse_luft_v9", "checkpoints/heisse_luft_v0", "nowhere/x.npz"]
)
def test_a_missing_checkpoint_lists_the_shipped_names(elsewhere, missing) -> None:
    with pytest.raises(
        FileNotFoundError, match="not found.*shipped: heisse_karten_v0, heisse_luft_v0"
    ):
        CheckpointAgent.load(missing)


def test_evaluate_takes_a_shipped_name(elsewhere, capsys) -> None:
    argv = ["evaluate", "heisse-luft", "--agents", "heisse_luft_v0", "heuristic", "--games", "2"]
    assert main([*argv, "--workers", "1", "--quiet"]) == 0
    assert "heisse_luft_v0" in capsys.readouterr().out


def test_a_factory_imports_from_the_current_folder(elsewhere) -> None:
    (elsewhere / "my_local_agents.py").write_text(
        "from hot_envs.agents.random_agent import RandomAgent\n\n\n"
        "def make(seed=None):\n    return RandomAgent(seed)\n"
    )
    path = list(sys.path)
    try:
        sys.path[:] = [p for p in path if p not in ("", str(elsewhere))]  # as a console script
        agent = make_agent("my_local_agents:make", "heisse-luft", seed=1)
        assert type(agent).__name__ == "RandomAgent"
        assert (
            str(elsewhere) not in sys.path
        )  # the current folder was on the path for the import only
    finally:
        sys.path[:] = path
        sys.modules.pop("my_local_agents", None)

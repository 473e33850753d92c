"""The package's layers: what the library loads as a program goes on (no torch, no training code
to play a checkpoint, no Ray to import the library and its command line, Pillow only to draw a
picture), and no module imports another that imports it back, at the top or inside a function."""

from __future__ import annotations

import ast
import functools
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
# The source folders and the package each one ships as (pyproject.toml's package-dir).
FOLDERS = {"hot_envs": "hot_envs", "training": "hot_envs.training"}


# A user's program in a fresh interpreter, run once for the tests below: it writes the modules
# loaded after each stage, in order. It plays the shipped policies (action scorers) and an
# earlier one (an MLP) with numpy, then draws the table, then imports the command line and the
# RLlib script (hot-envs train --backend rllib).
PROGRAM = """if True:
    import importlib.util, json, sys
    loaded = {}

    def stage(name):
        loaded[name] = sorted(sys.modules)

    import hot_envs
    from hot_envs.agents.checkpoint import CheckpointAgent
    from hot_envs.agents.play import play_game
    from hot_envs.core.games import get_game

    for name in ("heisse_luft_v0", "heisse_karten_v0", "heisse_karten_v0_2026_12_01"):
        agent = CheckpointAgent.load(name)
        env = get_game(agent.game).env.env()
        played = []

        def count(who, observation, view, action):
            played.append(action)

        play_game(env, {a: agent for a in env.possible_agents}, seed=1, on_action=count)
        assert len(played) > 10, name
    stage("play")
    env = get_game("heisse-luft").env.env(render_mode="rgb_array")
    env.reset(seed=0)
    stage("reset to draw")
    if importlib.util.find_spec("PIL"):
        assert env.render().ndim == 3
        stage("draw")
    import hot_envs.cli, hot_envs.envs.single_agent, hot_envs.training.rllib_train
    stage("command line")
    print(json.dumps(loaded))
"""


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[str]]:
    """The modules :data:`PROGRAM` has loaded after each of its stages."""
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, cwd=REPOSITORY / "tests"
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _of(packages: tuple[str, ...], modules: list[str]) -> list[str]:
    """The modules of ``modules`` that are one of ``packages`` or in one."""
    return [m for m in modules for p in packages if m == p or m.startswith(p + ".")]


def test_playing_a_checkpoint_imports_no_torch_and_no_training_code(loaded) -> None:
    assert "hot_envs.agents.checkpoint" in loaded["play"]
    training = ("torch", "stable_baselines3", "sb3_contrib", "hot_envs.training")
    assert _of(training, loaded["play"]) == []


def test_pillow_loads_with_the_first_picture_only(loaded) -> None:
    assert _of(("PIL",), loaded["reset to draw"]) == []
    if "draw" in loaded:
        assert "PIL.Image" in loaded["draw"]


def test_the_library_its_command_line_and_the_rllib_script_import_no_ray_and_no_torch(
    loaded,
) -> None:
    assert "hot_envs.training.rllib_train" in loaded["command line"]
    assert _of(("ray", "torch"), loaded["command line"]) == []


def _module(path: Path) -> str:
    for folder, package in FOLDERS.items():
        if path.is_relative_to(REPOSITORY / folder):
            parts = path.relative_to(REPOSITORY / folder).with_suffix("").parts
            return ".".join([package, *parts]).removesuffix(".__init__")
    raise AssertionError(path)


# The game descriptions name the parts above the engine by dotted paths that are imported on first
# use (hot_envs.core.game_type.resolve), so that a game's folder imports nothing above its engine:
# the one place where a string naming a module is not an import (each resolves: a test below).
DESCRIPTIONS = {"hot_envs.heisse_luft.spec", "hot_envs.heisse_karten.spec"}
# A string that names a module, or an attribute of one ("package.module:name"): what importlib
# and entry points import.
_DOTTED = re.compile(r"^((?:hot_envs)(?:\.\w+)+)(?::[\w.]*)?$")


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` imports anywhere: at the top, in a function or
    under ``TYPE_CHECKING``, or names in a string for importlib. ``from package import name``
    counts as the submodule where ``name`` is one, else as the package (its ``__init__``)."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                ).strip(".")
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and module not in DESCRIPTIONS
            and (match := _DOTTED.match(node.value))
        ):
            found.add(match[1])
    return found & modules


@functools.cache  # read, never changed, by the tests here
def import_graph() -> dict[str, set[str]]:
    files = [
        path
        for folder in FOLDERS
        for path in (REPOSITORY / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    ]
    modules = {_module(path) for path in files}
    return {_module(path): _imports(path, modules) - {_module(path)} for path in files}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import loop among modules, packages' ``__init__`` included, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for other in sorted(graph.get(module, ())):
            if state.get(other) == 1:
                return [*path[path.index(other) :], other]
            if other not in state and (loop := visit(other)):
                return loop
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (loop := visit(module)):
            return loop
    return None


def test_no_import_loops() -> None:
    assert _cycle(import_graph()) is None


def test_no_module_imports_a_package_it_is_in() -> None:
    """Upward: a module reaches its own package's ``__init__`` (which hands on what the modules
    below it define) only by importing that module itself. (A package's ``__main__`` is the
    package run as a script: above it, not in it.)"""
    for module, imported in import_graph().items():
        if module.endswith(".__main__"):
            continue
        above = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}
        assert not imported & above, (module, imported & above)


def test_the_graph_sees_packages_and_importlib_strings() -> None:
    graph = import_graph()
    assert "hot_envs.agents.specs" in graph["hot_envs.agents"]  # an __init__ file's imports
    assert "hot_envs.agents" in graph["hot_envs.cli.commands"]  # from a package, a name
    assert "hot_envs.agents.styles_luft" not in graph["hot_envs.heisse_luft.spec"]


def test_each_dotted_path_of_the_game_descriptions_resolves() -> None:
    from hot_envs.core.game_type import resolve
    from hot_envs.core.games import GAMES

    for game in GAMES.values():
        entries = [
            value
            for value in vars(game).values()
            if isinstance(value, str) and _DOTTED.match(value)
        ]
        entries += [value for value in game.styles.values()]
        assert len(entries) > 5, game.name
        for entry in entries:
            if ":" in entry:
                assert resolve(entry) is not None, entry
            else:
                importlib.import_module(entry)


def test_the_loop_finder_finds_one() -> None:
    graph = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}
    assert _cycle(graph) == ["a.x", "a.y", "a.z", "a.x"]


def test_the_library_imports_no_training_code() -> None:
    graph = import_graph()
    for module, imported in graph.items():
        if not module.startswith("hot_envs.training"):
            assert not [m for m in imported if m.startswith("hot_envs.training")], module


def test_training_imports_no_command_line() -> None:
    graph = import_graph()
    for module, imported in graph.items():
        if module.startswith("hot_envs.training"):
            assert not [m for m in imported if m.split(".")[:2] == ["hot_envs", "cli"]], module


def test_the_library_reaches_training_through_its_entry_points_alone() -> None:
    """The seam (hot_envs.core.arguments.training_entry): pyproject.toml names what the command
    line runs, each backend and ``exploit``, and each name loads."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    from hot_envs.core.arguments import BACKENDS, TRAINING_ENTRY_POINTS, training_entry

    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    entries = project["project"]["entry-points"][TRAINING_ENTRY_POINTS]
    assert set(entries) == {*BACKENDS, "exploit"}
    for value in entries.values():
        assert value.startswith("hot_envs.training.")
    assert callable(training_entry("sb3"))
    assert callable(training_entry("exploit").exploit)

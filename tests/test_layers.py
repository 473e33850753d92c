"""The package's layers: the library loads and plays a checkpoint with numpy alone, and no module
imports another that imports it back, at the top or inside a function."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
# The source folders and the package each one ships as (pyproject.toml's package-dir).
FOLDERS = {"hot_envs": "hot_envs", "training": "hot_envs.training"}


def test_playing_a_checkpoint_imports_no_torch_and_no_training_code() -> None:
    code = """if True:
        import json, sys
        import hot_envs.agents
        from hot_envs.agents.checkpoint import CheckpointAgent
        from hot_envs.agents.play import play_game
        from hot_envs.core.games import get_game

        for name in ("heisse_luft_v0", "heisse_karten_v0"):
            agent = CheckpointAgent.load(name)
            env = get_game(agent.game).env.env()
            played = []

            def count(who, observation, view, action):
                played.append(action)

            play_game(env, {a: agent for a in env.possible_agents}, seed=1, on_action=count)
            assert len(played) > 10
        print(json.dumps(sorted(sys.modules)))
    """
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPOSITORY / "tests"
    )
    assert result.returncode == 0, result.stderr
    modules = json.loads(result.stdout)
    assert "hot_envs.agents.checkpoint" in modules
    for package in ("torch", "stable_baselines3", "sb3_contrib", "hot_envs.training"):
        assert not [m for m in modules if m == package or m.startswith(package + ".")], package


def _module(path: Path) -> str:
    for folder, package in FOLDERS.items():
        if path.is_relative_to(REPOSITORY / folder):
            parts = path.relative_to(REPOSITORY / folder).with_suffix("").parts
            return ".".join([package, *parts]).removesuffix(".__init__")
    raise AssertionError(path)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` imports anywhere: at the top, in a function or
    under ``TYPE_CHECKING`` (``from package import module`` counts as the module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
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
    """One import loop among modules (packages' __init__ aside: they only hand names on), or
    None."""
    graph = {m: {n for n in ns if not _is_package(n)} for m, ns in graph.items()}
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
        if module not in state and not _is_package(module) and (loop := visit(module)):
            return loop
    return None


def _is_package(module: str) -> bool:
    folder = REPOSITORY / module.replace("hot_envs.training", "training").replace(".", "/")
    return (folder / "__init__.py").is_file()


def test_no_import_loops() -> None:
    assert _cycle(import_graph()) is None


def test_the_loop_finder_finds_one() -> None:
    graph = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}
    assert _cycle(graph) == ["a.x", "a.y", "a.z", "a.x"]


def test_the_library_imports_no_training_code() -> None:
    graph = import_graph()
    for module, imported in graph.items():
        if not module.startswith("hot_envs.training"):
            # the command line starts training, by the module's name (importlib)
            assert not [m for m in imported if m.startswith("hot_envs.training")] or module in {
                "hot_envs.cli.commands"
            }, module


def test_training_imports_no_command_line() -> None:
    graph = import_graph()
    for module, imported in graph.items():
        if module.startswith("hot_envs.training"):
            assert not [m for m in imported if m.split(".")[:2] == ["hot_envs", "cli"]], module

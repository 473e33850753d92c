"""Each game is declared once, by its folder's ``spec.GAME``: the registry is built from the specs,
every entry point a spec names resolves, and no code outside a game's own modules spells the
game's name, so adding or changing a game touches its folder, not every cross-game module."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from hot_envs.core.game_type import Game, resolve
from hot_envs.core.games import GAMES

REPOSITORY = Path(__file__).resolve().parents[2]
NAME = re.compile(r"heisse[-_](luft|karten)", re.IGNORECASE)
ENTRIES = ("heuristic", "features", "feature_shape", "picture", "batched", "arrays")
ENTRIES += ("web_move", "web_event")

# Files that may still spell a game's name, each with its reason.
EXCEPTIONS = {
    # PettingZoo's ids, registered when ``import hot_envs`` runs, before any game module loads.
    "hot_envs/__init__.py",
    # OpenSpiel's registered names (python_heisse_luft, …) and each game's pyspiel declaration.
    "hot_envs/openspiel/games.py",
}


def _module_file(module: str) -> str:
    path = Path(importlib.import_module(module).__file__).resolve()
    return path.relative_to(REPOSITORY).as_posix()


def _own_files() -> set[str]:
    """The registry, each game's folder and env module, and the modules that one spec alone
    names (modules both games share, like the feature code, are cross-game code)."""
    named: dict[str, set[str]] = {}
    for game in GAMES.values():
        entries = [getattr(game, field) for field in ENTRIES] + list(game.styles.values())
        for entry in entries:
            named.setdefault(entry.partition(":")[0], set()).add(game.name)
    own = {"hot_envs/core/games.py", "hot_envs/core/game_type.py"}
    own |= {_module_file(m) for m, games in named.items() if len(games) == 1}
    own |= {_module_file(game.env_module) for game in GAMES.values()}
    return own


def _in_game_folder(path: str) -> bool:
    return any(
        path.startswith(game.engine_module.replace(".", "/") + "/") for game in GAMES.values()
    )


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _names_in(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    return [
        f"{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and NAME.search(node.value)
    ]


def test_no_game_name_outside_its_own_modules() -> None:
    own = _own_files() | EXCEPTIONS
    found = {}
    for folder in ("hot_envs", "training"):
        for path in sorted((REPOSITORY / folder).rglob("*.py")):
            relative = path.relative_to(REPOSITORY).as_posix()
            if relative in own or _in_game_folder(relative):
                continue
            names = _names_in(path)
            if names:
                found[relative] = names
    assert not found, f"ask the game's spec (hot_envs.core.games) instead of its name: {found}"


def test_every_exception_still_needs_to_be_one() -> None:
    for path in sorted(EXCEPTIONS):
        assert _names_in(REPOSITORY / path), f"{path} names no game now: drop it from EXCEPTIONS"


def test_the_registry_is_built_from_the_folders_specs() -> None:
    for game in GAMES.values():
        spec = importlib.import_module(f"{game.engine_module}.spec")
        assert spec.GAME is game and isinstance(game, Game)
        assert game.key == game.engine.State.new(seed=0).view(0)["game"]


@pytest.mark.parametrize("game", GAMES.values(), ids=lambda g: g.name)
def test_every_entry_point_resolves(game: Game) -> None:
    for field in ENTRIES:
        assert game.load(field) is not None, field
    for entry in game.styles.values():
        assert callable(resolve(entry)), entry
    slots, size = game.load("feature_shape")
    assert slots > 0 and size > 0
    assert game.shaping is not None and game.guide and game.suite and game.checkpoint
    assert game.web_state_bytes > 0 and game.learning_speed > 0 and game.search_simulations > 0


@pytest.mark.parametrize("game", GAMES.values(), ids=lambda g: g.name)
def test_the_shipped_checkpoint_plays_its_game(game: Game) -> None:
    from hot_envs.agents.checkpoint import CheckpointAgent
    from hot_envs.agents.shipped import shipped_names

    assert game.checkpoint in shipped_names()
    assert CheckpointAgent.load(game.checkpoint).game == game.name


def test_styles_belong_to_one_game_each() -> None:
    styles = [style for game in GAMES.values() for style in game.styles]
    assert len(styles) == len(set(styles))


def test_a_game_folder_imports_nothing_above_the_engine() -> None:
    above = ("agents", "arena", "pictures", "web", "terminal", "rllib", "training", "games")
    above = tuple(f"hot_envs.{layer}" for layer in above)
    for game in GAMES.values():
        folder = REPOSITORY / game.engine_module.replace(".", "/")
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module:
                    modules = [node.module]
                elif isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                else:
                    continue
                for module in modules:
                    assert not module.startswith(above), f"{path.name} imports {module}"


@pytest.mark.parametrize("game", GAMES.values(), ids=lambda g: g.name)
def test_the_spec_shaping_is_the_scoring_potential(game: Game) -> None:
    from hot_envs.core.scoring import shaping_potential

    for players in game.players:
        state = game.engine.State.new(seed=players, **game.options(players))
        steps = 0
        while not state.is_terminal() and steps < 400:
            for seat in range(state.num_players):
                view = state.view(seat)
                assert game.shaping(view, seat) == shaping_potential(game.name, view, seat)
            state.apply(state.legal_actions()[steps % len(state.legal_actions())])
            steps += 1

"""The module names of earlier releases, kept importable.

The package's modules are grouped by role (``hot_envs.core``, ``hot_envs.envs``,
``hot_envs.evaluation``, ``hot_envs.play``, ``hot_envs.cli``); before that they sat at the top
level. ``import hot_envs.arena`` (or ``from hot_envs.single_agent import SingleAgentEnv``, or a
pickle that names such a module) still works: :class:`MovedModules`, on ``sys.meta_path`` from
``import hot_envs`` on, answers each old name with the module itself under its new name — one
module object, so ``hot_envs.arena is hot_envs.evaluation.arena``. Nothing is imported before it
is asked for. (The RLlib backend's league, export and run folders moved into the training
package: :data:`TO_TRAINING`.)
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

MOVED = {
    "engine": "core",
    "errors": "core",
    "game_type": "core",
    "games": "core",
    "observation": "core",
    "scoring": "core",
    "arguments": "core",
    "env_base": "envs",
    "driver": "envs",
    "single_agent": "envs",
    "vector": "envs",
    "vector_workers": "envs",
    "vector_sb3": "envs",
    "opponents": "agents",
    "suite": "agents",
    "arena": "evaluation",
    "gauntlet": "evaluation",
    "report": "evaluation",
    "records": "evaluation",
    "terminal": "play",
    "viewer": "play",
    "docs": "cli",
}
"""Each module that moved: its name at the top level → the package it is in now."""

ALIASES = {f"hot_envs.{name}": f"hot_envs.{package}.{name}" for name, package in MOVED.items()}

TO_TRAINING = {
    "rllib.league": "rllib_league",
    "rllib.export": "rllib_export",
    "rllib.runs": "rllib_runs",
}
"""The RLlib backend's training parts, moved from ``hot_envs.rllib`` to the training package, where
the SB3 backend's are: the old name → the module's name in ``hot_envs.training``."""

ALIASES |= {f"hot_envs.{old}": f"hot_envs.training.{new}" for old, new in TO_TRAINING.items()}


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A finder and loader for the names of :data:`ALIASES`: the module under its new name."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in ALIASES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(ALIASES[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module ran under its new name."""


def install() -> None:
    """Put :class:`MovedModules` on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())

"""Agent *specs*: short strings that name an agent.

:func:`make_agent` builds an agent from a spec, the same way for ``hot-envs evaluate``,
``hot-envs play``, the arena and training opponents:

===============================  ==============================================================
spec                             agent
===============================  ==============================================================
``random``                       uniformly random legal actions
``heuristic[:EPSILON]``          the game's rule-based agent (a share EPSILON of random moves)
``STYLE[:EPSILON]``              a player of one plain style, for the opponent suite
                                 (docs/evaluation.md): Heiße Luft ``beginner``,
                                 ``stage-finisher``, ``trophy-rusher``, ``high-hoarder``
                                 (:mod:`~hot_envs.agents.styles_luft`); Heiße Karten
                                 ``low-dumper``, ``trick-taker``, ``trick-avoider``,
                                 ``card-counter`` (:mod:`~hot_envs.agents.styles_karten`)
``search[:BUDGET[:ROLLOUT]]``    :class:`SearchAgent` with the game's :data:`SEARCH_PRESETS`;
                                 BUDGET = rollouts per decision (``400``) or seconds per decision
                                 (``0.5s``); ROLLOUT = the rollout policy's spec (``random``, …)
``search-strong``                the search at ten times its preset's rollouts (``STRONG_SEARCH``)
``ismcts[:SIMULATIONS]``         OpenSpiel's information-set MCTS with random rollouts,
                                 SIMULATIONS a decision (default 100;
                                 :mod:`hot_envs.openspiel.ismcts`, the ``openspiel`` extra)
``anchored[:WEIGHT[:POLICY]]``   :class:`~hot_envs.agents.anchored.AnchoredAgent`: a checkpoint's
                                 logits plus WEIGHT (default 6, ``inf`` = the heuristic) on the
                                 heuristic's move; POLICY = the checkpoint's spec (default the
                                 game's shipped one)
``PATH`` or ``NAME``             a trained checkpoint (``.npz``/``.zip``/``.json`` or its stem), or
                                 a shipped one by name: ``heisse_luft_v0``, ``heisse_karten_v0``,
                                 or an earlier shipped one by its date,
                                 ``heisse_karten_v0_2026_11_30`` (:mod:`~hot_envs.agents.shipped`)
``package.module:factory``       your own agent: ``factory()`` returns it; ``factory`` gets the
                                 keyword arguments ``game`` and ``seed`` if it takes them; the
                                 module imports from the current folder too
===============================  ==============================================================
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from pathlib import Path
from types import ModuleType

from hot_envs.agents.base import Agent
from hot_envs.agents.search import SearchAgent
from hot_envs.agents.shipped import SUFFIXES, earlier_names, is_checkpoint, shipped_names
from hot_envs.core.games import GAMES, get_game

__all__ = ["SEARCH_PRESETS", "SEARCH_SPECS", "SPEC_HELP", "STYLES", "make_agent"]


# What ``search`` means per game (the game's ``search`` settings): the strongest settings
# measured against the heuristic at under 0.5 s (CPU) per decision (docs/agents.md).
SEARCH_PRESETS: dict[str, dict] = {game.name: dict(game.search) for game in GAMES.values()}
# ``search-strong``: the preset at this many times its rollouts (docs/agents.md).
STRONG_SEARCH = 10
# The spec names that make a search agent (SearchAgent).
SEARCH_SPECS = ("search", "search-strong")
# STYLE[:EPSILON] specs: name → (game, module, class), each of one game only.
STYLES = {
    style: (game.name, *entry.split(":"))
    for game in GAMES.values()
    for style, entry in game.styles.items()
}
_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
SPEC_HELP = (
    "random, heuristic[:EPSILON], a style[:EPSILON] "
    f"({', '.join(STYLES)}), search[:BUDGET[:ROLLOUT]] (BUDGET: rollouts, or seconds as "
    "0.5s; ROLLOUT: an agent spec), search-strong (ten times the rollouts), "
    "ismcts[:SIMULATIONS] (OpenSpiel's ISMCTS), "
    "anchored[:WEIGHT[:POLICY]] (POLICY: a checkpoint's "
    "logits plus WEIGHT on the heuristic's move), a checkpoint file or a shipped checkpoint's name "
    f"({', '.join(shipped_names())}; earlier: {', '.join(earlier_names())}), "
    "or package.module:factory"
)


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """The agent ``spec`` names (module docstring) for ``game`` (CLI name), seeded by ``seed``.

    Raises ``ValueError`` with the accepted forms for a spec it does not understand.
    """
    game = get_game(game).name
    name, _, arg = spec.partition(":")
    if name == "random" and not arg:
        from hot_envs.agents.random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "heuristic":
        heuristic = get_game(game).load("heuristic")
        return heuristic(seed, epsilon=_number(spec, arg, 0.0))
    if name in STYLES:
        return _style_agent(spec, name, arg, game, seed)
    if name == "search":
        return _search_agent(spec, arg, game, seed)
    if name == "search-strong":
        if arg:
            raise ValueError(f"agent spec {spec!r}: search-strong takes no options")
        budget = STRONG_SEARCH * SEARCH_PRESETS[game]["simulations"]
        return _search_agent(spec, str(budget), game, seed)
    if name == "ismcts":
        return _ismcts_agent(spec, arg, game, seed)
    if name == "anchored":
        return _anchored_agent(spec, arg, game, seed)
    if spec.endswith(SUFFIXES) or Path(spec).is_file() or is_checkpoint(spec):
        return _checkpoint_agent(spec, game, seed)
    if _IMPORT_PATH.match(spec):
        return _imported_agent(spec, game, seed)
    if "/" in spec or "\\" in spec:  # a path with no checkpoint there: say so
        return _checkpoint_agent(spec, game, seed)
    raise ValueError(f"unknown agent spec {spec!r}; use {SPEC_HELP}")


def _style_agent(spec: str, name: str, arg: str, game: str, seed: int | None) -> Agent:
    """``STYLE[:EPSILON]``: one of :data:`STYLES`, for its own game only."""
    style_game, module, cls = STYLES[name]
    if style_game != game:
        raise ValueError(
            f"agent spec {spec!r} is a {get_game(style_game).title} style, not one for "
            f"{get_game(game).title}; its styles: "
            + ", ".join(n for n, (g, _, _) in STYLES.items() if g == game)
        )
    return getattr(importlib.import_module(module), cls)(seed, epsilon=_number(spec, arg, 0.0))


def _search_agent(spec: str, arg: str, game: str, seed: int | None) -> SearchAgent:
    """``search[:BUDGET[:ROLLOUT]]``: the game's preset, with BUDGET and ROLLOUT if given."""
    settings = dict(SEARCH_PRESETS[game])
    budget, _, rollout = arg.partition(":")
    simulations, seconds = _budget(spec, budget)
    if simulations or seconds:
        settings["simulations"] = simulations
    if rollout:  # a rollout policy of your own plays whole rollouts
        settings.update(rollout=rollout, rollout_plies=None)
    rollout = settings.pop("rollout")
    if rollout != "random":
        settings["rollout"] = make_agent(rollout, game, seed)  # plays its rollouts in arrays
    if "prior" in settings:
        settings["prior"] = make_agent(settings["prior"], game, seed)
    return SearchAgent(game, seconds=seconds, seed=seed, **settings)


def _ismcts_agent(spec: str, arg: str, game: str, seed: int | None) -> Agent:
    """``ismcts[:SIMULATIONS]``: OpenSpiel's ISMCTS (the ``openspiel`` extra, imported here
    only, so that ``import hot_envs`` never needs OpenSpiel)."""
    if arg and not (arg.isdigit() and int(arg) > 0):
        raise ValueError(f"agent spec {spec!r}: SIMULATIONS must be a positive int")
    try:
        from hot_envs.openspiel.ismcts import SIMULATIONS, ISMCTSAgent
    except ImportError as error:
        raise ValueError(
            f"agent spec {spec!r} needs OpenSpiel: pip install hot_envs[openspiel] ({error})"
        ) from None
    return ISMCTSAgent(game, int(arg) if arg else SIMULATIONS, seed=seed)


def _anchored_agent(spec: str, arg: str, game: str, seed: int | None) -> Agent:
    """``anchored[:WEIGHT[:POLICY]]``: POLICY (default the game's shipped checkpoint) with
    WEIGHT (default :data:`hot_envs.agents.anchored.WEIGHT`) on the heuristic's move."""
    from hot_envs.agents.anchored import WEIGHT, anchored

    weight, _, policy = arg.partition(":")
    return anchored(game, seed, policy=policy or None, weight=_number(spec, weight, WEIGHT))


def _number(spec: str, text: str, default: float | None) -> float | None:
    if not text:
        return default
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"agent spec {spec!r}: {text!r} is not a number") from None


def _budget(spec: str, text: str) -> tuple[int | None, float | None]:
    """``400`` → 400 rollouts, ``0.5s`` → 0.5 seconds, empty → the default."""
    try:
        if not text:
            return None, None
        if text.endswith("s") and float(text[:-1]) > 0:
            return None, float(text[:-1])
        if text.isdigit() and int(text) > 0:
            return int(text), None
    except ValueError:
        pass
    raise ValueError(
        f"agent spec {spec!r}: the budget must be rollouts (a positive int) or seconds (0.5s)"
    )


def _checkpoint_agent(path: str, game: str, seed: int | None) -> Agent:
    from hot_envs.agents.checkpoint import load_agent

    try:
        return load_agent(path, game=game, seed=seed)
    except FileNotFoundError as error:
        raise ValueError(str(error)) from None


def _imported_agent(spec: str, game: str, seed: int | None) -> Agent:
    """``package.module:factory`` — import the module (from the current folder too, as
    ``python -m`` would), call the factory."""
    module_name, _, attribute = spec.partition(":")
    try:
        factory = _import_from_cwd(module_name)
    except ImportError as error:
        raise ValueError(f"agent spec {spec!r}: cannot import {module_name!r} ({error})") from None
    for part in attribute.split("."):
        if not hasattr(factory, part):
            raise ValueError(f"agent spec {spec!r}: {module_name!r} has no {attribute!r}")
        factory = getattr(factory, part)
    if not callable(factory):
        raise ValueError(f"agent spec {spec!r}: {attribute!r} is not callable")
    agent = factory(**_accepted_kwargs(factory, game=game, seed=seed))
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"agent spec {spec!r}: the factory returned {agent!r}, without act()")
    return agent


def _import_from_cwd(module_name: str) -> ModuleType:
    """``importlib.import_module`` with the current folder first on the import path, as
    ``python -m`` and ``python -c`` have it and console scripts such as ``hot-envs`` do not."""
    folder = os.getcwd()
    added = folder not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        return importlib.import_module(module_name)
    finally:
        if added:
            sys.path.remove(folder)


def _accepted_kwargs(factory: object, **kwargs: object) -> dict[str, object]:
    """The keyword arguments ``factory`` takes, by name or through ``**kwargs``."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return kwargs
    names = {p.name for p in parameters if p.kind is not inspect.Parameter.POSITIONAL_ONLY}
    return {k: v for k, v in kwargs.items() if k in names}

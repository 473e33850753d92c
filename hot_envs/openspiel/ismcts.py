"""OpenSpiel's ISMCTS as one of our agents: the ``ismcts[:SIMULATIONS]`` spec (docs/agents.md).

OpenSpiel's Python :class:`~open_spiel.python.algorithms.ismcts.ISMCTSBot` (Cowling, Powley and
Whitehouse 2011) searches from the agent's view: the root is the engine's ``from_view``, each
simulation determinises again with the pyspiel state's ``resample_from_infostate`` (the engine's
``from_view`` too), and leaves are valued by one uniformly random rollout to the end of the game
(OpenSpiel's ``RandomRolloutEvaluator``); the move is the most visited.

OpenSpiel's C++ ``pyspiel.ISMCTSBot`` cannot search a Python game: its ``step`` gives up Python's
global interpreter lock while it searches, and then calls the Python game's methods without it,
which ends the interpreter with a segmentation fault; and OpenSpiel's Python-game state does not
pass ``ResampleFromInfostate`` on to Python, so it would stop at "not implemented" even with the
lock. The Python bot calls both from Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from hot_envs.core.engine import Seed, make_rng
from hot_envs.core.games import get_game
from hot_envs.openspiel.games import from_engine, game_for

SIMULATIONS = 100  # the spec's default simulations a decision (docs/agents.md)
UCT_C = 2.0  # exploration constant of the tree policy (OpenSpiel's examples use 2)


class ISMCTSAgent:
    """``act(observation, view)``: OpenSpiel's ISMCTS with ``simulations`` simulations."""

    def __init__(
        self, game: str, simulations: int = SIMULATIONS, seed: Seed = None, uct_c: float = UCT_C
    ) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a positive int, not {simulations!r}")
        self.game = get_game(game)
        self.simulations = simulations
        self.uct_c = uct_c
        self._rng = make_rng(seed)
        self._games: dict[tuple, Any] = {}  # pyspiel games by table size and options

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = view.get("legal_actions") or np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return int(legal[0])
        engine = self.game.engine.State.from_view(view, rng=self._rng)
        key = (engine.num_players, tuple(sorted(engine.options.items())))
        game = self._games.get(key)
        if game is None:
            game = self._games[key] = game_for(engine)
        bot = self.bot(game)
        return int(bot.step(from_engine(engine, game)))

    def bot(self, game: Any) -> ismcts.ISMCTSBot:
        """OpenSpiel's bot for ``game``, seeded from this agent's generator."""
        random_state = np.random.RandomState(int(self._rng.integers(2**31)))
        bot = ismcts.ISMCTSBot(
            game=game,
            evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state),
            uct_c=self.uct_c,
            max_simulations=self.simulations,
            random_state=random_state,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        bot.set_resampler(
            lambda state, player: state.resample_from_infostate(player, random_state.uniform)
        )
        return bot

"""PettingZoo AEC bookkeeping shared by both games (docs/environments.md).

A game's environment is a thin subclass of :class:`CardGameEnv` that names its engine ``State``
class, its observation and state encoders and its metadata; everything else — spaces, seeding,
turn order, rewards, terminations, rendering, PettingZoo's optional ``state()`` and the standard
wrappers — is written once here, the way Pgx keeps the shared conventions in ``core.Env``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hot_envs.core.engine import GameState
from hot_envs.core.observation import ObservationLayout


class CardGameEnv(AECEnv):
    """An AEC environment over one engine ``State`` per episode.

    Subclasses set the class attributes below (``encode``, ``action_mask`` and ``encode_state``
    as staticmethods). Keyword arguments other than ``render_mode`` are the engine's options
    (``State.new(seed, **options)``) and are checked at construction.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "render_fps": 2,
        "is_parallelizable": False,
    }
    engine: ClassVar[type]
    layout: ClassVar[ObservationLayout]
    encode: ClassVar[Callable[[GameState, int], np.ndarray]]
    action_mask: ClassVar[Callable[[GameState, int], np.ndarray]]
    state_layout: ClassVar[ObservationLayout]
    encode_state: ClassVar[Callable[[GameState], np.ndarray]]
    num_actions: ClassVar[int]

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.game_options = options
        # Deal one game now: bad options fail here, and the seat count comes from the engine.
        self.game: GameState = self.engine.new(seed=0, **options)
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        observation = observation_space(self.layout, self.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        # PettingZoo's optional global state, set per instance as the spaces above are.
        self.state_space = spaces.Box(
            self.state_layout.low, self.state_layout.high, dtype=np.float32
        )
        self.np_random, self.np_random_seed = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _deal_seed(self) -> int:
        """The next game's deal seed, from the env's seeded generator (as the training driver
        draws its deal seeds)."""
        return int(self.np_random.integers(2**63))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game, or set up ``options["state"]`` (a ``State.to_dict()`` dict; other
        option keys are ignored, as Gymnasium does). The env's seeded generator draws the game's
        deal seed, whose stream gives every chance event (:mod:`hot_envs.core.chance`)."""
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        if options and "state" in options:
            game = self.engine.from_dict(options["state"], seed=self._deal_seed())
            if game.num_players != len(self.possible_agents) or game.is_terminal():
                raise ValueError("reset's state must be a game in progress with this env's seats")
            self.game = game
        else:
            self.game = self.engine.new(seed=self._deal_seed(), **self.game_options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        return {
            "observation": self.encode(self.game, seat),
            "action_mask": self.action_mask(self.game, seat),
        }

    def state(self) -> np.ndarray:
        """The full game state as a flat float32 vector in ``state_space``, seats in seat order
        (``player_0`` first) whoever is to move: every hand, the piles in drawing order and all
        that is public (docs/environments.md, "The full state"; ``state_layout`` names its
        pieces). For centralised critics in training only — it holds hidden cards, and no
        observation ever contains any of it."""
        return self.encode_state(self.game)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.game.apply(action)  # a refused action raises here, before anything changed
        self._cumulative_rewards[agent] = 0.0
        returns = self._step_returns()
        for i, a in enumerate(self.agents):
            self.rewards[a] = float(returns[i]) if returns else 0.0
        if self.game.is_terminal():
            ended = self.truncations if self.game.is_truncated() else self.terminations
            for a in self.agents:
                ended[a] = True
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _step_returns(self) -> list[float] | None:
        """This step's rewards: the engine's returns when the game ends, else ``None`` (0 each)."""
        return self.game.returns() if self.game.is_terminal() else None

    def view(self, agent: str) -> dict:
        """The engine's view dict: exactly what ``agent`` may know."""
        return self.game.view(self._seat[agent])

    def render(self) -> str | np.ndarray | None:
        """The table from the seat to move, as at a hot-seat table (no hand once the game is
        over): text for ``"ansi"`` (printed for ``"human"``), an ``H × W × 3`` ``uint8`` frame for
        ``"rgb_array"`` (:mod:`hot_envs.pictures`, which needs Pillow). Observations never hold
        any of it."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            from hot_envs.pictures import frame

            return frame(self.game)
        text = self.game.render(viewer=self.game.current_player)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass


def check_render_mode(render_mode: str | None, modes: list[str]) -> str | None:
    """``render_mode`` if it is one of ``modes`` or ``None``, else a ``ValueError`` naming them."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be one of {modes} or None, not {render_mode!r}")
    return render_mode


def observation_space(layout: ObservationLayout, num_actions: int) -> spaces.Dict:
    """The space of an observation dict: the layout's ``Box`` and the int8 ``action_mask``."""
    return spaces.Dict(
        {
            "observation": spaces.Box(layout.low, layout.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
        }
    )


def wrap(raw: AECEnv) -> AECEnv:
    """The classic PettingZoo wrappers: an illegal action ends the game with −1 for its player,
    out-of-bounds actions assert, and the call order is enforced."""
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)

"""Heiße Luft and Heiße Karten as pyspiel Python games (docs/openspiel.md).

:func:`register` registers ``python_heisse_luft`` and ``python_heisse_karten`` with OpenSpiel, as
its own Python games (``open_spiel/python/games``) do. The pyspiel state holds one engine state
(:class:`hot_envs.heisse_luft.State` or :class:`hot_envs.heisse_karten.State`) and asks it for
everything: legal actions, returns, the player to move, the deals and the reshuffle of HL-3.5.
There is no second rule book here.

Chance is *explicit* (``EXPLICIT_STOCHASTIC``; docs/openspiel.md, "The chance mode is explicit",
says why): the engine's chance source is an :class:`_Outcomes`, and a player's action that makes
the engine shuffle becomes a chance node with that action pending (:class:`_State`).
"""

from __future__ import annotations

import json
import pickle
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the extra is installed in the test setup
    raise ImportError(
        "hot_envs.openspiel needs OpenSpiel: pip install hot_envs[openspiel]"
    ) from error

from hot_envs import heisse_karten, heisse_luft
from hot_envs.core.games import GAMES
from hot_envs.heisse_karten.facts import BLACK_SUM, NUM_CARDS, RED_SUM, SCORE_SCALE
from hot_envs.heisse_karten.facts import SET_ASIDE as KARTEN_SET_ASIDE

LUFT = "python_heisse_luft"
LUFT_DECK = 40  # balloon cards (HL-1.1) and prize cards (HL-1.2): the largest shuffle
KARTEN = "python_heisse_karten"
GAME_NAMES = {LUFT: "heisse-luft", KARTEN: "heisse-karten"}  # pyspiel's name → ours

# Heiße Luft's bounds per turn of HL-7.3 (docs/openspiel.md, "What the games declare", derives
# them): decisions (exchange actions, a card, a trophy phase's "stop" answers), claims in a game,
# reshuffle draws; chance nodes of one 40-card shuffle (its last card forced).
_LUFT_TURN_DECISIONS = 4 + 1 + 2
_LUFT_CLAIMS = 3
_LUFT_TURN_DRAWS = 4 + 1
_SHUFFLE = LUFT_DECK - 1


def _game_type(short_name: str, long_name: str, players: tuple[int, int], params: dict):
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        min_num_players=players[0],
        max_num_players=players[1],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=True,
        parameter_specification=params,
    )


# Game parameters: the environments' options (docs/environments.md). OpenSpiel's parameters have
# one type each, so a random starting seat is -1, and 0 leaves rounds and target unset.
LUFT_PARAMS = {"three_for_one": True, "starting_player": 0, "turn_limit": 2000}
KARTEN_PARAMS = {
    "players": 4,
    "first_leader": 0,
    "reward_mode": "win",
    "rounds": 0,
    "target": 0,
}
LUFT_TYPE = _game_type(LUFT, "Python Heiße Luft", (2, 2), LUFT_PARAMS)
KARTEN_TYPE = _game_type(KARTEN, "Python Heiße Karten", (2, 6), KARTEN_PARAMS)


class _Need(Exception):
    """The engine asked its chance source for an outcome the chance nodes have not chosen yet."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class _Outcomes:
    """The engine's chance source here (``hot_envs.core.engine.ChanceSource``): the outcomes the
    chance nodes chose, handed out in order.

    A ``permutation(n)`` is chosen one item at a time, each a chance node (the last item is
    forced); an ``integers(n)`` is one chance node. A draw the outcomes do not cover yet raises
    :class:`_Need`, and the action is applied again, on a fresh copy, once they do.
    """

    __slots__ = ("_outcomes", "used")

    def __init__(self, outcomes: list[int]) -> None:
        self._outcomes = outcomes
        self.used = 0  # how many outcomes the engine has taken

    def _take(self, count: int, size: int) -> list[int]:
        start = self.used
        if len(self._outcomes) < start + count:
            raise _Need(size)
        self.used += count
        return self._outcomes[start : start + count]

    def permutation(self, n: int) -> np.ndarray:
        return np.array(self._take(n, n), dtype=np.int64)

    def integers(self, n: int) -> int:
        return self._take(1, -n)[0]


_NO_OUTCOMES = _Outcomes([])  # the source of a settled engine state: any draw is a _Need


class _Engine:
    """The engine state inside a pyspiel state's ``__dict__`` (``None`` before the deal).

    OpenSpiel clones a Python state by deep-copying its ``__dict__`` and serializes it with
    pickle; this holder makes the copy the engine's own ``clone`` and the pickle the engine's
    ``to_dict`` (a JSON string), read back by ``from_dict``, which checks it.
    """

    __slots__ = ("state",)

    def __init__(self, state: Any = None) -> None:
        if state is not None:  # settled: nothing more to hand out, any draw is a _Need
            state._rng, state._rng_shared = _NO_OUTCOMES, False
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Engine:
        return _Engine(None if self.state is None else self.state.clone())

    def __reduce__(self) -> tuple:
        return _restore, (None if self.state is None else dumps(self.state),)


def dumps(state: Any) -> str:
    """The engine state as one JSON string (:meth:`State.to_dict`)."""
    return json.dumps(state.to_dict(), sort_keys=True, separators=(",", ":"))


def loads(text: str) -> Any:
    """The engine state :func:`dumps` wrote; ``ValueError`` naming the problem for anything
    else (the engine's ``from_dict`` checks every part)."""
    try:
        state = json.loads(text)
    except (ValueError, TypeError) as error:
        raise ValueError(f"not a serialized Heiße Luft or Heiße Karten state: {error}") from None
    key = state.get("game") if isinstance(state, dict) else None
    game = next((game for game in GAMES.values() if game.key == key), None)
    if game is None:
        raise ValueError("not a serialized Heiße Luft or Heiße Karten state: no game named")
    return game.engine.State.from_dict(state, seed=_NO_OUTCOMES)


def _restore(text: str | None) -> _Engine:
    return _Engine(None if text is None else loads(text))


class _Game(pyspiel.Game):
    """What both games share; subclasses set the engine and the game's facts."""

    engine: Any  # the engine module (State, encode, LAYOUT, …)

    def __init__(self, game_type, params: dict[str, Any], options, info) -> None:
        super().__init__(game_type, info, params or {})
        self.options = options

    @classmethod
    def _dealt(cls, options: dict[str, Any]) -> Any:
        """A game of the engine dealt with ``options``: a bad option is a ``ValueError`` naming
        it, here."""
        return cls.engine.State.new(seed=0, **options)

    def new_initial_state(self) -> _State:
        return _State(self)

    def __reduce__(self) -> tuple:
        """Pickled as its game string and loaded again: pybind's own pickle of a Python game
        skips ``__init__``, so the copy would lack the options."""
        return pyspiel.load_game, (str(self),)

    def max_chance_nodes_in_history(self) -> int:
        """The most chance nodes of one game. OpenSpiel's ``max_game_length`` counts decisions
        only; the two together bound the history (``max_history_length``)."""
        return self._max_chance

    def deserialize_state(self, text: str) -> _State:
        """The state ``state.serialize()`` wrote; a ``ValueError`` saying so for anything else
        (OpenSpiel's own check, or the engine's ``from_dict`` naming the first bad part)."""
        try:
            return super().deserialize_state(text)
        except (pyspiel.SpielError, pickle.UnpicklingError, ValueError, EOFError) as error:
            title = self.get_type().long_name.removeprefix("Python ")
            raise ValueError(f"not a serialized {title} state: {error}") from None

    def make_py_observer(self, iig_obs_type=None, params=None) -> Observer:
        return Observer(
            self.engine, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class HeisseLuftGame(_Game):
    """Heiße Luft (HL-1 … HL-8) for two players."""

    engine = heisse_luft

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        options = {**LUFT_PARAMS, **(params or {})}
        if options["starting_player"] == -1:
            options["starting_player"] = "random"
        self._dealt(options)
        info = pyspiel.GameInfo(
            num_distinct_actions=heisse_luft.NUM_ACTIONS,
            max_chance_outcomes=LUFT_DECK,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=_LUFT_TURN_DECISIONS * options["turn_limit"] + 2 * _LUFT_CLAIMS,
        )
        super().__init__(LUFT_TYPE, params, options, info)
        random_seat = options["starting_player"] == "random"
        self._max_chance = 3 * _SHUFFLE + _LUFT_TURN_DRAWS * options["turn_limit"] + random_seat


class HeisseKartenGame(_Game):
    """Heiße Karten (HK-1 … HK-5) for 2–6 players."""

    engine = heisse_karten

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        options = {**KARTEN_PARAMS, **(params or {})}
        options["num_players"] = options.pop("players")
        options["rounds"], options["target"] = options["rounds"] or None, options["target"] or None
        if options["first_leader"] == -1:
            options["first_leader"] = "random"
        n, rounds = options["num_players"], self._dealt(options).options["rounds"]
        if options["reward_mode"] == "win":  # HK-4.3: +1/W for the winners, -1/(N-W) else
            low, high = -1.0, 1.0
        else:  # own points minus the others' mean, per round, over SCORE_SCALE (HK-4.3)
            high = (BLACK_SUM + RED_SUM / (n - 1)) / SCORE_SCALE
            low = -(RED_SUM + BLACK_SUM / (n - 1)) / SCORE_SCALE
        info = pyspiel.GameInfo(
            num_distinct_actions=heisse_karten.NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=n,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0,
            max_game_length=rounds * (NUM_CARDS - KARTEN_SET_ASIDE.get(n, 0)),  # every card
        )
        super().__init__(KARTEN_TYPE, params, options, info)
        # a shuffle of the 48 cards a round (HK-2.2), the last card forced; a random first leader
        self._max_chance = rounds * (NUM_CARDS - 1) + (options["first_leader"] == "random")


_DEAL = -1  # the pending move of a state before the first deal


class _State(pyspiel.State):
    """A pyspiel state around one engine state (:attr:`engine`).

    A player's action is applied to a copy of the engine state whose chance source is an
    :class:`_Outcomes`; when the action needs an outcome (a deal or a reshuffle) the state becomes
    a chance node with that action pending, and the action is applied once chance has chosen.
    """

    def __init__(self, game: _Game) -> None:
        super().__init__(game)
        self._engine = _Engine()
        self._pending: int | None = _DEAL  # the move waiting for chance, if any
        self._outcomes: list[int] = []  # the chance outcomes chosen for it so far
        self._size = 0  # the draw being chosen: permutation(n) as n, integers(n) as -n
        self._start = 0  # where its outcomes begin in _outcomes
        self._advance()

    @property
    def engine(self) -> Any:
        """The engine state (read it; play through ``apply_action``); ``None`` before the
        first deal. At a chance node it is the state before the pending action."""
        return self._engine.state

    def _advance(self) -> None:
        """Apply the pending move with the outcomes chosen so far, or find the next draw."""
        chance = _Outcomes(self._outcomes)
        try:
            if self._pending == _DEAL:
                game = self.get_game()
                engine = game.engine.State.new(seed=chance, **game.options)
            else:
                engine = self._engine.state.clone()
                engine._rng, engine._rng_shared = chance, False
                engine.apply(self._pending)
        except _Need as need:
            self._size, self._start = need.size, chance.used
            items = self._open_items()
            if self._size > 0 and len(items) == 1:  # a permutation's last item is forced
                self._outcomes.append(items[0])
                self._advance()
            return
        self._settle(engine)

    def _settle(self, engine: Any) -> None:
        """``engine`` as this state's engine state, no move pending."""
        self._engine = _Engine(engine)
        self._pending, self._outcomes, self._size, self._start = None, [], 0, 0

    def _open_items(self) -> list[int]:
        """The outcomes the draw being chosen can take next, each as likely."""
        if self._size < 0:  # integers(n)
            return list(range(-self._size))
        taken = set(self._outcomes[self._start :])
        return [item for item in range(self._size) if item not in taken]

    # -- OpenSpiel's state API, answered by the engine ------------------------------------------

    def current_player(self) -> int:
        if self._pending is not None:
            return pyspiel.PlayerId.CHANCE
        player = self.engine.current_player
        return pyspiel.PlayerId.TERMINAL if player is None else player

    def _legal_actions(self, player: int) -> list[int]:
        if self._pending is not None or player != self.engine.current_player:
            return []
        return self.engine.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        items = self._open_items()
        return [(item, 1.0 / len(items)) for item in items]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        if self._pending is not None:
            if action not in self._open_items():
                raise ValueError(f"chance outcome {action} is not possible here")
            self._outcomes.append(action)
        else:
            self._pending = action
        self._advance()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._size < 0:
                return f"draw {action} of {-self._size}"
            return f"shuffle: next item {action} of {self._size}"
        return self.engine.action_name(int(action))

    def is_terminal(self) -> bool:
        return self._pending is None and self.engine.is_terminal()

    def returns(self) -> list[float]:
        if self._pending is not None:
            return [0.0] * self.get_game().num_players()
        return [float(r) for r in self.engine.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler) -> _State:
        """A state ``player_id`` cannot tell from this one (the engine's ``from_view``): the
        cards that player cannot see dealt again at random, seeded by ``probability_sampler``
        (a callable giving floats in [0, 1)); the same history, and the same pending action at
        a chance node, whose outcomes are chosen again."""
        state = self.clone()
        engine = self.engine
        if engine is None:  # nothing dealt yet: nothing to tell apart
            return state
        seed = int(probability_sampler() * 2**53)
        state._engine = _Engine(type(engine).from_view(engine.view(player_id), rng=seed))
        if state._pending is not None:
            state._outcomes = []
            state._advance()
        return state

    def __str__(self) -> str:
        """The whole state: the public table and the hidden cards (hands and piles); at a
        chance node the pending move and the outcomes chosen for it."""
        if self.engine is None:
            text = "Not dealt yet"
        else:
            full = self.engine.to_dict()
            hidden = {k: full[k] for k in _HIDDEN if k in full}
            text = self.engine.render() + "\nHidden: " + json.dumps(hidden, separators=(",", ":"))
        if self._pending is not None and self._pending != _DEAL:
            text += f"\nPending: {self.engine.action_name(self._pending)}"
        if self._pending is not None:
            text += f"\nChance outcomes so far: {self._outcomes}"
        return text


_HIDDEN = ("hands", "draw_pile", "prize_deck", "set_aside")


class Observer:
    """OpenSpiel's Python observer (``open_spiel/python/observation.py``) for both games
    (docs/openspiel.md, "Tensors, strings and their layout"): the tensor is the environment's
    observation (``encode``, the ``LAYOUT`` pieces as views in ``dict``), given for the private and
    public information together; the strings are the engine's ``render``, the information state's
    with every action so far (all actions are public, HL-8, HK-5)."""

    def __init__(self, engine: Any, iig_obs_type, params) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, not {params}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("an observation with every player's private cards is not provided")
        self._engine = engine
        self._public = iig_obs_type.public_info
        self._private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._history = iig_obs_type.perfect_recall
        if self._public and self._private:
            self.tensor = np.zeros(engine.LAYOUT.size, np.float32)
            self.dict = engine.LAYOUT.views(self.tensor)
        else:
            self.tensor, self.dict = None, {}

    def set_from(self, state: _State, player: int) -> None:
        if self.tensor is not None:
            if state.engine is None:  # nothing dealt yet
                self.tensor.fill(0.0)
            else:
                self.tensor[:] = self._engine.encode(state.engine, player)

    def string_from(self, state: _State, player: int) -> str:
        engine = state.engine
        if engine is None:
            text = "Not dealt yet"
        elif self._public and self._private:
            text = engine.render(player)
        elif self._public:
            text = engine.render()
        elif self._private:
            public = set(engine.render().splitlines())
            text = "\n".join(
                line for line in engine.render(player).splitlines() if line not in public
            )
        else:
            text = ""
        if self._history and self._public:
            moves = " ".join(
                f"{p.player}:{p.action}" for p in state.full_history() if p.player >= 0
            )
            text += f"\nActions: {moves}"
        return text


def register() -> None:
    """Register both games with pyspiel (once; later calls do nothing)."""
    registered = set(pyspiel.registered_names())
    if LUFT not in registered:
        pyspiel.register_game(LUFT_TYPE, HeisseLuftGame)
    if KARTEN not in registered:
        pyspiel.register_game(KARTEN_TYPE, HeisseKartenGame)


def game_for(engine_state: Any) -> _Game:
    """The pyspiel game of an engine state: its game, table size and options (those the
    game's parameters carry; the first seat is the state's own)."""
    options = engine_state.options
    if isinstance(engine_state, heisse_luft.State):
        keys = ("three_for_one", "turn_limit")
        return pyspiel.load_game(LUFT, {k: options[k] for k in keys})
    params = {"players": engine_state.num_players, "reward_mode": options["reward_mode"]}
    params.update(rounds=options["rounds"], target=options["target"] or 0)
    return pyspiel.load_game(KARTEN, params)


def from_engine(engine_state: Any, game: _Game | None = None) -> _State:
    """A pyspiel state (empty history) around a copy of ``engine_state``, which must be a player's
    decision or the end: OpenSpiel's chance nodes deal from there on."""
    state = (game or game_for(engine_state)).new_initial_state()
    state._settle(engine_state.clone())
    return state

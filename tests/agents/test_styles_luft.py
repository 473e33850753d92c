"""The Heiße Luft styles of the opponent suite (hot_envs.agents.styles_luft): legal moves through
whole games in both seats, and each plays as its docstring says on a constructed position."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from hot_envs import heisse_luft_v0
from hot_envs.agents import STYLES, make_agent
from hot_envs.agents.play import play_game
from hot_envs.heisse_luft import State
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    CLAIM_TROPHY,
    EXCHANGE_DONE,
    EXCHANGE_PICK,
    STOP_CLAIMING,
    SUIT_SIZES,
    SUITS,
)


def placement(action: int) -> tuple[int, int, int]:
    """(card, stage 0–3, side 0 the mover's / 1 the opponent's) of a play action (docs/rules.md,
    action ids)."""
    return action >> 3, action >> 1 & 3, action & 1


LUFT_STYLES = [name for name, (game, _, _) in STYLES.items() if game == "heisse-luft"]


@pytest.mark.parametrize("style", LUFT_STYLES)
def test_a_style_plays_whole_games_legally_in_both_seats(style: str) -> None:
    for seed, other in enumerate(["heuristic", style]):
        env = heisse_luft_v0.env()
        agents = {
            "player_0": make_agent(style, "heisse-luft", seed=seed),
            "player_1": make_agent(other, "heisse-luft", seed=seed + 7),
        }
        if seed:
            agents = {"player_0": agents["player_1"], "player_1": agents["player_0"]}
        kinds = set()

        def check(name, observation, view, action, kinds=kinds) -> None:
            assert observation["action_mask"][action] == 1
            kinds.add(0 if action < EXCHANGE_PICK else 1 if action < CLAIM_TROPHY else 2)

        play_game(env, agents, seed=seed, on_action=check)
        assert env.unwrapped.game.is_terminal()
        assert 2 in kinds  # the trophy phase was played as well as cards


Stage = tuple[str, list[str], list[str], list[str]]  # terrain, prizes, our side, their side


def position(stages: list[Stage], hand: list[str], opponent: list[str]) -> State:
    """``player_0`` to play with ``hand``; the stages as given (``None`` for one out of play),
    the other balloon cards in the draw pile, the other prizes in the prize deck."""
    used = set(hand) | set(opponent) | {c for s in stages for c in s[2] + s[3]}
    deck = Counter({suit: size for suit, size in zip(SUITS, SUIT_SIZES, strict=True)})
    for stage in stages:
        deck.subtract(stage[1])
    return State.from_dict(
        {
            "game": "heisse_luft",
            "phase": "play",
            "current_player": 0,
            "discard_pile": [],
            "stages": [
                {
                    "in_play": True,
                    "terrain": terrain,
                    "prizes": prizes,
                    "sides": [ours, theirs],
                    "last_player": 1 if theirs else 0 if ours else None,
                }
                for terrain, prizes, ours, theirs in stages
            ],  # fmt: skip
            "prizes_won": [dict.fromkeys(SUITS, 0), dict.fromkeys(SUITS, 0)],
            "trophies": [[], []],
            "trophy_cards": [dict.fromkeys(SUITS, 0), dict.fromkeys(SUITS, 0)],
            "pass_streak": 0,
            "turn": 10,
            "exchange_selection": [],
            "revealed_cards": [[], []],
            "trophy_phase": None,
            "winner": None,
            "options": {"three_for_one": True, "starting_player": 0, "turn_limit": 2000},
            "hands": [hand, opponent],
            "draw_pile": [c for c in CARD_CODES if c not in used],
            "prize_deck": [suit for suit in SUITS for _ in range(deck[suit])],
        }
    )


def move(spec: str, state: State) -> tuple[str, int, int]:
    """(card, stage 1–4, side: 0 own / 1 opponent's) of ``spec``'s move for player_0."""
    action = make_agent(spec, "heisse-luft", seed=0).act({"action_mask": None}, state.view(0))
    card, stage, side = placement(action)
    return CARD_CODES[card], stage + 1, side


OPPONENT = ["H2", "H4", "D3", "D7", "C2", "C8", "S3", "S5"]  # low cards, none in our hands
OPEN = [("mountain", ["D", "D"], [], []), ("lowland", ["C", "H", "H"], [], [])]


def test_the_beginner_finishes_a_stage_it_surely_wins() -> None:
    stages = [("lowland", ["S"], [], ["S9"]), *OPEN, ("mountain", ["H", "H", "S", "H"], [], [])]
    # S1 completes stage 1 and wins it (lowland: 1 < 9); S11 would complete and lose it
    state = position(stages, ["S1", "S11", "H6", "H7", "D5", "D6", "C6", "C7"], OPPONENT)
    assert move("beginner", state) == ("S1", 1, 0)
    assert move("stage-finisher", state) == ("S1", 1, 0)


def test_the_beginner_never_finishes_a_stage_it_would_lose() -> None:
    stages = [("lowland", ["S"], [], ["S3"]), *OPEN, ("mountain", ["H", "H", "S", "H"], [], [])]
    opponent = ["H2", "H4", "D3", "D7", "C2", "C8", "S5", "H8"]
    state = position(stages, ["S7", "S9", "H6", "H7", "D5", "D6", "C6", "C7"], opponent)
    card, stage, side = move("beginner", state)
    assert (stage, side) != (1, 0)


def test_the_beginner_throws_low_cards_onto_a_stage_it_will_lose() -> None:
    # stage 2, a mountain: their side holds ♦K ♣K = 26; our best, ♦Q ♣Q, is 24 — lost
    stages = [
        ("lowland", ["S"], [], []),
        ("mountain", ["D", "C"], [], ["D13", "C13"]),
        ("lowland", ["C", "H", "H"], [], []),
        ("mountain", ["H", "H", "S", "H"], [], []),
    ]
    opponent = ["H13", "H12", "S13", "S11", "S9", "H11", "H10", "S7"]
    state = position(stages, ["D2", "D11", "C4", "H6", "H7", "S5", "H9", "C10"], opponent)
    assert move("beginner", state) == ("D2", 2, 0)


def test_the_stage_finisher_plays_on_the_stage_nearest_completion() -> None:
    stages = [
        ("lowland", ["S"], [], []),  # two open slots, but we hold no spade
        ("mountain", ["D", "D"], ["D12"], ["D3"]),  # two open slots, our ♦s fit
        ("lowland", ["C", "H", "H"], [], []),
        ("mountain", ["H", "H", "S", "H"], [], []),
    ]
    opponent = ["H2", "H4", "D5", "D7", "C2", "C8", "S3", "S5"]
    state = position(stages, ["D13", "D2", "H6", "H7", "H1", "C6", "C7", "C1"], opponent)
    card, stage, side = move("stage-finisher", state)
    assert stage == 2 and (card, side) in {("D13", 0), ("D2", 1)}


def test_the_high_card_hoarder_keeps_its_high_cards() -> None:
    stages = [("lowland", ["S"], [], []), *OPEN, ("mountain", ["H", "H", "S", "H"], [], [])]
    state = position(stages, ["H13", "H12", "D13", "D12", "C12", "H3", "S11", "D11"], OPPONENT)
    card, _, _ = move("high-hoarder", state)
    assert card == "H3"  # its one low card, though the high ones suit the mountains
    assert move("beginner", state)[0] != "H3"  # the beginner puts a high card on a mountain


def test_the_trophy_rusher_plays_for_its_suit() -> None:
    stages = [
        ("lowland", ["S"], [], []),
        ("mountain", ["D", "D"], [], []),
        ("lowland", ["C", "H", "H"], [], []),
        ("mountain", ["H", "H", "C", "H"], [], []),
    ]
    state = position(stages, ["S1", "D13", "D12", "H6", "H7", "C6", "C7", "C1"], OPPONENT)
    # nothing held yet: the cheapest trophy, ♠ (HL-1.4), and the only ♠ stage is stage 1
    assert move("trophy-rusher", state) == ("S1", 1, 0)
    assert move("beginner", state) != ("S1", 1, 0)  # the beginner plays a ♦ on the mountain


def test_every_style_claims_a_trophy_when_it_can_and_exchanges_when_stuck() -> None:
    """HL-6: at every trophy decision with a claim open each style claims; HL-3.4: stuck, it
    picks a hand card to throw first and ends the exchange only after a pick."""
    claims = exchanges = 0
    for seed in range(6):
        state = State.new(seed=seed)
        rng = np.random.default_rng(seed)
        agents = {style: make_agent(style, "heisse-luft", seed=seed) for style in LUFT_STYLES}
        while not state.is_terminal():
            seat = state.current_player
            view = state.view(seat)
            legal = view["legal_actions"]
            observation = {"action_mask": None}
            if view["phase"] == "trophy" and len(legal) > 1:
                for agent in agents.values():
                    assert agent.act(observation, view) >= CLAIM_TROPHY
                    assert agent.act(observation, view) != STOP_CLAIMING
                claims += 1
            elif view["phase"] == "exchange" and not view["exchange_selection"]:
                for agent in agents.values():
                    assert EXCHANGE_PICK <= agent.act(observation, view) < EXCHANGE_DONE
                exchanges += 1
            state.apply(int(legal[rng.integers(len(legal))]))
    assert claims and exchanges

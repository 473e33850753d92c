"""The rule-based agents of both games: legal play in every seat (all player counts) through the
AEC environments, seeded determinism, strength against random play, and their documented
strategy on hand-made positions (``State.from_dict`` → ``view``)."""

from __future__ import annotations

import pytest

from hot_envs import heisse_karten, heisse_karten_v0, heisse_luft, heisse_luft_v0
from hot_envs.agents.heuristic_karten import HeisseKartenHeuristic
from hot_envs.agents.heuristic_luft import HeisseLuftHeuristic
from hot_envs.agents.play import play_game
from hot_envs.agents.random_agent import RandomAgent
from hot_envs.heisse_luft.facts import action_name
from tests.heisse_karten.helpers import position as hk_position
from tests.heisse_luft.positions import CLAIM, STOP, play, position, stage

OWN, OPP = 0, 1

HEURISTICS = {"heisse_luft": HeisseLuftHeuristic, "heisse_karten": HeisseKartenHeuristic}
SETUPS = [("heisse_luft", heisse_luft_v0, {})] + [
    ("heisse_karten", heisse_karten_v0, {"num_players": n}) for n in range(2, 7)
]
IDS = ["heisse_luft"] + [f"heisse_karten-{n}p" for n in range(2, 7)]


def check_mask(name: str, observation: dict, view: dict, action: int) -> None:
    """``play_game`` hook: every action must be legal (else the wrapper ends the game, -1)."""
    assert observation["action_mask"][action] == 1, f"{name} chose masked action {action}"


class Recorder:
    def __init__(self) -> None:
        self.actions: list[int] = []

    def __call__(self, name: str, observation: dict, view: dict, action: int) -> None:
        check_mask(name, observation, view, action)
        self.actions.append(action)


# ---------------------------------------------------------------------- every seat, legal play


@pytest.mark.parametrize(("game", "module", "kwargs"), SETUPS, ids=IDS)
def test_full_games_in_every_seat(game, module, kwargs):
    """The heuristic in each seat against random players, and in every seat at once."""
    env = module.env(**kwargs)
    names = env.possible_agents
    heuristic = HEURISTICS[game]
    for seat, name in enumerate(names):
        agents = {n: RandomAgent(i) for i, n in enumerate(names)}
        agents[name] = heuristic(seed=seat)
        rewards = play_game(env, agents, seed=seat, on_action=check_mask)
        assert sum(rewards.values()) == pytest.approx(0.0)  # no illegal-move penalty
    agents = {n: heuristic(seed=i, epsilon=0.1) for i, n in enumerate(names)}
    rewards = play_game(env, agents, seed=99, on_action=check_mask)
    assert sum(rewards.values()) == pytest.approx(0.0)


@pytest.mark.parametrize(("game", "module", "kwargs"), SETUPS[:3], ids=IDS[:3])
def test_same_seed_same_actions(game, module, kwargs):
    def run(seed: int) -> list[int]:
        env = module.env(**kwargs)
        recorder = Recorder()
        agents = {
            n: HEURISTICS[game](seed=seed + i, epsilon=0.3)
            for i, n in enumerate(env.possible_agents)
        }
        play_game(env, agents, seed=4, on_action=recorder)
        return recorder.actions

    assert run(1) == run(1)
    assert run(1) != run(2)


@pytest.mark.parametrize("heuristic", HEURISTICS.values())
def test_epsilon_must_be_a_probability(heuristic):
    with pytest.raises(ValueError, match="epsilon"):
        heuristic(seed=0, epsilon=1.5)


# ---------------------------------------------------------------------- strength


def win_share(module, kwargs: dict, heuristic: type, games: int) -> float:
    """The heuristic's HK-4.3 win share (ties split) against random players, seats rotated."""
    env = module.env(**kwargs)
    names = env.possible_agents
    share = 0.0
    for game in range(games):
        hero = names[game % len(names)]
        agents = {n: RandomAgent(1000 + game * 10 + i) for i, n in enumerate(names)}
        agents[hero] = heuristic(seed=game)
        rewards = play_game(env, agents, seed=game, on_action=check_mask)
        best = max(rewards.values())
        winners = [n for n in names if rewards[n] == best]
        share += 1 / len(winners) if hero in winners else 0.0
    return share / games


def test_heisse_luft_heuristic_beats_random():
    assert win_share(heisse_luft_v0, {}, HeisseLuftHeuristic, 100) >= 0.9


def test_heisse_karten_heuristic_beats_random_two_players():
    assert win_share(heisse_karten_v0, {"num_players": 2}, HeisseKartenHeuristic, 100) >= 0.9


def test_heisse_karten_heuristic_beats_random_four_players():
    """Random play would get 1/4; the target is at least 2/4."""
    assert win_share(heisse_karten_v0, {"num_players": 4}, HeisseKartenHeuristic, 100) >= 0.45


# ---------------------------------------------------------------------- Heiße Luft positions


def luft_decision(state: heisse_luft.State) -> int:
    seat = state.current_player
    observation = {"action_mask": heisse_luft.action_mask(state, seat)}
    return HeisseLuftHeuristic(seed=0).act(observation, state.view(seat))


def test_luft_low_card_to_own_lowland_side():
    """A lowland stage needs one card on our side, the opponent has ♥7: the Ace wins it."""
    state = position(hands=(["H1", "H13"], ["D5"]), stages={1: stage("H", [], ["H7"])})
    assert luft_decision(state) == play("H1", 1, OWN)


def test_luft_high_card_to_own_mountain_side():
    state = position(
        hands=(["H1", "H13"], ["D5"]),
        stages={2: stage("HD", ["D3"], ["H7", "D2"], terrain="mountain")},
    )
    assert luft_decision(state) == play("H13", 2, OWN)


def test_luft_king_spoils_the_opponents_lowland_side():
    """Our lowland side holds ♥6, theirs is open: the King there wins, the Ace would lose."""
    state = position(hands=(["H1", "H13"], ["D5"]), stages={1: stage("H", ["H6"], [])})
    assert luft_decision(state) == play("H13", 1, OPP)


def test_luft_completing_a_tie_wins_it():
    """HL-4.3: ♥4 + ♦7 ties their ♥5 + ♦6 on a mountain; the last card's player wins."""
    state = position(
        hands=(["D2", "D7"], ["C6"]),
        stages={2: stage("HD", ["H4"], ["H5", "D6"], terrain="mountain")},
    )
    assert luft_decision(state) == play("D7", 2, OWN)


def test_luft_does_not_leave_the_last_slot_to_a_revealed_winning_card():
    """♥2 would leave their side one card short at 6 : 5 in a lowland; their revealed ♥1 would
    tie it and the tie would be theirs. Without that knowledge the ♥2 is the move."""
    stages = {
        2: stage("HH", ["H4"], ["H5"], terrain="lowland"),
        3: stage("DDC", terrain="mountain"),
    }
    hands = (["H2", "D5"], ["H1", "C6"])
    known = position(hands=hands, stages=stages, revealed_cards=[[], ["H1"]])
    unknown = position(hands=hands, stages=stages)
    assert luft_decision(unknown) == play("H2", 2, OWN)
    assert luft_decision(known) != play("H2", 2, OWN)


def test_luft_claims_a_trophy_when_it_can():
    state = position(
        hands=(["D7"], ["C6"]),
        stages={1: stage("C")},
        prizes_won=({"S": 4}, {}),
        phase="trophy",
        trophy_phase={"winner": 0, "asking": "winner"},
    )
    assert luft_decision(state) == CLAIM["S"]


def test_luft_does_not_claim_when_the_claim_hands_the_opponent_the_game():
    """Claiming ♥ would let the opponent (♣ trophy, 3 ♠ + 3 ♥) pay ♠ three for one: a second
    trophy for them right after (HL-6.2, HL-6.4, HL-7.1)."""
    state = position(
        hands=(["D7"], ["C6"]),
        stages={1: stage("C")},
        prizes_won=({"H": 7}, {"S": 3, "H": 3}),
        trophies=("", "C"),
        phase="trophy",
        trophy_phase={"winner": 0, "asking": "winner"},
    )
    assert luft_decision(state) == STOP


def test_luft_exchange_throws_the_middling_cards():
    """Stuck (only a spade fits): the four cards nearest to 7 go, Aces and Kings stay."""
    hand = ["H1", "H13", "H7", "D6", "D8", "C7", "C1", "C13"]
    state = position(hands=(hand, ["D5"]), stages={1: stage("S")})
    agent = HeisseLuftHeuristic(seed=0)
    picks = []
    while state.current_player == 0 and state.view(0)["phase"] == "exchange":
        action = agent.act({"action_mask": heisse_luft.action_mask(state, 0)}, state.view(0))
        picks.append(action_name(action))
        state.apply(action)
    assert picks == ["exchange ♥7", "exchange ♣7", "exchange ♦6", "exchange ♦8"]


# ---------------------------------------------------------------------- Heiße Karten positions


def karten_decision(d: dict) -> int:
    """The card (1–48) the heuristic plays in the position ``d``."""
    state = heisse_karten.State.from_dict(d)
    seat = state.current_player
    observation = {"action_mask": heisse_karten.action_mask(state, seat)}
    return HeisseKartenHeuristic(seed=0).act(observation, state.view(seat)) + 1


def test_karten_last_player_dumps_a_red_card_under_a_red_trick():
    """Last of four, the trick holds only red cards: throw the 3 under the 45, never take the
    trick with the 48 or the 20."""
    d = hk_position([[10, 5], [12, 7], [14, 9], [48, 3, 20]], trick=[45, 43, 41])
    assert karten_decision(d) == 3


def test_karten_wins_a_black_trick_with_the_smallest_sufficient_black():
    """The opponent led black 40: the 42 takes it; the 48 is kept."""
    assert karten_decision(hk_position([[10, 11], [42, 48, 7]], trick=[40])) == 42


def test_karten_dumps_its_biggest_red_on_a_trick_it_cannot_win():
    """48 leads the trick: the 47 goes to its taker."""
    assert karten_decision(hk_position([[10, 5], [12, 7], [47, 3, 20]], trick=[48, 11])) == 47


def test_karten_leads_a_low_card():
    hands = [[2, 48, 47, 25, 33, 44, 17, 30], [1, 3, 4, 5, 6, 7, 8, 9]]
    assert karten_decision(hk_position(hands, draw_pile=list(range(10, 16)))) == 2

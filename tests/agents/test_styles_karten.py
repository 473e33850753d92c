"""The Heiße Karten styles of the opponent suite (hot_envs.agents.styles_karten): legal moves
through whole games at every table size, and each plays as its docstring says."""

from __future__ import annotations

import pytest

from hot_envs import heisse_karten_v0
from hot_envs.agents import STYLES, make_agent
from hot_envs.agents.play import play_game
from hot_envs.heisse_karten import State
from hot_envs.heisse_karten.facts import CARDS, TRICK_RANK

KARTEN_STYLES = [name for name, (game, _, _) in STYLES.items() if game == "heisse-karten"]


@pytest.mark.parametrize("players", range(2, 7))
@pytest.mark.parametrize("style", KARTEN_STYLES)
def test_a_style_plays_legal_moves_in_every_seat(style: str, players: int) -> None:
    env = heisse_karten_v0.env(num_players=players)
    agents = {name: make_agent(style, "heisse-karten", seed=i) for i, name in enumerate(
        env.possible_agents)}  # fmt: skip
    agents["player_1"] = make_agent("heuristic", "heisse-karten", seed=9)  # a mixed table

    def check(name, observation, view, action) -> None:
        assert observation["action_mask"][action] == 1

    rewards = play_game(env, agents, seed=players, on_action=check)
    assert env.unwrapped.game.is_terminal()
    assert sum(rewards.values()) == pytest.approx(0.0)


def position(hands: list[list[int]], trick: list[int], leader: int = 0) -> State:
    """A first-trick position: these hands, ``trick`` played from ``leader`` on, the rest of
    the cards in the draw pile (HK-2.2)."""
    n = len(hands)
    used = {c for hand in hands for c in hand} | set(trick)
    played = [[(leader + i) % n, card] for i, card in enumerate(trick)]
    return State.from_dict(
        {
            "game": "heisse_karten",
            "num_players": n,
            "current_player": (leader + len(trick)) % n,
            "leader": leader,
            "hands": [sorted(hand) for hand in hands],
            "draw_pile": [c for c in CARDS if c not in used],
            "set_aside": [],
            "trick": played,
            "taken": [[] for _ in hands],
            "played": played,
            "options": {"first_leader": leader, "reward_mode": "win", "rounds": 1,
                        "target": None},
            "totals": [0] * n,
            "round": 0,
        }
    )  # fmt: skip


def act(spec: str, state: State) -> int:
    """The card ``spec`` plays for the player to move."""
    agent = make_agent(spec, "heisse-karten", seed=0)
    seat = state.current_player
    observation = {"observation": None, "action_mask": None}
    return agent.act(observation, state.view(seat)) + 1  # HK-1.2


OTHER = [5, 9, 13, 20, 22, 24, 26, 28]  # hand of the seat that has played (and drawn)
FILL = [15, 17, 19, 21]  # red cards that change none of the answers below


def test_the_dumper_plays_its_lowest_card() -> None:
    assert act("low-dumper", position([OTHER, [3, 30, 44, 47, *FILL]], [40])) == 3
    assert act("low-dumper", position([[7, 11, 46, 48, *FILL], OTHER], [])) == 7  # leading too


def test_the_trick_taker_wins_with_its_cheapest_winner_and_leads_its_strongest() -> None:
    # 40 (black) leads: 44 and 46 beat it, 44 is the cheaper winner (HK-3.2)
    assert act("trick-taker", position([OTHER, [3, 44, 46, 47, *FILL]], [40])) == 44
    # a red 35 leads: 45, 47 and every black beat it; red 45 is the lowest-ranked winner
    assert act("trick-taker", position([OTHER, [2, 45, 46, 47, 1, 3, 7, 11]], [35])) == 45
    assert act("trick-taker", position([[7, 11, 46, 48, *FILL], OTHER], [])) == 48
    # nothing beats a 48: it throws its weakest card
    assert act("trick-taker", position([OTHER, [3, 44, 47, 23, *FILL]], [48])) == 3


def test_the_avoider_ducks_when_it_can_and_leads_its_weakest() -> None:
    # under the black 40: every red and the blacks below 40; the strongest of them is 38
    assert act("trick-avoider", position([OTHER, [3, 38, 44, 47, *FILL]], [40])) == 38
    # under a red 35: only lower reds; 33 is the strongest that ducks
    assert act("trick-avoider", position([OTHER, [2, 33, 41, 46, 1, 3, 7, 11]], [35])) == 33
    # every card beats a red 1: it plays the weakest
    assert act("trick-avoider", position([OTHER, [42, 44, 3, 7, *FILL]], [1])) == 3
    assert act("trick-avoider", position([[7, 11, 46, 48, *FILL], OTHER], [])) == 7


def test_the_avoider_never_takes_a_trick_it_could_avoid_in_whole_games() -> None:
    for players in (2, 4):
        state = State.new(seed=players, num_players=players)
        agent = make_agent("trick-avoider", "heisse-karten", seed=1)
        ducked = 0
        while not state.is_terminal():
            view = state.view(state.current_player)
            card = agent.act({"action_mask": None}, view) + 1
            if view["trick"]:
                best = max(TRICK_RANK[c] for _, c in view["trick"])
                if any(TRICK_RANK[c] < best for c in view["hand"]):
                    assert TRICK_RANK[card] < best
                    ducked += 1
            state.apply(card - 1)
        assert ducked > 5  # the check ran


def test_the_card_counter_plays_the_most_points_for_this_trick() -> None:
    # two players, the last to play: 42 takes +82; any red gives the opponent the trick
    assert act("card-counter", position([OTHER, [3, 42, 23, 25, *FILL]], [40])) == 42
    # a red 47 led: 45 leaves the opponent −92 (good for us), 2 would take −45
    assert act("card-counter", position([OTHER, [2, 45, 23, 25, *FILL]], [47])) == 45
    # it spends its 48 on the first trick that pays: +20 + 48 now
    hands = [[5, 9, 13, 22, 24, 26, 28, 30], [3, 7, 11, 48, *FILL]]
    assert act("card-counter", position(hands, [20])) == 48


def test_a_style_of_the_other_game_is_refused() -> None:
    with pytest.raises(ValueError, match="Heiße Karten style, not one for Heiße Luft"):
        make_agent("trick-avoider", "heisse-luft")
    with pytest.raises(ValueError, match="not a number"):
        make_agent("low-dumper:x", "heisse-karten")
    assert make_agent("low-dumper:0.5", "heisse-karten").epsilon == 0.5

"""One test (or more) per rule of Heiße Karten, named by its id (docs/rules.md HK-1 … HK-5)."""

from __future__ import annotations

import pytest

from hot_envs.heisse_karten import NUM_ACTIONS, State, action_name
from hot_envs.heisse_karten.facts import CARD_VALUE, TRICKS_PER_ROUND, score_returns, win_returns
from tests.heisse_karten.helpers import play_out, position, random_states

EVENS = list(range(2, 49, 2))
ODDS = list(range(1, 49, 2))


def play(state: State, *cards: int) -> State:
    for card in cards:
        state.apply(card - 1)
    return state


def test_hk_1_1_black_cards_count_plus_red_cards_minus():
    """HK-1.1 even cards are black (+value), odd cards red (-value)."""
    assert all(CARD_VALUE[c] == c for c in EVENS)
    assert all(CARD_VALUE[c] == -c for c in ODDS)
    state = State.from_dict(position([[10, 3], [7, 5]]))
    before = state.scores.copy()
    play(state, 10, 7)  # black 10 wins: +10 - 7
    assert state.scores[0] - before[0] == 3
    play(state, 3, 5)  # only red cards: 5 wins, -3 - 5
    assert state.scores[1] - before[1] == -8


def test_hk_1_2_action_k_minus_1_plays_card_k():
    """HK-1.2 action k - 1 plays card k; 48 actions."""
    assert NUM_ACTIONS == 48
    state = State.from_dict(position([[5, 36], [7, 9]]))
    assert state.legal_actions() == [4, 35]
    assert action_name(35) == state.action_name(35) == "play 36"
    state.apply(35)
    assert state.trick == [36]


@pytest.mark.parametrize("num_players", range(2, 7))
def test_hk_2_1_play_goes_in_seat_order(num_players):
    """HK-2.1 seats player_0 … player_{N-1}; play goes in seat order, from the leader round."""
    state = State.new(3, num_players, first_leader=num_players - 1)
    movers = []
    for _ in range(num_players):
        movers.append(state.current_player)
        state.apply(state.legal_actions()[0])
    assert movers == [(num_players - 1 + i) % num_players for i in range(num_players)]


@pytest.mark.parametrize(("num_players", "draw_pile"), [(2, 32), (3, 24), (4, 16), (5, 5), (6, 0)])
def test_hk_2_2_deal_8_cards_each_rest_is_draw_pile(num_players, draw_pile):
    """HK-2.2 8 cards to each player, the rest face down as the draw pile."""
    state = State.new(7, num_players)
    d = state.to_dict()
    assert [len(hand) for hand in d["hands"]] == [8] * num_players
    assert len(d["draw_pile"]) == state.draw_pile_size == draw_pile
    dealt = [c for hand in d["hands"] for c in hand] + d["draw_pile"] + d["set_aside"]
    assert sorted(dealt) == list(range(1, 49))
    assert State.new(7, num_players).to_dict() == d
    assert State.new(8, num_players).to_dict() != d


def test_hk_2_3_five_players_set_three_cards_aside_unseen():
    """HK-2.3 with 5 players 3 cards are set aside unseen: 45 cards are played, 9 tricks."""
    state = State.new(11, 5)
    set_aside = state.to_dict()["set_aside"]
    assert len(set_aside) == 3
    for seat in range(5):
        view = state.view(seat)
        assert view["set_aside_count"] == 3
        assert not set(set_aside) & set(view["hand"])
    play_out(state, 11)
    assert len(state.played) == 45
    assert not set(set_aside) & {card for _, card in state.played}
    assert sum(len(pile) for pile in state.taken) == 45
    for num_players in (2, 3, 4, 6):
        assert State.new(11, num_players).set_aside == []


def test_hk_2_4_player_0_leads_unless_configured():
    """HK-2.4 player_0 leads the first trick; option first_leader (a seat or "random")."""
    assert State.new(1, 4).current_player == 0
    state = State.new(1, 4, first_leader=2)
    assert state.leader == state.current_player == 2
    leaders = {State.new(seed, 4, first_leader="random").current_player for seed in range(40)}
    assert leaders == {0, 1, 2, 3}
    a, b = State.new(5, 4, first_leader="random"), State.new(5, 4, first_leader="random")
    assert a.to_dict() == b.to_dict()
    assert a.options["first_leader"] == a.current_player  # resolved, so a round trip keeps it


def test_hk_3_1_play_any_card_then_draw_at_once():
    """HK-3.1 the mover plays any hand card and at once draws the top card while there is one;
    there is no duty to follow."""
    state = State.from_dict(position([[2, 4], [5, 8]], draw_pile=[10, 12]))
    play(state, 2)
    assert state.hands[0] == [4, 10]
    assert state.legal_actions() == [4, 7]  # red 5 and black 8 are both legal after a black lead
    play(state, 5)
    assert state.hands[1] == [8, 12]
    assert state.draw_pile_size == 0
    play(state, 4)  # the pile is empty: no draw
    assert state.hands[0] == [10]


@pytest.mark.parametrize(
    ("cards", "winner", "value"),
    [
        ([17, 30, 44, 47], 2, 10),  # docs/rules.md example 1: highest black card wins
        ([3, 9, 47, 15], 2, -74),  # example 2: no black card, highest red card wins
        ([47, 2], 1, -45),  # any black card beats every red card
        ([1, 3, 5], 2, -9),
        ([48, 46, 45, 44, 43, 42], 0, 48 + 46 - 45 + 44 - 43 + 42),
    ],
)
def test_hk_3_2_highest_black_card_wins_else_highest_red(cards, winner, value):
    """HK-3.2 a trick with a black card goes to the highest black card, else the highest red."""
    state = State.from_dict(position([[card] for card in cards]))
    before = state.scores.copy()
    play(state, *cards)
    gained = [after - b for after, b in zip(state.scores, before, strict=True)]
    assert gained == [value if seat == winner else 0 for seat in range(len(cards))]


def test_hk_3_3_winner_takes_the_trick_and_leads():
    """HK-3.3 the winner takes the trick face down and leads the next one."""
    state = State.from_dict(position([[1, 7], [40, 9], [2, 11]], leader=1))
    assert state.current_player == 1
    play(state, 40, 2, 1)
    assert state.trick == []
    assert {40, 2, 1} <= set(state.taken[1])
    assert state.leader == state.current_player == 1
    assert state.legal_actions() == [8]


@pytest.mark.parametrize("num_players", range(2, 7))
def test_hk_3_4_hands_are_played_out_and_the_game_ends(num_players):
    """HK-3.4 once the pile is empty the hands are played out; the game ends with empty hands."""
    state = play_out(State.new(num_players, num_players), num_players)
    assert state.is_terminal() and state.current_player is None
    assert state.legal_actions() == []
    assert state.hands == [[]] * num_players
    assert len(state.played) == num_players * TRICKS_PER_ROUND[num_players]
    state = State.from_dict(position([[2, 6], [4, 8]]))
    play(state, 2, 4)
    assert not state.is_terminal()
    play(state, 8, 6)
    assert state.is_terminal() and state.hands == [[], []]


def test_hk_4_1_score_is_black_minus_red_and_can_be_negative():
    """HK-4.1 score: black cards taken minus red cards taken; negative scores are possible."""
    state = State.from_dict(position([[], []], taken=[ODDS, EVENS]))
    assert state.scores == [-576, 600]
    assert state.is_terminal()


def test_hk_4_2_highest_score_wins_ties_share():
    """HK-4.2 the highest score wins; players tied for it share the win."""
    rest = [c for c in range(1, 49) if c not in (12, 2, 4, 6)]
    state = State.from_dict(position([[], [], []], taken=[[12], [2, 4, 6], rest]))
    assert state.scores == [12, 12, 0]
    assert state.winners() == [0, 1]
    assert state.returns() == [0.5, 0.5, -1.0]


def test_hk_4_3_zero_sum_rewards():
    """HK-4.3 winners +1/W, others -1/(N-W), all 0 on a full tie; score mode documented."""
    assert win_returns([40, 40, -10, 5]) == [0.5, 0.5, -0.5, -0.5]  # docs/rules.md example 3
    assert win_returns([9, 1, 2, 3]) == [1.0, -1 / 3, -1 / 3, -1 / 3]
    assert win_returns([7, 7, 7]) == [0.0, 0.0, 0.0]
    assert score_returns([300, 0, -300], 1) == [1.5, 0.0, -1.5]
    assert sum(score_returns([40, 40, -10, 5], 3)) == pytest.approx(0)
    state = State.new(2, 4, reward_mode="score")
    assert state.returns() == [0.0] * 4  # nothing before the end
    play_out(state, 2)
    assert state.returns() == score_returns(state.scores, 1)
    assert sum(state.returns()) == pytest.approx(0)


def test_hk_4_4_match_of_fixed_rounds():
    """HK-4.4 a match of fixed rounds: first leader moves one seat per round, totals carried."""
    state = State.new(21, 3, rounds=4, first_leader=1)
    totals, leaders = [[0, 0, 0]], [state.current_player]
    for _ in random_states(state, 21):
        if not state.round_finished:
            assert state.round_returns() is None
            continue
        round_scores = [now - before for now, before in zip(state.totals, totals[-1], strict=True)]
        totals.append(state.totals)
        assert sum(round_scores) == 24  # every card is taken: 600 - 576
        assert state.round_returns() == win_returns(round_scores)
        if not state.is_terminal():
            leaders.append(state.current_player)
            assert state.round == len(leaders) - 1
            assert state.scores == [0, 0, 0] and [len(hand) for hand in state.hands] == [8] * 3
    assert leaders == [1, 2, 0, 1]
    assert len(totals) == 5 and state.round == 3
    assert state.returns() == win_returns(state.totals)


def test_hk_4_4_match_to_a_target():
    """HK-4.4 a match to a target ends after the round in which a total reaches it."""
    state = State.new(4, 4, target=150)
    for _ in random_states(state, 4):
        if state.round_finished and not state.is_terminal():
            assert max(state.totals) < 150
    assert max(state.totals) >= 150
    assert state.winners() == [state.totals.index(max(state.totals))]
    capped = play_out(State.new(4, 4, target=10**6, rounds=2), 4)
    assert capped.round == 1 and capped.is_terminal() and not capped.is_truncated()


def test_hk_4_4_a_match_is_decided_on_totals_and_a_tie_on_totals_shares_the_win():
    """HK-4.4 with HK-4.2 the match winners are the highest totals, not the last round's best:
    here the last round alone is player_0's, the totals before it player_2's, the match a tie."""
    match = {"first_leader": 0, "reward_mode": "win", "rounds": 2, "target": None}
    d = position([[48], [1], [3]], totals=[10, 54, 60], round=1, options=match)
    state = State.from_dict(d)
    play(state, 48, 1, 3)  # 48 - 1 - 3 = 44 to player_0; the rest (-20) lies with player_2
    assert state.is_terminal()
    assert state.scores == [44, 0, -20] and state.round_returns() == [1.0, -0.5, -0.5]
    assert state.totals == [54, 54, 40]
    assert state.winners() == [0, 1] and state.returns() == [0.5, 0.5, -1.0]


def test_hk_5_view_shows_exactly_the_public_table_and_own_hand():
    """HK-5 public: played cards and who, trick, scores, leader, hand sizes, pile size, number of
    players, set-aside count; private: own hand; nobody: draw pile order, set-aside cards."""
    state = State.new(13, 5)
    play(state, *[state.hands[seat][0] for seat in range(3)])
    view = state.view(4)
    assert set(view) == {
        "game", "player", "num_players", "current_player", "leader", "hand", "hand_sizes",
        "draw_pile_size", "set_aside_count", "trick", "played", "taken", "scores", "totals",
        "round", "options", "legal_actions",
    }  # fmt: skip
    assert view["hand"] == state.hands[4]
    assert view["trick"] == view["played"] == [[seat, card] for seat, card in state.played]
    assert view["hand_sizes"] == [8] * 5 and view["draw_pile_size"] == 2
    assert view["set_aside_count"] == 3
    assert view["legal_actions"] == [] and state.view(3)["legal_actions"] == state.legal_actions()
    hidden = {c for seat in range(4) for c in state.hands[seat]} | set(state.set_aside)
    shown = (
        set(view["hand"]) | {c for _, c in view["played"]} | {c for p in view["taken"] for c in p}
    )
    assert not hidden & shown

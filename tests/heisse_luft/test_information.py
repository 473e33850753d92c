"""No hidden information leaks (HL-8 in docs/rules.md).

A player's observation, view, action mask and rendered table must depend only on what that player
may know. Positions come from random games stopped after a random number of actions; hidden parts
are then changed through ``to_dict``/``from_dict``.
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hot_envs import heisse_luft_v0
from hot_envs.heisse_luft import LAYOUT, State, action_mask, encode
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    CARD_INDEX,
    CARD_VALUE,
    EXCHANGE_PICK,
    HAND_SIZE,
    NUM_CARDS,
    NUM_STAGES,
    SUIT_SIZES,
    SUITS,
)

from .positions import position, stage
from .random_games import play_random_actions

# ---------------------------------------------------------------------- positions and edits

seeds = st.integers(0, 2**32 - 1)
positions_settings = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def positions(draw) -> State:
    """A state met in a random game (any option), after 0–150 random actions."""
    options = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "three_for_one": st.booleans(),
                "starting_player": st.sampled_from([0, 1, "random"]),
            },
        )
    )
    state = State.new(seed=draw(seeds), **options)
    return play_random_actions(state, draw(seeds), draw(st.integers(0, 150)))


observers = st.sampled_from([0, 1])


def hidden_from(d: dict, observer: int) -> set[str]:
    """The balloon cards ``observer`` cannot see: the opponent's unrevealed hand cards and the
    draw pile."""
    opponent = 1 - observer
    unrevealed = set(d["hands"][opponent]) - set(d["revealed_cards"][opponent])
    return unrevealed | set(d["draw_pile"])


def playable_cards(state: State) -> set[str]:
    """The mover's hand cards that fit somewhere (from the legal play actions)."""
    return {CARD_CODES[a // 8] for a in state.legal_actions() if a < EXCHANGE_PICK}


def swap_hand_and_draw_pile(state: State, observer: int, rng: random.Random) -> dict:
    """``state``'s dict with some of the opponent's unrevealed hand cards swapped with draw-pile
    cards. A mover in the play phase keeps the cards it can play, so it stays able to play (a
    mover without a fitting card would be a different, public, situation: a stuck turn)."""
    d = copy.deepcopy(state.to_dict())
    opponent = 1 - observer
    keep = set(d["revealed_cards"][opponent])
    if d["phase"] == "play" and state.current_player == opponent:
        keep |= playable_cards(state)
    hand, pile = d["hands"][opponent], d["draw_pile"]
    swappable = [i for i, code in enumerate(hand) if code not in keep]
    most = min(len(swappable), len(pile))
    n = rng.randint(min(1, most), most)
    for i, j in zip(rng.sample(swappable, n), rng.sample(range(len(pile)), n), strict=True):
        hand[i], pile[j] = pile[j], hand[i]
    return d


def shuffle_draw_pile(state: State, observer: int, rng: random.Random) -> dict:
    d = copy.deepcopy(state.to_dict())
    rng.shuffle(d["draw_pile"])
    return d


def shuffle_prize_deck(state: State, observer: int, rng: random.Random) -> dict:
    d = copy.deepcopy(state.to_dict())
    rng.shuffle(d["prize_deck"])
    return d


HIDDEN_EDITS = [swap_hand_and_draw_pile, shuffle_draw_pile, shuffle_prize_deck]
hidden_edits = st.sampled_from(HIDDEN_EDITS)


def assert_same_for(observer: int, a: State, b: State) -> None:
    """``observer`` cannot tell ``a`` from ``b``."""
    np.testing.assert_array_equal(encode(a, observer), encode(b, observer))
    np.testing.assert_array_equal(action_mask(a, observer), action_mask(b, observer))
    assert a.view(observer) == b.view(observer)
    assert a.render(viewer=observer) == b.render(viewer=observer)


# ---------------------------------------------------------------------- (a) hidden edits


@positions_settings
@given(state=positions(), observer=observers, edit=hidden_edits, edit_seed=seeds)
def test_changing_what_a_player_cannot_see_changes_nothing_they_get(
    state, observer, edit, edit_seed
):
    """HL-8: the opponent's unrevealed hand, the draw-pile order and the prize-deck order are
    hidden: changing them leaves the player's observation, mask, view and table unchanged."""
    edited = State.from_dict(edit(state, observer, random.Random(edit_seed)))
    assert_same_for(observer, state, edited)


@positions_settings
@given(state=positions(), edit=hidden_edits, edit_seed=seeds)
def test_changing_hidden_cards_leaves_the_public_table_unchanged(state, edit, edit_seed):
    """render(viewer=None) shows no hand and no pile order."""
    edited = State.from_dict(edit(state, 0, random.Random(edit_seed)))
    assert edited.render(viewer=None) == state.render(viewer=None)


def test_hidden_edits_do_change_the_hidden_cards():
    """The edits above are not empty: they change the full state (so the tests can fail)."""
    state = play_random_actions(State.new(seed=3), choice_seed=3, n=20)
    for edit in HIDDEN_EDITS:
        changed = [edit(state, 0, random.Random(k)) != state.to_dict() for k in range(5)]
        assert any(changed), edit.__name__


def env_observations_after_hidden_edit(make_env, engine, seed: int, steps: int, edit):
    """Play ``steps`` random steps in ``make_env()``, then swap ``env.unwrapped.game`` for an
    edited copy; return each agent's observation before and after the swap."""
    env = make_env()
    env.reset(seed=seed)
    chooser = np.random.default_rng(seed)
    for _ in range(steps):
        if env.unwrapped.game.is_terminal():
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(chooser.choice(np.flatnonzero(mask))))
    game = env.unwrapped.game
    observer = int(env.agent_selection.rsplit("_", 1)[1])
    before = {agent: env.observe(agent) for agent in env.agents}
    env.unwrapped.game = engine.from_dict(edit(game, observer, random.Random(seed)))
    after = {agent: env.observe(agent) for agent in env.agents}
    return env.agent_selection, before, after


def test_env_observation_ignores_hidden_cards():
    """Through the environment: the player to move gets the same observation after the hidden
    parts of ``env.unwrapped.game`` were changed."""
    for seed in range(30):
        for edit in HIDDEN_EDITS:
            agent, before, after = env_observations_after_hidden_edit(
                heisse_luft_v0.env, State, seed, steps=seed % 40, edit=edit
            )
            for key in ("observation", "action_mask"):
                np.testing.assert_array_equal(before[agent][key], after[agent][key])


# ---------------------------------------------------------------------- (b) from_view


@positions_settings
@given(state=positions(), observer=observers, rng_seed=seeds)
def test_from_view_states_show_the_same_view(state, observer, rng_seed):
    """A state built from a player's view gives that player the same view and observation."""
    sampled = State.from_view(state.view(observer), rng_seed)
    assert_same_for(observer, state, sampled)


@positions_settings
@given(state=positions(), observer=observers, rng_seed=seeds)
def test_from_view_states_are_valid(state, observer, rng_seed):
    """A sampled state passes from_dict's checks again (it round-trips)."""
    sampled = State.from_view(state.view(observer), rng_seed)
    d = sampled.to_dict()
    assert State.from_dict(d).to_dict() == d


@positions_settings
@given(state=positions(), observer=observers, rng_seed=seeds)
def test_from_view_deals_exactly_the_cards_the_player_cannot_see(state, observer, rng_seed):
    """The hidden places (opponent's unrevealed hand, draw pile) get the hidden cards, and the
    prize deck keeps its composition."""
    sampled = State.from_view(state.view(observer), rng_seed).to_dict()
    true = state.to_dict()
    assert hidden_from(sampled, observer) == hidden_from(true, observer)
    assert sorted(sampled["prize_deck"]) == sorted(true["prize_deck"])


def test_from_view_with_the_same_rng_seed_gives_the_same_state():
    state = play_random_actions(State.new(seed=5), choice_seed=5, n=30)
    view = state.view(0)
    assert State.from_view(view, 9).to_dict() == State.from_view(view, 9).to_dict()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=positions(), observer=observers)
def test_from_view_deals_the_hidden_cards_differently_for_different_rngs(state, observer):
    """Determinisation samples: with at least two ways to lay out the hidden cards (and prize
    deck), different generators give different layouts."""
    d = state.to_dict()
    unknown = len(hidden_from(d, observer)) - len(d["draw_pile"])
    layouts = set()
    for rng_seed in range(12):
        sampled = State.from_view(state.view(observer), rng_seed).to_dict()
        hand = tuple(sorted(sampled["hands"][1 - observer]))
        layouts.add((hand, tuple(sampled["draw_pile"]), tuple(sampled["prize_deck"])))
    pile, deck = len(d["draw_pile"]), d["prize_deck"]
    if (unknown and pile) or pile >= 2 or len(set(deck)) >= 2:
        assert len(layouts) > 1


def stuck_if_dealt_badly() -> State:
    """player_1 to move with one playable card: ♠K, the only spade not in player_0's hand or on
    the table. Stage 1 (prize ♠) needs a spade on player_0's side; no other stage is open."""
    return position(
        hands=(
            ["S3", "S5", "S7", "S9", "S11", "H1", "H2", "H3"],
            ["S13", "H4", "H5", "H6", "H7", "H8", "H9", "H10"],
        ),
        stages={1: stage("S", [], ["S1"])},
        current_player=1,
    )


def test_from_view_never_deals_a_stuck_hand_to_a_mover_who_can_play():
    """The position of player_1 in the play phase tells player_0 that player_1 holds a fitting
    card; a determinisation must respect that, else its view changes (phase 'exchange')."""
    state = stuck_if_dealt_badly()
    assert state.to_dict()["phase"] == "play"
    view = state.view(0)
    for rng_seed in range(20):
        assert State.from_view(view, rng_seed).view(0) == view


# ---------------------------------------------------------------------- (c) the view dict

VIEW_KEYS = {
    "player",
    "phase",
    "current_player",
    "hand",
    "opponent_hand_size",
    "known_opponent_cards",
    "draw_pile_size",
    "discard_pile",
    "prize_deck_size",
    "prize_deck_counts",
    "exchange_selection",
    "stages",
    "prizes_won",
    "trophies",
    "pass_streak",
    "turn",
    "options",
    "legal_actions",
}
PUBLIC_STATE_KEYS = {"game", "trophy_cards", "revealed_cards", "trophy_phase", "winner"}


@positions_settings
@given(state=positions(), observer=observers)
def test_view_holds_the_design_keys_and_no_hidden_pile(state, observer):
    """The view dict (docs/environments.md, "Looking inside"): the listed keys, public state
    keys, and no hands, draw pile or prize deck order."""
    view = state.view(observer)
    assert VIEW_KEYS <= set(view) <= VIEW_KEYS | PUBLIC_STATE_KEYS
    assert not {"hands", "draw_pile", "prize_deck"} & set(view)


def strings_in(value) -> set[str]:
    """Every string anywhere inside a JSON-like value, keys included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*map(strings_in, value.values()))
    if isinstance(value, list):
        return set().union(*map(strings_in, value))
    return set()


@positions_settings
@given(state=positions(), observer=observers)
def test_view_names_no_hidden_card(state, observer):
    """No card code of the opponent's unrevealed hand or of the draw pile appears in the view,
    and the view is JSON text as it is."""
    view = state.view(observer)
    assert json.loads(json.dumps(view)) == view
    assert not strings_in(view) & hidden_from(state.to_dict(), observer)


def test_legal_actions_are_only_in_the_movers_view():
    state = State.new(seed=1)
    mover = state.current_player
    assert state.view(mover)["legal_actions"] == state.legal_actions()
    assert state.view(1 - mover)["legal_actions"] == []


# ---------------------------------------------------------------------- (d) the observation table


def one_hot(codes: list[str]) -> np.ndarray:
    vector = np.zeros(NUM_CARDS, dtype=np.float32)
    vector[[CARD_INDEX[c] for c in codes]] = 1
    return vector


def suit_counts(codes: list[str]) -> list[int]:
    return [sum(code[0] == suit for code in codes) for suit in SUITS]


def side_sum(codes: list[str]) -> int:
    return sum(CARD_VALUE[CARD_INDEX[c]] for c in codes)


def stage_winner_now(stage: dict) -> int | None:
    """HL-4.2/4.3 who would win the stage with its cards now (None: no card placed)."""
    if stage["last_player"] is None:
        return None
    sums = [side_sum(side) for side in stage["sides"]]
    if sums[0] == sums[1]:
        return stage["last_player"]
    lower_wins = stage["terrain"] == "lowland"
    return 0 if (sums[0] < sums[1]) == lower_wins else 1


def expected_stage_pieces(view: dict, me: int) -> dict[str, np.ndarray]:
    """The stage pieces as the table describes them, from the view; a stage out of the game
    reads all zeros."""
    pieces = {
        "stage_in_play": np.zeros(NUM_STAGES),
        "stage_mountain": np.zeros(NUM_STAGES),
        "stage_prizes": np.zeros((NUM_STAGES, 4)),
        "stage_cards": np.zeros((NUM_STAGES, 2, NUM_CARDS)),
        "stage_last": np.zeros((NUM_STAGES, 2)),
        "stage_sums": np.zeros((NUM_STAGES, 2)),
        "stage_missing": np.zeros((NUM_STAGES, 2, 4)),
        "stage_leading": np.zeros((NUM_STAGES, 2)),
    }
    seats = (me, 1 - me)
    for i, at_stage in enumerate(view["stages"]):
        if not at_stage["in_play"]:
            continue
        need = np.array(suit_counts(at_stage["prizes"]))
        pieces["stage_in_play"][i] = 1
        pieces["stage_mountain"][i] = at_stage["terrain"] == "mountain"
        pieces["stage_prizes"][i] = need / 4
        for rel, seat in enumerate(seats):
            side = at_stage["sides"][seat]
            pieces["stage_cards"][i, rel] = one_hot(side)
            pieces["stage_sums"][i, rel] = side_sum(side) / 52
            pieces["stage_missing"][i, rel] = (need - suit_counts(side)) / 4
            pieces["stage_last"][i, rel] = at_stage["last_player"] == seat
            pieces["stage_leading"][i, rel] = stage_winner_now(at_stage) == seat
    return pieces


def expected_pieces(view: dict) -> dict[str, np.ndarray]:
    """Every piece of LAYOUT as its table row describes it, computed from the view alone."""
    me = view["player"]
    seats = (me, 1 - me)
    sizes = np.array(SUIT_SIZES)
    awarded = view["trophies"][0] + view["trophies"][1]
    trophy_phase = view["trophy_phase"]
    options = view["options"]
    return {
        "hand": one_hot(view["hand"]),
        "my_revealed": one_hot(view["revealed_cards"][me]),
        "opponent_known": one_hot(view["known_opponent_cards"]),
        "opponent_hand_size": [view["opponent_hand_size"] / HAND_SIZE],
        "exchange_selection": one_hot(view["exchange_selection"]),
        "discard_pile": one_hot(view["discard_pile"]),
        **expected_stage_pieces(view, me),
        "prizes_won": [[view["prizes_won"][p][s] for s in SUITS] / sizes for p in seats],
        "trophy_cards": [[view["trophy_cards"][p][s] for s in SUITS] / sizes for p in seats],
        "trophies": [[s in view["trophies"][p] for s in SUITS] for p in seats],
        "awarded": [s in awarded for s in SUITS],
        "prize_deck_counts": [view["prize_deck_counts"][s] for s in SUITS] / sizes,
        "prize_deck_size": [view["prize_deck_size"] / 40],
        "draw_pile_size": [view["draw_pile_size"] / NUM_CARDS],
        "pass_streak": [view["pass_streak"]],
        "phase": [view["phase"] == phase for phase in ("play", "exchange", "trophy")],
        "trophy_role": [
            trophy_phase is not None and (trophy_phase["winner"] == me) == is_winner
            for is_winner in (True, False)
        ],
        "to_move": [view["current_player"] == me],
        "three_for_one": [options["three_for_one"]],
        "turn_progress": [view["turn"] / options["turn_limit"]],
    }


@positions_settings
@given(state=positions(), observer=observers)
def test_observation_pieces_agree_with_the_view(state, observer):
    """LAYOUT.split(encode(state, p)) reads back, piece by piece, what the table says: the
    player's own view of the state, own side and own prizes first."""
    pieces = LAYOUT.split(encode(state, observer))
    expected = expected_pieces(state.view(observer))
    assert set(pieces) == set(expected)
    for name, value in expected.items():
        np.testing.assert_allclose(
            pieces[name],
            np.asarray(value, dtype=np.float64).reshape(pieces[name].shape),
            rtol=1e-6,
            err_msg=name,
        )


def test_layout_pieces_tile_the_vector():
    stops = [LAYOUT.slices[p.name] for p in LAYOUT.pieces]
    assert stops[0].start == 0 and stops[-1].stop == LAYOUT.size
    assert all(a.stop == b.start for a, b in zip(stops, stops[1:], strict=False))
    assert sum(p.size for p in LAYOUT.pieces) == LAYOUT.size


def test_raw_env_docstring_holds_the_observation_table():
    assert LAYOUT.table() in heisse_luft_v0.raw_env.__doc__

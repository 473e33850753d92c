"""Heiße Karten as cross-game code sees it: its :class:`~hot_envs.core.game_type.Game` description.

The parts above the engine (agents, pictures, web table) are entry-point strings, imported on
first use, so this folder imports nothing above the engine.
"""

from __future__ import annotations

from typing import Any

from hot_envs.core.game_type import Game
from hot_envs.heisse_karten.state import State, score_returns


def shaping_potential(view: dict[str, Any], seat: int) -> float:
    """Φ of the reward shaping: the seat's score ahead of the best other, over 200."""
    scores = view["scores"]
    best_other = max(s for p, s in enumerate(scores) if p != seat)
    return (scores[seat] - best_other) / 200.0


def rollout_value(state: State, seat: int) -> float:
    """A finished rollout: the win reward plus half the score reward (HK-4.3)."""
    return state.returns()[seat] + 0.5 * score_returns(state.totals, state.round + 1)[seat]


_STYLES = "hot_envs.agents.styles_karten:"

GAME = Game(
    name="heisse-karten",
    title="Heiße Karten",
    engine_module="hot_envs.heisse_karten",
    env_module="hot_envs.heisse_karten_v0",
    min_players=2,
    max_players=6,
    shaping=shaping_potential,
    heuristic="hot_envs.agents.heuristic_karten:HeisseKartenHeuristic",
    styles={
        "low-dumper": _STYLES + "LowCardDumper",
        "trick-taker": _STYLES + "GreedyTrickTaker",
        "trick-avoider": _STYLES + "TrickAvoider",
        "card-counter": _STYLES + "CardCounter",
    },
    # Whole heuristic rollouts are cheap; a win-or-loss rollout ties often, so the score margin
    # (``rollout_value``) breaks the ties.
    search={
        "simulations": 600,
        "rollout": "heuristic",
        "prior": "heuristic",
        "margin": 0.05,
        "value": rollout_value,
        "array_value": "hot_envs.batched.heisse_karten:rollout_values",
    },
    search_simulations=4000,  # a random rollout costs about 0.06 ms
    compile_seconds=10,
    features="hot_envs.agents.features:view_features",
    batched="hot_envs.batched.heisse_karten:ArrayHeisseKarten",
    arrays="hot_envs.agents.array_karten",
    feature_shape="hot_envs.agents.features:HK_SHAPE",
    anchor_columns="hot_envs.agents.features:HK_ANCHOR",
    picture="hot_envs.pictures.heisse_karten:draw",
    picture_shot=({"num_players": 4}, 0, 22),
    guide={
        "numbered": False,
        "syntax": """\
Moves: type the number of a card in your hand (36 plays card 36).
? lists your moves, help shows this, q quits.""",
        "legend": """\
Cards: 36b is black and counts +36, 17r is red and counts -17 (HK-1.1).
A trick with a black card goes to its highest black card, else to its highest
red one (HK-3.2). Trick: the cards played so far, in order; Last trick: the
trick taken before and who took it (they lead the next, HK-3.3).""",
    },
    suite=(
        ("heuristic", "training", "the project's rule-based player, the usual teacher"),
        ("heuristic:0.2", "training", "the heuristic with a fifth of its moves random"),
        ("low-dumper", "training", "always plays its lowest card"),
        ("search:30", "training", "the search agent at 30 rollouts a decision", True),
        ("search:120", "training", "the search agent at 120 rollouts a decision", True),
        (
            "search-strong",
            "training",
            "the search agent at ten times its default rollouts (6,000 a decision); at two "
            "players no stronger against the heuristic than the default",
            True,
        ),
        (
            "heisse_karten_v0_2026_12_01",
            "training",
            "the MLP policy shipped on 2026-12-01, the teacher of the shipped one (anchored to "
            "the heuristic's move)",
        ),
        (
            "heisse_karten_v0_2026_12_04",
            "training",
            "the policy shipped on 2026-12-04: one of the two members of the shipped "
            "ensemble, without its anchor to the heuristic at five and six players",
        ),
        (
            "heisse_karten_v0_2026_12_05",
            "training",
            "the policy shipped on 2026-12-05 (13:13 UTC): the 2026-12-04 policy with the "
            "shipped one's anchor at five and six players",
        ),
        ("trick-taker", "held-out", "takes every trick it can, cheapest winner"),
        ("trick-avoider", "held-out", "ducks under every trick it can"),
        ("card-counter", "held-out", "counts cards, best expected points this trick"),
        (
            "heisse_karten_v0_2026_11_30",
            "held-out",
            "the policy shipped before the PPO sittings (2026-11-30)",
        ),
    ),
    web_move="hot_envs.web.public:karten_move",
    web_event="hot_envs.web.public:karten_trick",
    web_state_bytes=3 * 2**10,
    checkpoint="heisse_karten_v0",
    learning_speed=1500,
)

"""Heiße Luft as cross-game code sees it: its :class:`~hot_envs.core.game_type.Game` description.

The parts above the engine (agents, pictures, web table) are entry-point strings, imported on
first use, so this folder imports nothing above the engine.
"""

from __future__ import annotations

from typing import Any

from hot_envs.core.game_type import Game

_TROPHY_PRICE = {"H": 7, "D": 6, "C": 5, "S": 4}  # RULES HL-6.1


def shaping_potential(view: dict[str, Any], seat: int) -> float:
    """Φ of the reward shaping: the prize cards won, a trophy counted at its price, ahead of the
    opponent's, over 20."""
    cards = [
        sum(view["prizes_won"][p].values()) + sum(_TROPHY_PRICE[s] for s in view["trophies"][p])
        for p in (0, 1)
    ]
    return (cards[seat] - cards[1 - seat]) / 20.0


_STYLES = "hot_envs.agents.styles_luft:"

GAME = Game(
    name="heisse-luft",
    title="Heiße Luft",
    engine_module="hot_envs.heisse_luft",
    env_module="hot_envs.heisse_luft_v0",
    min_players=2,
    max_players=2,
    shaping=shaping_potential,
    heuristic="hot_envs.agents.heuristic_luft:HeisseLuftHeuristic",
    styles={
        "beginner": _STYLES + "BeginnerAdvice",
        "stage-finisher": _STYLES + "GreedyStageFinisher",
        "trophy-rusher": _STYLES + "TrophyRusher",
        "high-hoarder": _STYLES + "HighCardHoarder",
    },
    # Random rollouts misjudge skilled play, so the heuristic plays the first plies of each
    # rollout, and its own move stands unless the search finds one better by ``margin``.
    search={
        "simulations": 400,
        "rollout": "heuristic",
        "rollout_plies": 6,
        "prior": "heuristic",
        "margin": 0.1,
    },
    search_simulations=1000,  # a random rollout costs about 0.4 ms
    compile_seconds=15,
    features="hot_envs.agents.features:view_features",
    batched="hot_envs.batched.heisse_luft:ArrayHeisseLuft",
    arrays="hot_envs.agents.array_luft",
    feature_shape="hot_envs.agents.features:HL_SHAPE",
    anchor_columns="hot_envs.agents.features:HL_ANCHOR",
    picture="hot_envs.pictures.heisse_luft:draw",
    picture_shot=({}, 9, 87),
    guide={
        "numbered": True,
        "syntax": """\
Moves: type a move's number from the list, or its name: its words in order,
each may be cut short. Cards: h d c s for ♥ ♦ ♣ ♠, then the value (a j q k for
ace, jack, queen, king).
  h7 3 own     ♥7 on stage 3, your own side
  d10 2 opp    ♦10 on stage 2, the opponent's side
  ex sq        choose ♠Q for the exchange (HL-3.4); done ends the choice
  claim s      claim the ♠ trophy (HL-6); stop stops claiming
? lists the moves, help shows this, q quits.""",
        "legend": """\
Table: Stage N  terrain  prizes  P0: cards (sum)  P1: cards (sum)  last: Pn
  lowland: the lower sum wins the stage; mountain: the higher sum (HL-4.2).
  prizes: a suit symbol per prize card; each side takes one balloon card per
  prize, of its suit (HL-3.1).
  last: Pn put the stage's last card and wins a tie (HL-4.3).
  P0 prizes ♥n ♦n ♣n ♠n: prize cards won; trophies: suits claimed (HL-6);
  two trophies win (HL-7.1).""",
    },
    suite=(
        ("heuristic", "training", "the project's rule-based player, the usual teacher"),
        ("heuristic:0.2", "training", "the heuristic with a fifth of its moves random"),
        ("high-hoarder", "training", "keeps J, Q, K back, plays its lowest card"),
        ("search:20", "training", "the search agent at 20 rollouts a decision", True),
        ("search:80", "training", "the search agent at 80 rollouts a decision", True),
        (
            "search-strong",
            "training",
            "the search agent at ten times its default rollouts (4,000 a decision): the strongest "
            "opponent shipped",
            True,
        ),
        (
            "heisse_luft_v0_2026_12_01",
            "training",
            "the policy shipped on 2026-12-01 before its last PPO sitting (the shipped one's "
            "snapshots trained against its descendants)",
        ),
        (
            "heisse_luft_v0_2026_12_01_1717",
            "training",
            "the policy shipped from 2026-12-01 to 2026-12-05, before its sitting with the "
            "learning rate annealed to 0; a member of the shipped ensemble",
        ),
        (
            "heisse_luft_v0_2026_12_05",
            "training",
            "the policy shipped on 2026-12-05 (09:53 UTC), annealed to lr 0; a member of the "
            "shipped ensemble",
        ),
        ("beginner", "held-out", "beginner's advice: finish sure wins, dump on lost stages"),
        ("stage-finisher", "held-out", "always plays on the stage nearest completion"),
        ("trophy-rusher", "held-out", "plays only for the stages of one trophy's suit"),
        (
            "heisse_luft_v0_2026_11_30",
            "held-out",
            "the MLP policy shipped on 2026-11-30 (DAgger)",
        ),
    ),
    web_move="hot_envs.web.public:luft_move",
    web_event="hot_envs.web.public:luft_flight",
    web_state_bytes=8 * 2**10,
    checkpoint="heisse_luft_v0",
    learning_speed=600,
)

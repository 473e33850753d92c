"""A rule-based Heiße Luft player that sees only its own view (HL-8, docs/rules.md).

Strategy — the rulebook's "Tipps für Einsteiger" (tips for beginners) turned into one scoring
function.

**Play** (HL-3.2). Every legal placement is scored as

    score = stake(stage) × (P(we win the stage) after the card − P now) − keep(card)

and the best score is played (exact ties broken by the agent's generator).

* *P(we win the stage)* comes from the expected final difference of the two sides' sums,
  oriented so that positive is good for us (higher on a mountain, lower in a lowland): the cards
  already there plus, for every open slot, the mean of that suit's cards that are not on a
  stage; the spread is the sum of those suits' variances, and P = Φ(difference / spread). So low
  cards go to our lowland side and high cards to our mountain side, and a King on the opponent's
  lowland side or an Ace on their mountain side spoils it: all four are the same move towards a
  better difference. When every move hurts (HL-3.3 must play), the least harmful one is chosen.
* *Close stages on your terms.* A card that completes a stage decides it exactly, and a tie is
  ours because our card is the last one placed (HL-4.3). A card that leaves one open slot hands
  the opponent the choice: they complete the stage if they hold a card that wins it for them (a
  tie is then theirs) — certain if such a card was revealed to us, else by the chance that their
  unknown cards hold one; otherwise we complete it when a card that wins for us comes along (now,
  if we hold one).
* *stake(stage)*: how much the stage's prizes advance our trophies plus how much they would
  advance the opponent's (a stage we lose is a stage they win). Trophy progress is
  :func:`potential`: trophies held plus, for the suits still free that are nearest to their price
  (as many as trophies are still missing for the win), (share of the price held) ** 1.5 — the
  power makes the last cards of a trophy worth more than the first, so we finish what we start.
  Three-for-one counts (each prize of an awarded suit is a third of a card, HL-6.2). Cheap
  trophies come first by themselves: a spade is a quarter of a trophy, a heart a seventh. A prize
  that completes the second trophy makes the stake as large as the game (HL-7.1).
* *Count suits*: a stage that needs more cards of a suit than are left off the stages (after the
  stages nearer completion have taken theirs) is blocked; its stake is cut to a sixth, so cards
  are not wasted on it (and a forced card may be dumped there).
* *keep(card)*: a small cost for spending an extreme card (Ace, King, 2, Queen), which is "worth
  gold at the right stage"; among equal moves the middling card goes first.

**Exchange** (HL-3.4, no card fits). Keep the extreme cards, throw the middling ones: up to four
cards at most four away from 7 (3 to J) go, nearest to 7 first; if none, the single card nearest
to 7. If no card of a suit any stage needs is still unseen, drawing cannot help: throw only the
single worst card.

**Trophies** (HL-6). Claim whenever possible: a trophy is never lost, its cards still count for
HL-7.2, and waiting lets the opponent take the suit. Among several claims, take the one that
leaves us the best potential against the opponent's. The one reason not to claim: the claim
awards a suit whose prizes, three for one, would let the opponent claim their second trophy right
after (HL-6.4 lets the other player claim next) — unless the claim itself is our second trophy.

The weights (``SHARE_POWER``, ``PRIZE_WEIGHT``, …) live beside the kernels that compute the
scores, :mod:`hot_envs.agents.array_luft`. ``epsilon`` is the probability of a uniformly random
legal move instead (for curricula).
"""

from __future__ import annotations

from hot_envs.agents.base import KernelAgent


class HeisseLuftHeuristic(KernelAgent):
    """Rule-based Heiße Luft player (strategy in the module docstring). Same seed ⇒ same
    actions; ``epsilon`` is the chance of a uniformly random legal move."""

    game = "heisse-luft"
    code = -1  # the heuristic's code in the kernels (hot_envs.agents.arrays.HEURISTIC)
    tolerance = 1e-12

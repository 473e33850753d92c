"""A rule-based Heiße Karten player for 2–6 players that sees only its own view (HK-5,
docs/rules.md).

Strategy — one score per card in hand, the best card is played.

**Leading** (empty trick): lead low cards. The card with the smallest absolute value goes first,
where a black card counts ``LEAD_BLACK_BONUS`` less than it is: a low black lead costs little
whoever takes it, and a low red lead gives the trick away cheaply (the next leader is somebody
else, see *tempo*). High blacks and high reds are kept for the moments below.

**Following**: every card gets

    score = value now − KEEP × value usually − TEMPO × chance that we take the trick

* *Value now*: expected points for us of putting the card into this trick: the trick's cards so
  far, our card, and the cards of the players still to come. Those players are modelled as
  playing cards drawn from the cards we have not seen (the view's ``played`` tells which cards
  are gone; the rest are in other hands, the draw pile or set aside): a card of trick rank *r*
  keeps the trick with chance (1 − f(r))^L, f(r) being the share of unseen cards that beat it
  (HK-3.2: any black beats any red, higher beats lower inside a colour) and L the players still to
  play; if it keeps it, the later cards are ones below it (their mean value among the unseen
  cards), otherwise somebody else takes the trick. Points another player takes count against us
  with weight 1/(N − 1) (all of them with two players: the game is zero-sum).
* *Value usually*: the same for a lead into an empty trick with all N − 1 players to follow —
  what the card is worth on average. Subtracting it asks "is now a better moment than usual for
  this card?"; a weight above 1 keeps good cards a little longer.
* *Tempo*: the trick's taker leads the next trick, the weakest seat (the others answer with
  knowledge of the lead); so taking a trick costs ``TEMPO`` points (more with two players, where
  the follower sees the whole trick before choosing).

Together these give the classic rules: the last player knows the outcome exactly and wins a trick
worth enough with its smallest sufficient black card, and never takes a trick full of red cards
when it can throw a red card under the trick's best card; red (negative) cards are dumped on
tricks somebody else will win — the bigger the red card, the better the moment; high black cards
wait for valuable tricks (a 48 always wins, so it waits for a trick that carries black points).
The weights were tuned in heuristic-against-heuristic matches (two players) and against random
players (three to six).

``epsilon`` is the probability of a uniformly random legal move instead (for curricula).
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any

from hot_envs.agents.base import ScoringAgent
from hot_envs.heisse_karten.facts import CARD_VALUE, CARDS, NUM_CARDS, TRICK_RANK, is_black

KEEP = 1.3  # weight of a card's usual value against the value of playing it now
TEMPO = {2: 45.0}  # points a taken trick costs because its taker leads next, by player count
TEMPO_MANY = 20.0  # … with three players or more
LEAD_BLACK_BONUS = 20  # a black lead counts this much lower than its value
NUM_RANKS = 2 * NUM_CARDS + 1  # trick ranks: red c → c (1–47), black c → c + 48 (50–96)


class HeisseKartenHeuristic(ScoringAgent):
    """Rule-based Heiße Karten player (strategy in the module docstring). Same seed ⇒ same
    actions; ``epsilon`` is the chance of a uniformly random legal move. The view's ``played``
    is its card memory."""

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        return self.best(legal, card_scores(view, [action + 1 for action in legal]))  # HK-1.2


def card_scores(view: dict[str, Any], cards: list[int]) -> list[float]:
    """The score of playing each of ``cards`` (card numbers 1–48) in ``view``'s position."""
    if not view["trick"]:
        return [LEAD_SCORE[card] for card in cards]
    tempo = TEMPO.get(view["num_players"], TEMPO_MANY)
    return [now - KEEP * usual - tempo * chance for now, usual, chance in card_terms(view, cards)]


def card_terms(view: dict[str, Any], cards: list[int]) -> list[tuple[float, float, float]]:
    """The terms of each following card's score (module docstring): its value ``now``, its
    value ``usually`` and the ``chance`` that it takes the trick. The trick must not be empty."""
    n = view["num_players"]
    share = 1.0 / (n - 1)
    trick = [card for _, card in view["trick"]]
    base = sum(map(CARD_VALUE.__getitem__, trick))
    best = max(map(TRICK_RANK.__getitem__, trick))
    later = n - 1 - len(trick)
    unseen = Unseen(view)
    mean = unseen.mean
    terms = []
    for card in cards:
        rank, value = TRICK_RANK[card], CARD_VALUE[card]
        stays = 1.0 - unseen.beaten(rank)  # chance that one later card does not beat ours
        below = unseen.mean_below(rank)
        now, chance = trick_value(base + value, rank > best, later, share, mean, stays, below)
        usual, _ = trick_value(value, True, n - 1, share, mean, stays, below)
        terms.append((now, usual, chance))
    return terms


def lead_score(card: int) -> float:
    """Lead low cards; blacks count ``LEAD_BLACK_BONUS`` lower (module docstring)."""
    return -abs(CARD_VALUE[card]) + (LEAD_BLACK_BONUS if is_black(card) else 0)


LEAD_SCORE = (0,) + tuple(lead_score(card) for card in CARDS)  # by card

# The cards in trick-rank order; slot k + 1 holds the k-th lowest, so that prefix sums over the
# slots count the cards below a rank. By card its slot, by rank r the slot prefix of the cards
# below r, and per slot how many cards (one) and their value.
_BY_RANK = sorted(CARDS, key=TRICK_RANK.__getitem__)
_SLOT = [0] * (NUM_CARDS + 1)
for _slot, _card in enumerate(_BY_RANK, 1):
    _SLOT[_card] = _slot
_BELOW = [sum(TRICK_RANK[card] < r for card in CARDS) for r in range(NUM_RANKS + 1)]
_ALL_COUNT = [0] + [1] * NUM_CARDS
_ALL_TOTAL = [0] + [CARD_VALUE[card] for card in _BY_RANK]


class Unseen:
    """The cards a player has not seen, by trick rank, with prefix counts and sums for quick
    "how many beat rank r" and "mean value below rank r" questions."""

    def __init__(self, view: dict[str, Any]) -> None:
        count, total = _ALL_COUNT.copy(), _ALL_TOTAL.copy()
        for card in view["hand"]:
            slot = _SLOT[card]
            count[slot] = total[slot] = 0
        for _, card in view["played"]:
            slot = _SLOT[card]
            count[slot] = total[slot] = 0
        count, total = list(accumulate(count)), list(accumulate(total))
        self.count, self.total = count, total  # count[_BELOW[r]]: unseen cards of rank below r
        self.n = count[NUM_CARDS]
        self.mean = total[NUM_CARDS] / self.n if self.n else 0.0

    def beaten(self, rank: int) -> float:
        """Share of the unseen cards that beat a card of ``rank``."""
        return (self.n - self.count[_BELOW[rank + 1]]) / self.n if self.n else 0.0

    def mean_below(self, rank: int) -> float:
        """Mean value of the unseen cards below ``rank``."""
        below = self.count[_BELOW[rank]]
        return self.total[_BELOW[rank]] / below if below else 0.0


def trick_value(
    base: float, keeps: bool, later: int, share: float, mean: float, stays: float, below: float
) -> tuple[float, float]:
    """Expected points for us, and the chance that we take the trick, for a trick holding
    ``base`` points after our card with ``later`` players still to play.

    ``keeps``: our card beats the trick's cards so far. ``mean``: the unseen cards' mean value;
    ``stays``: the chance that one of them does not beat our card; ``below``: the mean value of
    those below it. Points another player takes count ``-share`` each.
    """
    expected = base + later * mean  # the trick's expected total, whoever takes it
    if not keeps:
        return -share * expected, 0.0
    chance = stays**later
    ours = base + later * below  # later cards all below ours
    theirs = expected - chance * ours  # (1 − chance) × E[total | somebody beats us]
    return chance * ours - share * theirs, chance

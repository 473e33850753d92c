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
The weights (``KEEP``, ``TEMPO``, ``LEAD_BLACK_BONUS``) live beside the kernels that compute the
scores, :mod:`hot_envs.agents.array_karten`.

``epsilon`` is the probability of a uniformly random legal move instead (for curricula).
"""

from __future__ import annotations

from hot_envs.agents.base import KernelAgent


class HeisseKartenHeuristic(KernelAgent):
    """Rule-based Heiße Karten player (strategy in the module docstring). Same seed ⇒ same
    actions; ``epsilon`` is the chance of a uniformly random legal move. The view's ``played``
    is its card memory."""

    game = "heisse-karten"
    code = -1  # the heuristic's code in the kernels (hot_envs.agents.arrays.HEURISTIC)

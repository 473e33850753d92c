"""The arena's ratings (:func:`hot_envs.evaluation.arena.ratings`) in a kernel: a pass of
openskill's Plackett–Luce updates over many games, in openskill's own float operations (the same
numbers, bit for bit: tests/evaluation/test_plackett_luce.py) — Weng and Lin's update (JMLR 12,
2011, Algorithm 4): sigma widened by tau first; the teams taken in rank order, a tie's teams
sharing its first position; ``c`` from every team's sigma² + beta²; each team's ``exp(mu / c)``
over the sums of the teams ranked no better. Compiled with numba, plain Python without."""

from __future__ import annotations

import math

import numpy as np

from hot_envs.batched.jit import kernel


@kernel
def rate_games(order, agents, ranks, seats, mu, sigma, beta, kappa, tau):
    """Game ``order[j]`` after game ``order[j - 1]``: its ``seats[g]`` seats held by agents
    ``agents[g, :seats[g]]`` finishing at ``ranks[g, :seats[g]]`` (0 the best); each seat a
    one-player team rated from its agent's ``mu``/``sigma``, which then take the mean of their
    seats' new ratings (summed in seat order). ``mu`` and ``sigma`` change in place."""
    width = agents.shape[1]
    index = np.zeros(width, dtype=np.int64)  # the seats in rank order (a stable sort)
    rank = np.zeros(width, dtype=np.int64)  # per sorted position: its tie's first position
    team_mu = np.zeros(width)
    team_sigma = np.zeros(width)
    squared = np.zeros(width)
    strength = np.zeros(width)
    sum_q = np.zeros(width)
    ties = np.zeros(width, dtype=np.int64)
    new_mu = np.zeros(width)  # per seat
    new_sigma = np.zeros(width)
    tau_squared = tau * tau
    beta_squared = beta * beta
    for j in range(order.shape[0]):
        g = order[j]
        k = seats[g]
        for s in range(k):  # insertion sort: ties keep their seat order
            i = s
            while i > 0 and ranks[g, index[i - 1]] > ranks[g, s]:
                index[i] = index[i - 1]
                i -= 1
            index[i] = s
        first = 0
        for i in range(k):
            if i > 0 and ranks[g, index[i - 1]] < ranks[g, index[i]]:
                first = i
            rank[i] = first
        total = 0.0
        for i in range(k):
            a = agents[g, index[i]]
            team_mu[i] = mu[a]
            team_sigma[i] = math.sqrt(sigma[a] * sigma[a] + tau_squared)
            squared[i] = team_sigma[i] * team_sigma[i]
            total += squared[i] + beta_squared
        c = math.sqrt(total)
        for i in range(k):
            strength[i] = math.exp(team_mu[i] / c)
            sum_q[i] = 0.0
            ties[i] = 0
        for i in range(k):
            for q in range(k):
                if rank[i] >= rank[q]:
                    sum_q[q] += strength[i]
                if rank[i] == rank[q]:
                    ties[i] += 1
        for i in range(k):
            omega = 0.0
            delta = 0.0
            for q in range(k):
                if rank[q] <= rank[i]:
                    p = strength[i] / sum_q[q]
                    delta += p * (1 - p) / ties[q]
                    if q == i:
                        omega += (1 - p) / ties[q]
                    else:
                        omega -= p / ties[q]
            omega *= squared[i] / c
            delta *= squared[i] / (c * c)
            delta *= math.sqrt(squared[i]) / c
            share = team_sigma[i] * team_sigma[i] / squared[i]
            new_mu[index[i]] = team_mu[i] + share * omega
            new_sigma[index[i]] = team_sigma[i] * math.sqrt(max(1 - share * delta, kappa))
        for s in range(k):
            a = agents[g, s]
            done = False
            for t in range(s):
                done |= agents[g, t] == a
            if done:
                continue
            m = 0.0
            v = 0.0
            n = 0
            for t in range(s, k):
                if agents[g, t] == a:
                    m += new_mu[t]
                    v += new_sigma[t]
                    n += 1
            mu[a] = m / n
            sigma[a] = v / n


def compile_ratings() -> None:
    """:func:`rate_games` compiled (or loaded from numba's disk cache) for the arrays the arena
    rates with (:func:`hot_envs.evaluation.arena.ratings`): one two-seat game rated."""
    one = np.zeros(1, dtype=np.int64)
    pair = np.array([[0, 1]], dtype=np.int64)
    rate_games(one, pair, pair, one + 2, np.zeros(2), np.ones(2), 1.0, 1e-4, 0.1)

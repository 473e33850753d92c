"""Behaviour cloning warm start: teach the PPO policy a teacher agent's decisions first.

The teacher (the game's heuristic by default) plays every seat of whole games through the
engine; each of its decisions gives one example ``(observation, action mask, action, return)``
where the return is the deciding seat's final reward discounted by ``gamma`` per later decision
of that seat. :func:`behaviour_cloning` then trains the SB3 policy itself on them: masked
cross-entropy for the actor (``−log π(a | o)`` of the masked distribution) plus ``value_weight``
× the squared error of the critic against the return, so PPO starts with an actor that plays
like the teacher and a critic that already knows what positions are worth.

**DAgger** (Ross, Gordon & Bagnell 2011): a clone drifts into positions its teacher never
reached, where it has no examples. :func:`collect` with a ``learner`` lets the learner play one
seat (drawn per game) against teachers in the others and records the teacher's choice at every
decision, the learner's too; :func:`dagger` adds such rounds to the data and clones again.

**Distilling search** (expert iteration, Anthony, Tian & Barber 2017): with an ``opponent``, the
learner plays against that agent instead and only the learner's decisions are labelled. A slow
teacher such as the search agent (``teacher="search"``) then labels just the positions the
policy reaches against the opponents it is judged by; ``workers`` spreads the games over
processes, since such labels cost milliseconds each. With ``improve``, the search takes the
learner's own move as its prior and replaces it only by a move whose mean rollout return is
higher by that margin: the labels are the policy's play with the mistakes the search finds
corrected, rather than the search's preset play (whose prior is the heuristic).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hot_envs.agents import Agent, make_agent
from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.agents.base import observe
from hot_envs.core import shared_count
from hot_envs.core.games import get_game
from hot_envs.envs.driver import PolicyInput
from hot_envs.evaluation.arena import progress_bar


@dataclass
class Demonstrations:
    """Teacher decisions as arrays (one row per decision)."""

    observations: np.ndarray  # float32 (n, size)
    masks: np.ndarray  # bool (n, actions)
    actions: np.ndarray  # int64 (n,)
    returns: np.ndarray  # float32 (n,)


def collect(
    game: str,
    player_counts: Sequence[int | None],
    decisions: int,
    seed: int = 0,
    teacher: str | Agent = "heuristic",
    gamma: float = 0.995,
    learner: Agent | None = None,
    policy_input: PolicyInput | None = None,
    opponent: str | Agent | None = None,
    own_labels: Sequence[int] = (),
    workers: int = 1,
    progress: bool = False,
    improve: float | None = None,
) -> Demonstrations:
    """At least ``decisions`` teacher decisions from whole games (player count drawn per game).

    With a ``learner`` (DAgger), the learner plays one seat of each game, drawn at random, and
    the teacher is still asked at its decisions: the recorded action is always the teacher's.
    The teacher plays the other seats, and its own decisions there are recorded too, unless an
    ``opponent`` (an agent or spec) plays them: then only the learner's decisions are recorded.
    At the table sizes in ``own_labels`` the learner's own choice is the label instead (the
    teacher is not asked), so that cloning keeps the learner's play there. With ``improve``
    (a margin; the teacher must be a search agent) the learner's move is the search's prior at
    the learner's decisions: the label is the learner's move unless the search finds one better
    by more than ``improve`` (module docstring).
    ``policy_input`` (a policy's :class:`~hot_envs.envs.driver.PolicyInput`, e.g. the action
    scorers') records its rows instead of the bare observations.
    ``workers`` > 1 splits the decisions over that many processes, each with its own seed derived
    from ``seed`` (agents given as objects must then be picklable). ``progress`` shows a
    progress bar of the decisions (tqdm, if installed).
    """
    if (opponent is not None or own_labels or improve is not None) and learner is None:
        raise ValueError("an opponent, own_labels or improve need a learner")
    if workers > 1 and decisions > 0:
        options = {
            "teacher": teacher,
            "gamma": gamma,
            "learner": learner,
            "policy_input": policy_input,
            "opponent": opponent,
            "own_labels": own_labels,
            "improve": improve,
        }
        return _collect_in_parallel(
            game, player_counts, decisions, seed, workers, options, progress
        )
    bar = _progress_bar(decisions) if progress else None
    description = get_game(game)
    engine = description.engine
    rng = np.random.default_rng(seed)
    agent = make_agent(teacher, game, seed) if isinstance(teacher, str) else teacher
    if isinstance(opponent, str):
        opponent = make_agent(opponent, game, seed + 1)
    chosen = _Chosen()  # the learner's move, the improving search's prior
    improver = None if improve is None else _improver(agent, chosen, improve)
    obs, masks, actions, returns = [], [], [], []
    while len(actions) < decisions:
        count = player_counts[rng.integers(len(player_counts))]
        state = engine.State.new(seed=rng, **description.options(count))
        learner_seat = int(rng.integers(state.num_players)) if learner is not None else -1
        seats: list[int] = []
        while not state.is_terminal():
            seat = state.current_player
            observation = observe(engine, state, seat)
            view = state.view(seat)
            if opponent is not None and seat != learner_seat:
                state.apply(int(opponent.act(observation, view)))
                continue
            if seat == learner_seat:
                own = int(learner.act(observation, view))
                if state.num_players in own_labels:
                    label = own
                else:
                    chosen.action = own
                    label = int((improver or agent).act(observation, view))
            else:
                label = int(agent.act(observation, view))
            if policy_input is not None:
                obs.append(policy_input.one(observation["observation"], view))
            else:
                obs.append(observation["observation"])
            masks.append(observation["action_mask"].astype(bool))
            actions.append(label)
            seats.append(seat)
            state.apply(own if seat == learner_seat else label)
        final = state.returns()
        later = [0] * state.num_players  # decisions of each seat after this one
        game_returns = []
        for seat in reversed(seats):
            game_returns.append(final[seat] * gamma ** later[seat])
            later[seat] += 1
        returns.extend(reversed(game_returns))
        if bar is not None:
            bar.update(len(seats))
        shared_count.add(len(seats))  # in _collect_in_parallel's workers, for its bar
    if bar is not None:
        bar.close()
    return Demonstrations(
        np.asarray(obs, dtype=np.float32),
        np.asarray(masks, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
    )


class _Chosen:
    """An agent that plays the move set on it: the learner's move, already chosen."""

    action = -1

    def act(self, observation: Any, view: Any) -> int:
        return self.action


def _improver(teacher: Agent, prior: Agent, margin: float) -> Agent:
    """A copy of the search ``teacher`` whose prior is ``prior``, with ``margin``."""
    from hot_envs.agents.search import SearchAgent

    if not isinstance(teacher, SearchAgent):
        raise ValueError(f"improve needs a search agent as the teacher, not {teacher!r}")
    improver = copy.copy(teacher)
    improver.prior, improver.margin = prior, margin
    return improver


def _progress_bar(total: int) -> Any:
    return progress_bar(total, unit="decision", desc="teacher decisions")


def _collect_in_parallel(
    game: str,
    player_counts: Sequence[int | None],
    decisions: int,
    seed: int,
    workers: int,
    options: dict[str, Any],
    progress: bool,
) -> Demonstrations:
    """:func:`collect` split over ``workers`` processes (``options``: its keyword arguments);
    the parts in worker order. A pool whose worker died (killed by the OS, say) is replaced
    once: the parts are seeded, so collecting them again gives the same decisions."""
    import warnings
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    shares = [decisions // workers + (i < decisions % workers) for i in range(workers)]
    seeds = np.random.SeedSequence(seed).generate_state(workers)
    counter = shared_count.new()
    bar = _progress_bar(decisions) if progress else None
    for attempt in range(2):
        counter.value = 0
        try:
            with ProcessPoolExecutor(
                workers, initializer=shared_count.share, initargs=(counter,)
            ) as pool:
                futures = [
                    pool.submit(collect, game, player_counts, share, int(part_seed), **options)
                    for share, part_seed in zip(shares, seeds, strict=True)
                    if share > 0
                ]
                pending = futures
                while pending:
                    done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
                    if bar is not None:
                        bar.update(min(counter.value, decisions) - bar.n)
                    if any(future.exception() is not None for future in done):
                        break
                parts = [future.result() for future in futures]  # raises a worker's exception
            break
        except BrokenProcessPool:
            if attempt:
                raise
            warnings.warn(
                "a worker process collecting demonstrations died; collecting again in a "
                "fresh pool (same seeds)",
                RuntimeWarning,
                stacklevel=2,
            )
    if bar is not None:
        bar.close()
    columns = zip(*map(_fields, parts), strict=True)
    return Demonstrations(*(np.concatenate(arrays) for arrays in columns))


def dagger(
    model: Any,
    demos: Demonstrations,
    game: str,
    player_counts: Sequence[int | None],
    rounds: int,
    decisions: int,
    seed: int = 0,
    teacher: str = "heuristic",
    gamma: float = 0.995,
    log: Callable[[dict[str, float]], None] | None = None,
    opponent: str | None = None,
    own_labels: Sequence[int] = (),
    workers: int = 1,
    progress: bool = False,
    improve: float | None = None,
    **cloning: Any,
) -> tuple[Demonstrations, list[dict[str, float]]]:
    """``rounds`` DAgger rounds after a first cloning on ``demos``: each lets the current clone
    play (:func:`collect` with ``learner``, ``opponent``, ``own_labels``, ``workers``,
    ``progress`` and ``improve``), adds ``decisions`` labelled decisions and clones again on
    everything (``cloning``: :func:`behaviour_cloning`'s options). Returns the grown data and one
    statistics entry per round, including ``agreement``: how often the clone chose the label at the
    decisions of the games it played in, before that round's cloning, and ``seconds`` since the
    first round began. ``log`` gets each entry as it is made."""
    from hot_envs.agents.checkpoint import CheckpointAgent
    from hot_envs.training.export import is_action_scorer, numpy_policy

    history = []
    started = time.perf_counter()
    for r in range(rounds):
        learner = CheckpointAgent(numpy_policy(model), {"game": get_game(game).name})
        new = collect(
            game,
            player_counts,
            decisions,
            seed + 1 + r,
            teacher,
            gamma,
            learner,
            policy_input=ActionScorerInput(game) if is_action_scorer(model) else None,
            opponent=opponent,
            own_labels=own_labels,
            workers=workers,
            progress=progress,
            improve=improve,
        )
        agreement = _agreement(learner.policy, new)
        if len(demos.actions):
            demos = Demonstrations(
                *(np.concatenate([a, b]) for a, b in zip(_fields(demos), _fields(new), strict=True))
            )
        else:  # no base data (a resumed model with bc_decisions = 0)
            demos = new
        stats = behaviour_cloning(model, demos, seed=seed + 1 + r, **cloning)[-1]
        history.append(
            {
                "round": r + 1,
                "decisions": len(demos.actions),
                "agreement": agreement,
                "seconds": round(time.perf_counter() - started, 1),
                **stats,
            }
        )
        if log is not None:
            log(history[-1])
    return demos, history


def _fields(demos: Demonstrations) -> tuple[np.ndarray, ...]:
    return demos.observations, demos.masks, demos.actions, demos.returns


def _agreement(policy: Any, demos: Demonstrations) -> float:
    """Share of ``demos``' decisions where ``policy`` (a numpy policy, argmax) picks the recorded
    (teacher's) action."""
    chosen = np.concatenate(
        [
            policy.predict(demos.observations[i : i + 1024], demos.masks[i : i + 1024])
            for i in range(0, len(demos.actions), 1024)
        ]
    )
    return float(np.mean(chosen == demos.actions))


def behaviour_cloning(
    model: Any,
    demos: Demonstrations,
    epochs: int = 4,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_weight: float = 0.5,
    seed: int = 0,
    label_smoothing: float = 0.0,
) -> list[dict[str, float]]:
    """Train ``model.policy`` (a ``MaskablePPO`` policy) on ``demos``; per-epoch statistics
    (``loss``, ``value_loss``, ``accuracy`` of the argmax against the teacher, ``entropy`` of the
    policy).

    ``label_smoothing`` ε spreads ε of the target over the legal actions: the clone keeps the
    teacher's argmax but not its certainty, so that PPO after it still explores (a clone trained
    to certainty has vanishing entropy gradients and never tries another move)."""
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    n = len(demos.actions)
    history = []
    for _ in range(epochs):
        totals = np.zeros(4)
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            obs = torch.as_tensor(demos.observations[idx])
            actions = torch.as_tensor(demos.actions[idx])
            distribution = policy.get_distribution(obs, action_masks=demos.masks[idx])
            values = policy.predict_values(obs).flatten()
            value_loss = torch.nn.functional.mse_loss(values, torch.as_tensor(demos.returns[idx]))
            loss = -distribution.log_prob(actions).mean() + value_weight * value_loss
            log_p = torch.log_softmax(distribution.distribution.logits, dim=1)
            legal = torch.as_tensor(demos.masks[idx])
            if label_smoothing > 0:
                uniform = (log_p * legal).sum(dim=1) / legal.sum(dim=1)
                loss = loss - label_smoothing * (uniform + distribution.log_prob(actions)).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            logits = distribution.distribution.logits.detach()
            accuracy = (logits.argmax(dim=1) == actions).float().mean().item()
            entropy = -(log_p.exp() * log_p.masked_fill(~legal, 0.0)).sum(dim=1).mean().item()
            totals += np.array([loss.item(), value_loss.item(), accuracy, entropy]) * len(idx)
        loss, value_loss, accuracy, entropy = totals / n
        history.append(
            {"loss": loss, "value_loss": value_loss, "accuracy": accuracy, "entropy": entropy}
        )
    policy.set_training_mode(False)
    return history

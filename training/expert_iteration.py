"""Expert iteration (Anthony, Tian & Barber 2017): the network learns the search's judgement of
the positions it reaches itself, round after round.

Each round

1. saves the apprentice (the model as it stands) as ``round-NN/apprentice``;
2. has it play against the opponents' mix while the search labels its decisions
   (:mod:`hot_envs.training.search_labels`): ``exit_labels`` labels in shards of
   ``exit_shard_labels``, over ``exit_workers`` processes; the apprentice may guide the search
   (``exit_guide``: its prior, its rollouts), so that the teacher grows with it;
3. trains the policy on **every** round's labels so far: a soft target from the search's
   per-action values (``exit_target``: ``softmax`` of the mean returns at
   ``exit_target_temperature``, or ``gumbel``, Gumbel AlphaZero's ``softmax(prior logits +
   σ(completed Q))`` with ``σ(q) = (visit + max count) · scale · q`` and ``q`` rescaled to
   [0, 1] per decision) and a value target for the critic (the seat's outcome, discounted by
   ``gamma`` per later decision, mixed with the search's value of its choice by
   ``exit_value_search_share``). A share ``exit_held_out`` of the games is held out: training
   stops when their loss stops falling (the best epoch's weights kept), and they give the
   round's **agreement** (the network's argmax is the search's choice) and **regret** (the
   search's best mean return minus that of the network's argmax);
4. saves the result as ``round-NN/trained`` and plays ``exit_strength_games`` arena games
   against the heuristic (seats rotated) for the round's **strength**; ``round-NN/round.json``
   keeps the round's figures.

Everything lives in the labels folder (``exit_labels_dir``, default the run folder's
``labels/``). A rerun with the same folder picks up where it stopped: a finished round is loaded,
not repeated; a started round's apprentice is loaded and only its missing shards are labelled.
A later run with more ``exit_rounds`` adds rounds to the same labels.
"""

from __future__ import annotations

import copy
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hot_envs.agents.checkpoint import atomic_file
from hot_envs.agents.shipped import SUFFIXES
from hot_envs.evaluation.arena import derive_seed
from hot_envs.training.search_labels import (
    Labels,
    ShardJob,
    concatenate,
    held_out_rows,
    load,
    segment_positions,
    write_shards,
)

ROUND_FILE = "round.json"


@dataclass
class Targets:
    """How labels become training targets (module docstring, step 3)."""

    kind: str = "softmax"  # or "gumbel"
    temperature: float = 0.05  # softmax: of the mean returns
    visit: float = 50.0  # gumbel: σ's visit offset …
    scale: float = 0.1  # … and scale
    gamma: float = 0.995  # the outcome's discount per later decision of the seat
    search_share: float = 0.0  # of the search's value in the value target


def policy_targets(labels: Labels, targets: Targets) -> np.ndarray:
    """Each label's target distribution over its legal actions, flat as ``labels.actions``
    (each row's entries sum to 1)."""
    starts = labels.offsets[:-1]
    q = labels.values.astype(np.float64)
    if targets.kind == "softmax":
        logits = q / targets.temperature
    elif targets.kind == "gumbel":
        low = np.minimum.reduceat(q, starts)
        high = np.maximum.reduceat(q, starts)
        lengths = np.diff(labels.offsets)
        spread = np.repeat(np.maximum(high - low, 1e-8), lengths)
        rescaled = (q - np.repeat(low, lengths)) / spread
        most = np.repeat(np.maximum.reduceat(labels.counts, starts), lengths)
        logits = labels.prior + (targets.visit + most) * targets.scale * rescaled
    else:
        raise ValueError(f"the target must be 'softmax' or 'gumbel', not {targets.kind!r}")
    lengths = np.diff(labels.offsets)
    weights = np.exp(logits - np.repeat(np.maximum.reduceat(logits, starts), lengths))
    return (weights / np.repeat(np.add.reduceat(weights, starts), lengths)).astype(np.float32)


def value_targets(labels: Labels, targets: Targets) -> np.ndarray:
    """Each label's value target: the discounted outcome, mixed with the search's value of its
    choice."""
    outcome = labels.outcome * targets.gamma ** labels.later.astype(np.float64)
    if targets.search_share == 0:
        return outcome.astype(np.float32)
    chosen = _at(labels, labels.choice)
    return ((1 - targets.search_share) * outcome + targets.search_share * chosen).astype(np.float32)


def _at(labels: Labels, actions: np.ndarray) -> np.ndarray:
    """The search's mean return of ``actions[i]`` (legal) in each label ``i``."""
    rows = np.repeat(np.arange(len(labels)), np.diff(labels.offsets))
    where = np.flatnonzero(labels.actions == actions[rows])  # one entry per row, in order
    return labels.values[where].astype(np.float64)


def dense_rows(labels: Labels, rows: np.ndarray, flat: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """``flat`` (one entry per legal action) of ``rows`` as a ``(len(rows), num_actions)``
    array, ``fill`` where an action is illegal."""
    out = np.full((len(rows), labels.num_actions), fill, dtype=np.float32)
    positions = segment_positions(labels.offsets, rows)
    lengths = labels.offsets[rows + 1] - labels.offsets[rows]
    out[np.repeat(np.arange(len(rows)), lengths), labels.actions[positions]] = flat[positions]
    return out


# --- Training on the labels -----------------------------------------------------------------------


@dataclass
class Training:
    """How the apprentice learns a round's labels."""

    epochs: int = 10  # at most
    patience: int = 2  # epochs without a better held-out loss before stopping
    batch_size: int = 256
    learning_rate: float = 3e-4
    value_weight: float = 0.5
    value_warmup_epochs: int = 0  # epochs of the critic alone, the actor frozen, before the others

    def __post_init__(self) -> None:
        for name in ("patience", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be ≥ 1, not {getattr(self, name)!r}")
        for name in ("epochs", "value_warmup_epochs"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be ≥ 0, not {getattr(self, name)!r}")
        if self.epochs + self.value_warmup_epochs < 1:
            raise ValueError("epochs and value_warmup_epochs must not both be 0")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be > 0, not {self.learning_rate!r}")
        if not self.value_weight >= 0:
            raise ValueError(f"value_weight must be ≥ 0, not {self.value_weight!r}")
        if self.value_warmup_epochs and self.value_weight == 0:
            raise ValueError("value_warmup_epochs needs a value_weight > 0: it trains the critic")


WARMUP, JOINT = "value warm-up", "policy and value"  # the stages of an epoch


def train_apprentice(
    model: Any,
    train: Labels,
    held: Labels,
    targets: Targets,
    training: Training,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Train ``model.policy`` (MaskablePPO's) on ``train``: cross-entropy against the policy
    targets plus ``value_weight`` × the squared error of the critic, with Adam, until the loss on
    ``held`` has not fallen for ``patience`` epochs; the best epoch's weights stay (without
    held-out labels: all ``epochs``). The first ``value_warmup_epochs`` train the critic alone
    (the parameters the actor's logits do not depend on, :func:`critic_parameters`): the
    policy stays as it is while the value head meets the labels' returns; they come before
    ``epochs`` and before the patience counts. One entry of figures per epoch (its ``stage``,
    ``loss``, and :func:`judge`'s held-out figures)."""
    import torch

    policy = model.policy
    optimizers = {JOINT: torch.optim.Adam(policy.parameters(), lr=training.learning_rate)}
    if training.value_warmup_epochs:
        critic = critic_parameters(policy, train)
        optimizers[WARMUP] = torch.optim.Adam(critic, lr=training.learning_rate)
    rng = np.random.default_rng(seed)
    train_policy, train_value = policy_targets(train, targets), value_targets(train, targets)
    stages = [WARMUP] * training.value_warmup_epochs + [JOINT] * training.epochs
    best, best_loss, waited, history = None, math.inf, 0, []
    for epoch, stage in enumerate(stages):
        policy.set_training_mode(True)
        optimizer = optimizers[stage]
        parameters = [p for group in optimizer.param_groups for p in group["params"]]
        total = 0.0
        order = rng.permutation(len(train))
        for start in range(0, len(order), training.batch_size):
            rows = order[start : start + training.batch_size]
            policy_loss, value_loss, _ = _losses(policy, train, rows, train_policy, train_value)
            loss = training.value_weight * value_loss
            if stage == JOINT:
                loss = loss + policy_loss
            policy.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, 0.5)
            optimizer.step()
            total += loss.item() * len(rows)
        figures = judge(model, held, targets, training.value_weight)
        mean = total / max(len(train), 1)
        history.append({"epoch": epoch + 1, "stage": stage, "loss": mean, **figures})
        if not len(held):  # nothing to stop by: every epoch
            continue
        if figures["held_loss"] < best_loss - 1e-6:
            best, best_loss, waited = copy.deepcopy(policy.state_dict()), figures["held_loss"], 0
        elif stage == JOINT:
            waited += 1
            if waited >= training.patience:
                break
    if best is not None:
        policy.load_state_dict(best)
    policy.set_training_mode(False)
    return history


def critic_parameters(policy: Any, labels: Labels) -> list[Any]:
    """The parameters of ``policy`` that its logits on ``labels`` do not depend on: the
    critic's own (a trunk shared with the actor is not among them)."""
    import torch

    rows = np.arange(min(len(labels), 8))
    masks = torch.as_tensor(dense_rows(labels, rows, np.ones(len(labels.actions))) > 0)
    logits = _losses(policy, labels, rows)[2]
    parameters = list(policy.parameters())
    gradients = torch.autograd.grad(logits[masks].sum(), parameters, allow_unused=True)
    critic = [p for p, g in zip(parameters, gradients, strict=True) if g is None]
    if not critic:
        raise ValueError("the critic shares every parameter with the actor: nothing to warm up")
    return critic


def _losses(
    policy: Any,
    labels: Labels,
    rows: np.ndarray,
    policy_target: np.ndarray | None = None,
    value_target: np.ndarray | None = None,
) -> tuple[Any, Any, Any]:
    """The batch ``rows``' policy loss (cross-entropy against ``policy_target``) and value loss
    (squared error against ``value_target``), each ``None`` without its target, and the masked
    logits."""
    import torch

    observations = torch.as_tensor(labels.observations[rows])
    masks = dense_rows(labels, rows, np.ones(len(labels.actions), dtype=np.float32)) > 0
    distribution = policy.get_distribution(observations, action_masks=masks)
    logits = distribution.distribution.logits
    policy_loss = value_loss = None
    if policy_target is not None:
        target = torch.as_tensor(dense_rows(labels, rows, policy_target))
        log_p = torch.log_softmax(logits, dim=1).masked_fill(~torch.as_tensor(masks), 0.0)
        policy_loss = -(target * log_p).sum(dim=1).mean()
    if value_target is not None:
        values = policy.predict_values(observations).flatten()
        value_loss = torch.nn.functional.mse_loss(values, torch.as_tensor(value_target[rows]))
    return policy_loss, value_loss, logits


def judge(
    model: Any, labels: Labels, targets: Targets, value_weight: float = 0.5
) -> dict[str, float]:
    """The network on ``labels`` (held out): its loss (``held_loss``: ``held_policy_loss`` +
    ``value_weight`` × ``held_value_loss``), ``agreement`` (its argmax is the search's choice)
    and ``regret`` (the search's best mean return minus that of the network's argmax), means
    over the labels."""
    import torch

    if not len(labels):
        names = ("held_loss", "held_policy_loss", "held_value_loss", "agreement", "regret")
        return dict.fromkeys(names, math.nan)
    policy = model.policy
    policy_target, value_target = policy_targets(labels, targets), value_targets(labels, targets)
    policy_loss, value_loss, agree, regret = 0.0, 0.0, 0, 0.0
    with torch.no_grad():
        for start in range(0, len(labels), 1024):
            rows = np.arange(start, min(start + 1024, len(labels)))
            batch_policy, batch_value, logits = _losses(
                policy, labels, rows, policy_target, value_target
            )
            picks = logits.argmax(dim=1).numpy()
            values = dense_rows(labels, rows, labels.values, fill=-np.inf)
            policy_loss += batch_policy.item() * len(rows)
            value_loss += batch_value.item() * len(rows)
            agree += int((picks == labels.choice[rows]).sum())
            regret += float((values.max(axis=1) - values[np.arange(len(rows)), picks]).sum())
    n = len(labels)
    return {
        "held_loss": (policy_loss + value_weight * value_loss) / n,
        "held_policy_loss": policy_loss / n,
        "held_value_loss": value_loss / n,
        "agreement": agree / n,
        "regret": regret / n,
    }


# --- Rounds ---------------------------------------------------------------------------------------


@dataclass
class Labelling:
    """Who plays and who labels (:class:`hot_envs.training.search_labels.ShardJob`'s fields)."""

    teacher: str = "search-strong"
    opponents: tuple[tuple[str, float], ...] = (("heuristic", 1.0),)
    labels: int = 20_000  # each round adds
    shard_labels: int = 500
    guide: tuple[str, ...] = ()
    margin: float | None = None
    temperature: float = 1.0
    workers: int = 1
    held_out: float = 0.1  # share of the games
    strength_games: int = 200


def expert_iteration(
    model: Any,
    game: str,
    player_counts: Sequence[int | None],
    rounds: int,
    folder: str | Path,
    labelling: Labelling,
    targets: Targets,
    training: Training,
    metadata: dict[str, Any],
    seed: int = 0,
    progress: bool = False,
    log: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """``rounds`` rounds of expert iteration on ``model`` (module docstring), their labels and
    checkpoints in ``folder``; one entry of figures per round (finished rounds' from their
    ``round.json``). ``metadata`` (``game``, ``options``) goes into the rounds' checkpoints; the
    model ends as the last round trained it."""
    from hot_envs.training.evaluate import evaluate
    from hot_envs.training.export import export_checkpoint, is_action_scorer

    folder = Path(folder)
    history: list[dict[str, Any]] = []
    finished = None  # the last finished round's network, not yet in the model
    for r in range(1, rounds + 1):
        here = folder / f"round-{r:02d}"
        if (here / ROUND_FILE).is_file():  # finished: its figures, and its network below
            history.append(json.loads((here / ROUND_FILE).read_text()))
            finished = here / "trained"
            continue
        if finished is not None:
            _load_weights(model, finished, game)
            finished = None
        started = time.perf_counter()
        here.mkdir(parents=True, exist_ok=True)
        apprentice = here / "apprentice"
        if _saved(apprentice):  # a started round: the apprentice that played it
            _load_weights(model, apprentice, game)
        else:
            export_checkpoint(model, apprentice, _round_metadata(metadata, r, "apprentice"))
        jobs = shard_jobs(
            game,
            player_counts,
            labelling,
            here,
            apprentice,
            folder,
            r,
            seed,
            is_action_scorer(model),
        )
        written = write_shards(jobs, labelling.workers, progress)
        labelled = time.perf_counter() - started
        train, held = read_rounds(folder, r, labelling.held_out)
        before = judge(model, held, targets, training.value_weight)
        epochs = train_apprentice(model, train, held, targets, training, derive_seed(seed, r))
        trained = export_checkpoint(
            model, here / "trained", _round_metadata(metadata, r, "trained")
        )
        strength = []
        if labelling.strength_games > 0:
            strength = evaluate(
                trained,
                game,
                "heuristic",
                labelling.strength_games,
                [n or 2 for n in player_counts],
                derive_seed(seed, r, 1),
                labelling.workers,
            )
        best = min(epochs, key=lambda e: e["held_loss"]) if len(held) else epochs[-1]
        entry = {
            "round": r,
            "labels": len(train) + len(held),
            "new_labels": written,
            "held_out": len(held),
            "agreement_before": before["agreement"],
            "regret_before": before["regret"],
            "agreement": best["agreement"],
            "regret": best["regret"],
            "epochs": len(epochs),
            "best_epoch": best["epoch"],
            "strength": [
                {k: row[k] for k in ("players", "games", "win_share", "ci_low", "ci_high")}
                for row in strength
            ],
            "label_seconds": round(labelled, 1),
            "seconds": round(time.perf_counter() - started, 1),
            "history": epochs,
            "settings": {
                "labelling": asdict(labelling),
                "targets": asdict(targets),
                "training": asdict(training),
            },
        }
        with atomic_file(here / ROUND_FILE) as file:
            file.write((json.dumps(entry, indent=2) + "\n").encode())
        history.append(entry)
        if log is not None:
            log(entry)
    if finished is not None:
        _load_weights(model, finished, game)
    return history


def shard_jobs(
    game: str,
    player_counts: Sequence[int | None],
    labelling: Labelling,
    here: Path,
    apprentice: Path,
    folder: Path,
    r: int,
    seed: int,
    scorer: bool,
) -> list[ShardJob]:
    """Round ``r``'s shards (in ``here``), each with its own seed."""
    shards = math.ceil(labelling.labels / labelling.shard_labels)
    sizes = [labelling.shard_labels] * (shards - 1)
    sizes.append(labelling.labels - sum(sizes))
    snapshots = tuple(str(folder / f"round-{k:02d}" / "apprentice") for k in range(1, r))
    return [
        ShardJob(
            path=str(here / f"shard-{i:04d}.npz"),
            game=game,
            player_counts=tuple(player_counts),
            labels=size,
            seed=derive_seed(seed, r, 2, i),
            apprentice=str(apprentice),
            teacher=labelling.teacher,
            opponents=tuple(labelling.opponents),
            snapshots=snapshots,
            guide=tuple(labelling.guide),
            margin=labelling.margin,
            temperature=labelling.temperature,
            scorer=scorer,
        )
        for i, size in enumerate(sizes)
    ]


def read_rounds(folder: Path, last: int, held_out: float) -> tuple[Labels, Labels]:
    """Every shard of rounds 1 … ``last`` in ``folder``, split into the labels to train on and
    those held out (whole games, by :func:`held_out_rows`)."""
    train, held = [], []
    for r in range(1, last + 1):
        for path in sorted((folder / f"round-{r:02d}").glob("shard-*.npz")):
            labels = load(path)
            out = held_out_rows(labels, f"{path.parent.name}/{path.name}", held_out)
            train.append(labels.rows(np.flatnonzero(~out)))
            held.append(labels.rows(np.flatnonzero(out)))
    if not train:
        raise ValueError(f"no labels in {folder}")
    return concatenate(train), concatenate(held)


def _saved(stem: Path) -> bool:
    return all(stem.with_suffix(suffix).is_file() for suffix in SUFFIXES)


def _load_weights(model: Any, stem: Path, game: str) -> None:
    """Put the network of checkpoint ``stem`` (its ``.zip``) into ``model``."""
    from hot_envs.training.export import trained_model

    source = trained_model(stem, game)[0]
    model.policy.load_state_dict(source.policy.state_dict())


def _round_metadata(metadata: dict[str, Any], r: int, stage: str) -> dict[str, Any]:
    training = {**metadata.get("training", {}), "stage": f"expert iteration round {r}, {stage}"}
    return {**metadata, "training": training}

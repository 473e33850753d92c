"""Trained policies as agents: the checkpoint format, a numpy-only loader and the exporter.

A checkpoint ``NAME`` is three files side by side:

* ``NAME.zip`` — the sb3-contrib ``MaskablePPO`` model, for further training (needs torch);
* ``NAME.npz`` — the policy network's weights, loaded with ``allow_pickle=False``: arrays
  ``layer_0.weight``, ``layer_0.bias``, … (torch's ``(out, in)`` shape), the last layer giving
  the action logits;
* ``NAME.json`` — metadata:

  ==================  ===========================================================================
  key                 meaning
  ==================  ===========================================================================
  ``format``          ``"hot_envs-checkpoint"``; ``format_version`` 1
  ``game``            ``"heisse-luft"`` or ``"heisse-karten"``
  ``options``         what it was trained on, e.g. ``{"num_players": [2, 3]}`` or ``"any"``
  ``observation``     ``{"layout_version", "size"}`` of the game's observation ``LAYOUT``
  ``num_actions``     size of the action space
  ``network``         ``{"architecture": "mlp", "hidden": [256, 256], "activation": "tanh"}``
                      or ``{"architecture": "action_scorer", "state": [256, 64],
                      "scorer": [128, 128], ...}`` (:mod:`hot_envs.agents.scorer`); no
                      ``architecture`` means ``"mlp"``
  ``training``        run summary (steps, opponents, seconds, config …)
  ``evaluation``      win rates with 95 % intervals
  ==================  ===========================================================================

:class:`CheckpointAgent` runs the policy in numpy alone (no torch, no training code): the masked
logits' argmax (what ``MaskablePPO.predict(deterministic=True)`` picks) or, with ``sample=True``,
a draw from the masked softmax. Exporting a trained model and ``SB3Agent`` (the ``.zip`` through
``MaskablePPO.predict``) are :mod:`hot_envs.training.export`. Every file is written beside its
place and renamed into it (:func:`atomic_file`): a crash leaves the old file or the new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from hot_envs.agents.activations import ACTIVATIONS
from hot_envs.agents.arrays import fill_policy_input
from hot_envs.agents.features import ActionRows, unpack
from hot_envs.agents.scorer import ARCHITECTURE, NumpyScorer, read_layers
from hot_envs.agents.shipped import checkpoint_stem, find_checkpoint
from hot_envs.core.engine import Seed, make_rng
from hot_envs.core.games import get_game

FORMAT = "hot_envs-checkpoint"
FORMAT_VERSION = 1


def read_metadata(path: str | Path, game: str | None = None) -> dict[str, Any]:
    """The checkpoint's JSON metadata, checked against this hot_envs (and ``game`` if given):
    ``FileNotFoundError`` for a missing file, ``ValueError`` naming any other problem."""
    stem = find_checkpoint(path)
    file = stem.with_suffix(".json")
    if not file.is_file():
        raise FileNotFoundError(
            f"checkpoint metadata {file} not found (a checkpoint is NAME.zip + NAME.npz + "
            "NAME.json, written by hot_envs.training.export.export_checkpoint)"
        )
    try:
        meta = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"checkpoint metadata {file} is not valid JSON: {error}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f'{file} is not a hot_envs checkpoint (no "format": "{FORMAT}")')
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{file}: checkpoint format version {meta.get('format_version')!r}, "
            f"this hot_envs reads version {FORMAT_VERSION}"
        )
    for key in ("game", "observation", "num_actions", "network"):
        if key not in meta:
            raise ValueError(f"checkpoint metadata {file} lacks the key {key!r}")
    try:
        meta_game = get_game(str(meta["game"]))
    except ValueError:
        raise ValueError(f"{file}: unknown game {meta['game']!r}") from None
    if game is not None and get_game(game).name != meta_game.name:
        raise ValueError(f"checkpoint {stem} is for {meta_game.name}, not {get_game(game).name}")
    engine = meta_game.engine
    observation = meta["observation"]
    if (
        not isinstance(observation, dict)
        or observation.get("layout_version") != engine.LAYOUT.version
        or observation.get("size") != engine.LAYOUT.size
    ):
        raise ValueError(
            f"checkpoint {stem} expects {meta_game.name} observation layout {observation!r}; this "
            f"hot_envs encodes layout_version {engine.LAYOUT.version}, size {engine.LAYOUT.size} "
            "(retrain, or use the hot_envs version it was trained with)"
        )
    if meta["num_actions"] != engine.NUM_ACTIONS:
        raise ValueError(
            f"checkpoint {stem} has {meta['num_actions']} actions; {meta_game.name} has "
            f"{engine.NUM_ACTIONS}"
        )
    activation = meta["network"].get("activation") if isinstance(meta["network"], dict) else None
    if activation not in ACTIVATIONS:
        raise ValueError(f"checkpoint {stem}: unsupported activation {activation!r}")
    meta["game"] = meta_game.name
    return meta


class NumpyPolicy:
    """The masked MLP policy in numpy: ``layers`` are ``(weight (out, in), bias)`` pairs.

    The weights are laid out at load for :meth:`legal_logits`, one decision at a time
    (``benchmarks/inference.py``), float32 and C-contiguous: the first layer ``(in, out)``, so
    that a sparse observation reads only its non-zero entries' rows; the other hidden layers
    ``(in + 1, out)`` and the output ``(actions, in + 1)`` with the bias as an extra row /
    column against a buffer's constant last 1; the output one row per action, so that only the
    legal actions' logits are computed. The buffers make a policy unsafe to share between
    threads; pickling rebuilds it from :attr:`layers`."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str) -> None:
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        # inputs[k]: the input of layer k + 1, a trailing 1 for the bias (none: a linear policy)
        inputs = [np.ones(w.shape[0] + 1, np.float32) for w, _ in layers[:-1]]
        w, b = layers[0]
        self._first = (np.ascontiguousarray(w.T), b.copy(), np.empty(w.shape[0], np.float32))
        self._first_activated = inputs[0][:-1] if inputs else None
        self._hidden = [  # (weight (in + 1, out), input, where its output goes)
            (np.ascontiguousarray(np.vstack([w.T, b[None]])), x, y[:-1])
            for (w, b), x, y in zip(layers[1:-1], inputs, inputs[1:], strict=False)
        ]
        w, b = layers[-1]
        self._output = np.ascontiguousarray(np.hstack([w, b[:, None]])) if inputs else None
        self._output_input = inputs[-1] if inputs else None

    @property
    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The ``(weight (out, in), bias)`` pairs it was made from."""
        w, b, _ = self._first
        layers = [(w.T, b), *((w[:-1].T, w[-1]) for w, _, _ in self._hidden)]
        if self._output is not None:
            layers.append((self._output[:, :-1], self._output[:, -1]))
        return layers

    def __reduce__(self) -> tuple[type, tuple[list[tuple[np.ndarray, np.ndarray]], str]]:
        return NumpyPolicy, (self.layers, self.activation)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Action logits (unmasked) for one observation or a batch."""
        w, b, _ = self._first
        observation = np.asarray(observation, dtype=np.float32)
        if observation.ndim == 2:  # a batch: its non-zero entries only, in a compiled kernel
            from hot_envs.agents.sparse import first_layer

            x = first_layer(observation, w, b)
        else:
            x = observation @ w + b
        if self._output is None:
            return x
        x = self._act(x)
        for w, _, _ in self._hidden:
            x = self._act(x @ w[:-1] + w[-1])
        return x @ self._output[:, :-1].T + self._output[:, -1]

    def masked_logits(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Logits with illegal actions at −inf."""
        return np.where(np.asarray(mask, dtype=bool), self.logits(observation), -np.inf)

    def predict(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The argmax actions of a batch (int64)."""
        return np.argmax(self.masked_logits(observations, masks), axis=-1)

    def legal_logits(self, observation: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The logits of the ``legal`` actions (an index array) for one 1-D observation: the
        fast path of an agent's decision."""
        if observation.dtype is not _FLOAT32:
            observation = np.asarray(observation, dtype=np.float32)
        nonzero = (observation != 0).nonzero()[0]
        w, b, first = self._first
        np.dot(observation[nonzero], w.take(nonzero, axis=0), out=first)
        first += b
        if self._output is None:
            return first[legal]
        act = self._act
        act(first, out=self._first_activated)
        for w, x, y in self._hidden:
            act(np.dot(x, w, out=y), out=y)
        return np.dot(self._output.take(legal, axis=0), self._output_input)


_FLOAT32 = np.dtype(np.float32)


def _load_arrays(stem: Path) -> dict[str, np.ndarray]:
    file = stem.with_suffix(".npz")
    if not file.is_file():
        raise FileNotFoundError(f"checkpoint weights {file} not found (next to {stem}.json)")
    try:
        with np.load(file, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(
            f"checkpoint weights {file} are corrupt or not an .npz file: {error}"
        ) from None


def _load_layers(stem: Path, meta: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    arrays = _load_arrays(stem)
    try:
        layers = read_layers(arrays, "layer", meta["observation"]["size"])
    except ValueError as error:
        raise ValueError(f"checkpoint weights {stem}.npz: {error}") from None
    if layers[-1][0].shape[0] != meta["num_actions"] or len(arrays) != 2 * len(layers):
        raise ValueError(
            f"checkpoint weights {stem}.npz do not form an MLP from "
            f"{meta['observation']['size']} observations to {meta['num_actions']} actions"
        )
    return layers


class CheckpointAgent:
    """A trained policy as an agent, numpy only (module docstring). Use :meth:`load`."""

    def __init__(
        self,
        policy: NumpyPolicy,
        metadata: dict[str, Any],
        sample: bool = False,
        seed: Seed = None,
    ) -> None:
        self.policy = policy
        self.metadata = metadata
        self.game = metadata["game"]
        self.sample = sample
        self.rng = make_rng(seed)

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str | None = None,
        sample: bool = False,
        seed: Seed = None,
    ) -> CheckpointAgent:
        """The checkpoint at ``path`` (``NAME`` or any of its files) or the shipped one of that
        name (:mod:`hot_envs.agents.shipped`) as an agent, checked to be for ``game`` if given:
        ``FileNotFoundError`` for missing files, ``ValueError`` for corrupt or mismatched ones."""
        stem = find_checkpoint(path)
        meta = read_metadata(stem, game)
        activation = meta["network"]["activation"]
        if scores_actions(meta["network"]):
            try:
                policy = NumpyScorer(meta["game"], _load_arrays(stem), activation)
            except ValueError as error:
                raise ValueError(f"checkpoint weights {stem}.npz: {error}") from None
        else:
            policy = NumpyPolicy(_load_layers(stem, meta), activation)
        return cls(policy, meta, sample=sample, seed=seed)

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any] | None = None) -> int:
        mask = observation["action_mask"]
        # an int8 0/1 mask read as bool: nonzero() on bools is the fastest numpy has
        legal = (mask.view(np.bool_) if mask.itemsize == 1 else mask).nonzero()[0]
        if len(legal) == 1:  # nothing to decide (the network would agree)
            return int(legal[0])
        logits = self.legal_logits(observation, view, legal)
        if not self.sample:
            return int(legal[logits.argmax()])
        p = np.exp(logits - logits.max())
        return int(legal[self.rng.choice(len(p), p=p / p.sum())])

    def legal_logits(
        self, observation: dict[str, np.ndarray], view: dict[str, Any] | None, legal: np.ndarray
    ) -> np.ndarray:
        """The network's logits of ``legal`` (ascending action ids); an action scorer reads the
        view too."""
        if isinstance(self.policy, NumpyScorer):
            if not view:
                raise ValueError("an action-scoring checkpoint needs the view to act")
            return self.policy.legal_logits(observation["observation"], view, legal)
        return self.policy.legal_logits(observation["observation"], legal)

    def act_arrays(self, games: Any, which: np.ndarray) -> np.ndarray:
        """The seat to move's action in games ``which`` of an array engine
        (:mod:`hot_envs.agents.arrays`) in one forward pass: what :meth:`act` plays on each."""
        which = np.asarray(which, dtype=np.int64)
        observations = games.observe(rows=which)  # of the seat to move
        if not isinstance(self.policy, NumpyScorer):
            logits = self.policy.masked_logits(observations, games.legal_mask()[which])
            return draw(logits, self.rng) if self.sample else logits.argmax(axis=1)
        spec = self.policy.spec
        packed = np.zeros((len(which), spec.input_size), dtype=np.float32)
        fill_policy_input(games, which, games.current_player[which], observations, packed)
        _, features, ids = unpack(spec, packed)
        decision, slot = np.nonzero(ids >= 0)  # the legal actions, ascending in each row
        lengths = np.bincount(decision, minlength=len(which))
        rows = ActionRows(
            lengths, decision, slot, ids[decision, slot].astype(np.int64), features[decision, slot]
        )
        logits = self.policy.rows_logits(observations, rows)
        choice = draw(logits, self.rng) if self.sample else logits.argmax(axis=1)
        return rows.actions[np.cumsum(rows.lengths) - rows.lengths + choice]


def draw(logits: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of ``logits`` (−inf: never) from its softmax, by inverse CDF over the
    normalised cumulative sums as ``Generator.choice`` draws."""
    cdf = np.exp(logits - logits.max(axis=1, keepdims=True), dtype=np.float64).cumsum(axis=1)
    cdf /= cdf[:, -1:]  # the last column exactly 1 and every draw below it
    return (cdf <= rng.random((len(cdf), 1))).sum(axis=1)


def load_agent(
    path: str | Path, game: str | None = None, seed: Seed = None, sample: bool = False
) -> CheckpointAgent:
    """:meth:`CheckpointAgent.load`, as ``make_agent`` calls it."""
    return CheckpointAgent.load(path, game=game, sample=sample, seed=seed)


@contextlib.contextmanager
def atomic_file(path: str | Path) -> Iterator[IO[bytes]]:
    """A binary file to write ``path`` through: a temporary file beside it, flushed to disk and
    renamed to ``path`` (atomically) when the block ends without an error, else deleted."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with open(temporary, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def fsync_dir(path: str | Path) -> None:
    """Flush a folder's entries (a rename in it) to disk, where the platform allows it."""
    with contextlib.suppress(OSError):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def write_checkpoint(
    path: str | Path,
    game: str,
    arrays: dict[str, np.ndarray],
    network: dict[str, Any],
    metadata: dict[str, Any] | None = None,
    model: Callable[[IO[bytes]], Any] | None = None,
) -> Path:
    """Write checkpoint ``path`` (returns its stem): ``NAME.npz`` (``arrays``), ``NAME.json`` and,
    with ``model``, ``NAME.zip`` (``model(file)`` writes a training backend's model). The JSON's
    format, game, observation layout, action count, ``network`` and ``files`` are filled in, the
    other ``metadata`` copied (``options`` default ``"any"``). Each file is replaced atomically,
    the JSON last, and its metadata read back as a check."""
    stem = checkpoint_stem(path)
    stem.parent.mkdir(parents=True, exist_ok=True)
    engine = get_game(game).engine
    kinds = ("zip", "npz", "json") if model is not None else ("npz", "json")
    meta: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": get_game(game).name,
        "options": (metadata or {}).get("options", "any"),
        "observation": {"layout_version": engine.LAYOUT.version, "size": engine.LAYOUT.size},
        "num_actions": engine.NUM_ACTIONS,
        "network": network,
        "files": {kind: f"{stem.name}.{kind}" for kind in kinds},
    }
    meta.update({k: v for k, v in (metadata or {}).items() if k not in meta})
    if model is not None:
        with atomic_file(stem.with_suffix(".zip")) as file:
            model(file)
    with atomic_file(stem.with_suffix(".npz")) as file:
        np.savez(file, **arrays)
    with atomic_file(stem.with_suffix(".json")) as file:
        file.write((json.dumps(meta, indent=2, default=str) + "\n").encode())
    read_metadata(stem, meta["game"])
    return stem


def mlp_arrays(layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> dict[str, np.ndarray]:
    """An MLP's ``(weight, bias)`` layers (torch's ``(out, in)`` weights) as a checkpoint's
    ``layer_0.weight``, ``layer_0.bias``, … arrays."""
    arrays = {}
    for i, (weight, bias) in enumerate(layers):
        arrays[f"layer_{i}.weight"], arrays[f"layer_{i}.bias"] = weight, bias
    return arrays


def update_metadata(path: str | Path, **fields: Any) -> dict[str, Any]:
    """Set top-level ``fields`` (e.g. ``evaluation``) in a checkpoint's JSON; return it."""
    file = checkpoint_stem(path).with_suffix(".json")
    meta = read_metadata(file)
    meta.update(fields)
    with atomic_file(file) as out:
        out.write((json.dumps(meta, indent=2, default=str) + "\n").encode())
    return meta


def scores_actions(network: dict[str, Any]) -> bool:
    """Whether checkpoint metadata's ``network`` is an action scorer (no ``architecture``: MLP)."""
    return network.get("architecture", "mlp") == ARCHITECTURE

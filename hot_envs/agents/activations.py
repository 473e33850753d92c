"""The activation functions of the numpy policies (:mod:`hot_envs.agents.checkpoint`,
:mod:`hot_envs.agents.scorer`), by the name a checkpoint's ``network.activation`` gives."""

from __future__ import annotations

import numpy as np


def _tanh(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    return np.tanh(x, out=out)


def _relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    return np.maximum(x, np.float32(0.0), out=out)


ACTIVATIONS = {"tanh": _tanh, "relu": _relu}  # module-level functions: agents pickle

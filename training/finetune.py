"""Fine-tuning a cloned policy with PPO without losing the clone: two callbacks.

A cloned policy plays like its teacher; PPO's first updates from it are the dangerous ones. The
critic was fitted to the *teacher's* returns in the teacher's own games and knows nothing of the
learner's results against its opponents, so its first advantages are noise, and large steps on
them undo the cloning before any learning happens.

* :class:`CriticWarmup` freezes the actor for the first ``steps`` environment steps: PPO fits
  only the critic to the returns the learner actually gets (explained variance rises from below
  0), then the actor moves.
* :class:`TeacherAnchor` adds behaviour-cloning steps on the teacher's demonstrations after every
  rollout with a weight that decays linearly to 0 over ``decay_steps``: early, noisy advantages
  cannot drag the policy far from the teacher; later PPO is on its own.

Both log to TensorBoard (``finetune/…``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from hot_envs.training.imitation import Demonstrations


def actor_parameters(policy: Any) -> list[torch.nn.Parameter]:
    """The parameters that shape the action distribution (not the critic's)."""
    net = policy.mlp_extractor
    if hasattr(net, "scorer_net"):  # hot_envs.training.policies.ActionScorerNet
        modules = [net.state_net, net.scorer_net]
    else:  # SB3's MlpExtractor
        modules = [net.policy_net, policy.action_net]
    return [p for module in modules for p in module.parameters()]


class CriticWarmup(BaseCallback):
    """Train only the critic for the first ``steps`` steps of ``learn``."""

    def __init__(self, steps: int, start: int | None = None) -> None:
        super().__init__()
        self.steps = steps
        self.start = start  # the step the warm-up began at (a resumed run); None: learn's start
        self.until = 0
        self.frozen = False

    def _set_frozen(self, frozen: bool) -> None:
        for parameter in actor_parameters(self.model.policy):
            parameter.requires_grad_(not frozen)
        self.frozen = frozen
        self.logger.record("finetune/actor_frozen", float(frozen))

    def _on_training_start(self) -> None:
        self.until = (self.num_timesteps if self.start is None else self.start) + self.steps
        if self.steps > 0 and self.num_timesteps < self.until:
            self._set_frozen(True)

    def _on_rollout_end(self) -> None:
        # Called before the update that follows this rollout: unfreeze once enough steps passed.
        if self.frozen and self.num_timesteps >= self.until:
            self._set_frozen(False)

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        if self.frozen:
            self._set_frozen(False)


class TeacherAnchor(BaseCallback):
    """Behaviour-cloning steps on ``demos`` after each rollout, weight ``coef`` decaying to 0
    over ``decay_steps`` steps (``batches`` minibatches of ``batch_size`` per rollout)."""

    def __init__(
        self,
        demos: Demonstrations,
        coef: float,
        decay_steps: int,
        batches: int = 8,
        batch_size: int = 256,
        learning_rate: float = 1e-4,
        seed: int = 0,
        start: int | None = None,
    ) -> None:
        super().__init__()
        self.demos = demos
        self.start_at = start  # the step the decay began at (a resumed run); None: learn's start
        self.coef, self.decay_steps = coef, decay_steps
        self.batches, self.batch_size, self.learning_rate = batches, batch_size, learning_rate
        self.rng = np.random.default_rng(seed)
        self.start = 0
        self.optimizer: torch.optim.Optimizer | None = None

    def _on_training_start(self) -> None:
        self.start = self.num_timesteps if self.start_at is None else self.start_at
        self.optimizer = torch.optim.Adam(
            actor_parameters(self.model.policy), lr=self.learning_rate
        )

    def weight(self) -> float:
        done = (self.num_timesteps - self.start) / max(self.decay_steps, 1)
        return self.coef * max(0.0, 1.0 - done)

    def _on_rollout_end(self) -> None:
        weight = self.weight()
        self.logger.record("finetune/anchor_weight", weight)
        policy = self.model.policy
        frozen = not any(p.requires_grad for p in actor_parameters(policy))  # CriticWarmup
        if weight <= 0 or frozen or not len(self.demos.actions):
            return
        policy.set_training_mode(True)
        losses = []
        for _ in range(self.batches):
            idx = self.rng.integers(len(self.demos.actions), size=self.batch_size)
            obs = torch.as_tensor(self.demos.observations[idx])
            distribution = policy.get_distribution(obs, action_masks=self.demos.masks[idx])
            loss = -distribution.log_prob(torch.as_tensor(self.demos.actions[idx])).mean()
            self.optimizer.zero_grad()
            (weight * loss).backward()
            torch.nn.utils.clip_grad_norm_(actor_parameters(policy), 0.5)
            self.optimizer.step()
            losses.append(loss.item())
        policy.set_training_mode(False)
        self.logger.record("finetune/anchor_loss", float(np.mean(losses)))

    def _on_step(self) -> bool:
        return True

"""The action-scoring policy for sb3-contrib ``MaskablePPO`` (torch).

Input: the packed vector of :func:`hot_envs.agents.features.policy_input` — the observation, a
feature row per legal action and the actions' ids. The actor embeds the observation
(``state_arch``: an MLP ending in the embedding), then one shared scorer MLP (``scorer_arch``)
maps ``[embedding, action features]`` to that action's logit; the logits are scattered to their
action ids, every other action gets −10⁸ (and the action mask applies as usual); the PPO
update's ``evaluate_actions`` takes the softmax over the slots alone, the same numbers at a
fraction of the cost. The critic is a separate MLP over the observation alone
(``value_arch``). The numpy :class:`hot_envs.agents.scorer.NumpyScorer` runs the same actor and
chooses the same actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from hot_envs.agents.features import SPECS
from hot_envs.core.games import DEFAULT_GAME

FILL = -1e8  # the logit of an action that is not in the input's slots


def _mlp(sizes: list[int], activation: type[nn.Module], last_activation: bool = True) -> nn.Module:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        layers.append(nn.Linear(a, b))
        if last_activation or i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class ActionScorerNet(nn.Module):
    """SB3's ``mlp_extractor`` slot: ``forward_actor`` gives the action logits themselves."""

    def __init__(
        self,
        game: str,
        num_actions: int,
        state_arch: list[int],
        scorer_arch: list[int],
        value_arch: list[int],
        activation: type[nn.Module],
    ) -> None:
        super().__init__()
        self.spec = SPECS[game]
        d, f = self.spec.observation_size, self.spec.size
        self.num_actions = num_actions
        self.state_net = _mlp([d, *state_arch], activation)
        self.scorer_net = _mlp([state_arch[-1] + f, *scorer_arch, 1], activation, False)
        self.critic_net = _mlp([d, *value_arch], activation)
        self.latent_dim_pi = num_actions
        self.latent_dim_vf = value_arch[-1]
        with torch.no_grad():  # start near uniform over the legal actions
            self.scorer_net[-1].weight.mul_(0.01)
            self.scorer_net[-1].bias.zero_()

    def split(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        d, k, f = self.spec.observation_size, self.spec.slots, self.spec.size
        return x[:, :d], x[:, d : d + k * f].reshape(-1, k, f), x[:, d + k * f :]

    def slot_scores(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The logit of each used slot, ``FILL`` in the unused ones, and the slots' action ids
        (−1 where unused): ``(B, slots)`` each."""
        observation, features, ids = self.split(x)
        embedding = self.state_net(observation)
        # Only the used slots go through the scorer; its first layer is split into the
        # embedding's part (once per input) and the features' part (once per action).
        batch, slot = (ids >= 0).nonzero(as_tuple=True)
        first = self.scorer_net[0]
        e = embedding.shape[1]
        hidden = features[batch, slot] @ first.weight[:, e:].T
        hidden = hidden + (embedding @ first.weight[:, :e].T + first.bias)[batch]
        scores = self.scorer_net[1:](hidden).squeeze(-1)
        slots = torch.full(ids.shape, FILL, dtype=scores.dtype)
        return slots.index_put((batch, slot), scores), ids.long()

    def forward_actor(self, x: torch.Tensor) -> torch.Tensor:
        scores, ids = self.slot_scores(x)
        # Unused slots (FILL) land in one spare column past the last action, dropped after.
        n = self.num_actions
        logits = torch.full((x.shape[0], n + 1), FILL, dtype=scores.dtype)
        return logits.scatter(1, torch.where(ids >= 0, ids, n), scores)[:, :n]

    def forward_critic(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic_net(x[:, : self.spec.observation_size])

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)


class ActionScorerPolicy(MaskableActorCriticPolicy):
    """``MaskablePPO(ActionScorerPolicy, env, policy_kwargs={"game": ..., ...})`` on an env whose
    observations are packed inputs (``SingleAgentEnv(...,
    policy_input=ActionScorerInput(game))``, :mod:`hot_envs.agents.features_batch`)."""

    def __init__(
        self,
        *args: Any,
        game: str = DEFAULT_GAME,
        state_arch: list[int] | tuple[int, ...] = (256, 64),
        scorer_arch: list[int] | tuple[int, ...] = (128, 128),
        value_arch: list[int] | tuple[int, ...] = (256, 256),
        **kwargs: Any,
    ) -> None:
        self.game = game
        self.state_arch, self.scorer_arch = list(state_arch), list(scorer_arch)
        self.value_arch = list(value_arch)
        kwargs.setdefault("ortho_init", False)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ActionScorerNet(
            self.game,
            int(self.action_space.n),
            self.state_arch,
            self.scorer_arch,
            self.value_arch,
            self.activation_fn,
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the extractor's actor output is already the logits
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def evaluate_actions(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        action_masks: torch.Tensor | np.ndarray | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Values, log-probabilities of ``actions`` and entropies, as
        ``MaskableActorCriticPolicy.evaluate_actions`` gives them, computed over the input's
        slots (at most ``slots`` legal actions) instead of all the game's actions: the PPO
        update's softmax, entropy and their gradients on a few dozen columns, not hundreds."""
        features = self.extract_features(obs)
        pi_features, vf_features = (
            (features, features) if self.share_features_extractor else features
        )
        net = self.mlp_extractor
        scores, ids = net.slot_scores(pi_features)
        used = ids >= 0
        if action_masks is not None:  # the env's mask; the slots hold the legal actions already
            masks = torch.as_tensor(action_masks, dtype=torch.bool).reshape(len(ids), -1)
            used = used & masks.gather(1, ids.clamp(min=0))
        scores = torch.where(used, scores, FILL)
        log_p = torch.log_softmax(scores, dim=1)
        taken = used & (ids == actions.long().reshape(-1, 1))
        log_prob = torch.where(taken.any(1), (log_p * taken).sum(1), FILL)
        entropy = -torch.where(used, log_p.exp() * log_p, 0.0).sum(1)
        values = self.value_net(net.forward_critic(vf_features))
        return values, log_prob, entropy

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(
            game=self.game,
            state_arch=self.state_arch,
            scorer_arch=self.scorer_arch,
            value_arch=self.value_arch,
        )
        return data

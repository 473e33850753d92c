"""The action-scoring policy for sb3-contrib ``MaskablePPO`` (torch).

Input: the packed vector of :func:`hot_envs.agents.features.policy_input` — the observation, a
feature row per legal action and the actions' ids. The actor embeds the observation
(``state_arch``: an MLP ending in the embedding), then one shared scorer MLP (``scorer_arch``)
maps ``[embedding, action features]`` to that action's logit; the logits are scattered to their
action ids, every other action gets −10⁸ (and the action mask applies as usual). The critic is a
separate MLP over the observation alone (``value_arch``). The numpy
:class:`hot_envs.agents.scorer.NumpyScorer` runs the same actor and chooses the same actions.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from hot_envs.agents.features import SPECS

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

    def forward_actor(self, x: torch.Tensor) -> torch.Tensor:
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
        logits = torch.full((x.shape[0], self.num_actions), FILL, dtype=scores.dtype)
        return logits.index_put((batch, ids[batch, slot].long()), scores)

    def forward_critic(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic_net(x[:, : self.spec.observation_size])

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)


class ActionScorerPolicy(MaskableActorCriticPolicy):
    """``MaskablePPO(ActionScorerPolicy, env, policy_kwargs={"game": ..., ...})`` on an env whose
    observations are packed inputs (``SingleAgentEnv(..., action_features=True)``)."""

    def __init__(
        self,
        *args: Any,
        game: str = "heisse-luft",
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

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(
            game=self.game,
            state_arch=self.state_arch,
            scorer_arch=self.scorer_arch,
            value_arch=self.value_arch,
        )
        return data

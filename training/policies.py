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

A critic that sees the whole table (``[ppo] critic = "state"``, as MAPPO's centralised critic and
Suphx's oracle guiding): the envs append the game's full state to each learner's row
(``critic_state=True`` of :mod:`hot_envs.envs.driver`), the critic reads the row's policy part
and the state, the actor the policy part alone — :class:`StateCriticPolicy` for the MLP,
``critic_state_size`` of :class:`ActionScorerPolicy` for the action scorer. The state holds
hidden cards: it shapes the advantages in training only, and an exported policy plays from the
observation as any other.
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
        critic_state_size: int = 0,
    ) -> None:
        super().__init__()
        self.spec = SPECS[game]
        d, f = self.spec.observation_size, self.spec.size
        self.num_actions = num_actions
        self.critic_state_size = critic_state_size  # the full state's entries after the input
        self.state_net = _mlp([d, *state_arch], activation)
        self.scorer_net = _mlp([state_arch[-1] + f, *scorer_arch, 1], activation, False)
        self.critic_net = _mlp([d + critic_state_size, *value_arch], activation)
        self.latent_dim_pi = num_actions
        self.latent_dim_vf = value_arch[-1]
        with torch.no_grad():  # start near uniform over the legal actions
            self.scorer_net[-1].weight.mul_(0.01)
            self.scorer_net[-1].bias.zero_()

    def split(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        d, k, f = self.spec.observation_size, self.spec.slots, self.spec.size
        return x[:, :d], x[:, d : d + k * f].reshape(-1, k, f), x[:, d + k * f : d + k * f + k]

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
        observation = x[:, : self.spec.observation_size]
        if self.critic_state_size:  # the state after the actor's input
            observation = torch.cat([observation, x[:, self.spec.input_size :]], dim=1)
        return self.critic_net(observation)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)


class ActionScorerPolicy(MaskableActorCriticPolicy):
    """``MaskablePPO(ActionScorerPolicy, env, policy_kwargs={"game": ..., ...})`` on an env whose
    observations are packed inputs (``SingleAgentEnv(...,
    policy_input=ActionScorerInput(game))``, :mod:`hot_envs.agents.arrays`)."""

    def __init__(
        self,
        *args: Any,
        game: str = DEFAULT_GAME,
        state_arch: list[int] | tuple[int, ...] = (256, 64),
        scorer_arch: list[int] | tuple[int, ...] = (128, 128),
        value_arch: list[int] | tuple[int, ...] = (256, 256),
        critic_state_size: int = 0,
        **kwargs: Any,
    ) -> None:
        self.game = game
        self.state_arch, self.scorer_arch = list(state_arch), list(scorer_arch)
        self.value_arch = list(value_arch)
        self.critic_state_size = critic_state_size
        self.actor_size = SPECS[game].input_size  # what the actor reads of its input
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
            self.critic_state_size,
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
            critic_state_size=self.critic_state_size,
        )
        return data


class StateCriticNet(nn.Module):
    """SB3's ``mlp_extractor`` slot of :class:`StateCriticPolicy`: the actor MLP over the
    input's first ``actor_size`` entries (the observation), the critic MLP over all of it (the
    observation and the full state). Named as SB3's ``MlpExtractor``, whose weights it takes."""

    def __init__(
        self,
        actor_size: int,
        input_size: int,
        pi: list[int],
        vf: list[int],
        activation: type[nn.Module],
    ) -> None:
        super().__init__()
        self.actor_size = actor_size
        self.policy_net = _mlp([actor_size, *pi], activation)
        self.value_net = _mlp([input_size, *vf], activation)
        self.latent_dim_pi, self.latent_dim_vf = pi[-1], vf[-1]

    def forward_actor(self, x: torch.Tensor) -> torch.Tensor:
        return self.policy_net(x[:, : self.actor_size])

    def forward_critic(self, x: torch.Tensor) -> torch.Tensor:
        return self.value_net(x)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(x), self.forward_critic(x)


class StateCriticPolicy(MaskableActorCriticPolicy):
    """SB3's MLP policy with a critic that also reads the full state:
    ``MaskablePPO(StateCriticPolicy, env, policy_kwargs={"actor_size": ..., "net_arch": [...]})``
    on envs made with ``critic_state=True`` (``actor_size`` is theirs). The actor is SB3's
    (``policy_net``, ``action_net``), so it exports and plays as an MLP checkpoint."""

    def __init__(self, *args: Any, actor_size: int, **kwargs: Any) -> None:
        self.actor_size = actor_size
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        pi, vf = (arch["pi"], arch["vf"]) if isinstance(arch, dict) else (arch, arch)
        if self.actor_size >= self.features_dim:
            raise ValueError(
                f"the input ({self.features_dim}) must hold the state after the actor's "
                f"{self.actor_size} entries"
            )
        self.mlp_extractor = StateCriticNet(
            self.actor_size, self.features_dim, list(pi), list(vf), self.activation_fn
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(actor_size=self.actor_size)
        return data


def widen(model: Any, source: Any) -> None:
    """Give ``model`` the networks of ``source``, a trained network of the same kind that is as
    wide or narrower in every layer — Net2Net's function-preserving growth: ``model`` plays and
    values every position as ``source`` did, and learns from there with its larger layers.

    Each of ``source``'s weights goes to the same place in ``model``; a layer's new units keep
    their fresh weights in (so they compute something and learn) and get zero weights out (so
    nothing after them changes); a critic that now also reads the full state (``critic =
    "state"``) gets zero weights on the state's entries. The action scorer's first layer reads
    ``[embedding, action features]``: a wider embedding puts its new columns between the two.
    The step count comes along."""
    target, weights = model.policy.state_dict(), source.policy.state_dict()
    if target.keys() != weights.keys():
        raise ValueError("the checkpoint's network is not the run's (compare their [ppo])")
    embeddings = None  # the scorer's first layer: (the checkpoint's, the run's) embedding sizes
    if isinstance(model.policy.mlp_extractor, ActionScorerNet):
        embeddings = (
            source.policy.mlp_extractor.state_net[-2].out_features,
            model.policy.mlp_extractor.state_net[-2].out_features,
        )
    for name, value in weights.items():
        have = target[name]
        if have.shape == value.shape:
            target[name] = value
            continue
        pairs = zip(have.shape, value.shape, strict=False)  # the same length where it matters
        if have.dim() != value.dim() or any(h < v for h, v in pairs):
            raise ValueError(
                f"the checkpoint's {name} is {tuple(value.shape)}, the run's {tuple(have.shape)}:"
                " a network only grows"
            )
        grown = have.clone()  # new units keep their fresh weights in
        rows = len(value)
        if have.dim() == 1:  # a bias
            grown[:rows] = value
        elif name == "mlp_extractor.scorer_net.0.weight" and embeddings is not None:
            old, new = embeddings
            grown[:rows] = 0.0
            grown[:rows, :old] = value[:, :old]  # the embedding's columns …
            grown[:rows, new : new + value.shape[1] - old] = value[:, old:]  # … the features'
        else:
            grown[:rows] = 0.0  # zero weights from the new inputs (new units, state entries)
            grown[:rows, : value.shape[1]] = value
        target[name] = grown
    model.policy.load_state_dict(target)
    model.num_timesteps = source.num_timesteps

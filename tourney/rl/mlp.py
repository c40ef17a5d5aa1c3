"""A trained policy as plain arrays: a multilayer perceptron (MLP) over the observation encoding,
and its forward pass in numpy.

Standard library and numpy only, and no import of tourney: ``tourney export-bot`` copies this
file into a bot's folder, so the bot computes exactly what :class:`MLP` computes here.

The file format is one numpy ``.npz`` archive (``np.load(path)`` reads it, no pickle):

- ``w0``, ``b0``, ``w1``, ``b1``, ...: layer ``i`` maps ``x`` to ``x @ w{i} + b{i}``
  (``w{i}`` has shape ``(inputs, outputs)``: a torch ``Linear``'s ``weight`` transposed);
- ``activation``: ``"relu"``, ``"tanh"`` or ``"identity"``, between layers (never after the last);
- ``inputs``: what the first layer reads, ``"observation"`` (the encoding's vector) or
  ``"action_mask+observation"`` (the mask, then the observation, as Stable-Baselines3's
  ``MultiInputPolicy`` joins the environment's dict observation: its keys in sorted order);
- ``rule_set``, ``players``, ``cards``: the game set-up the policy was trained for (its encoding
  is ``Encoding(cards, players)``).

The last layer's outputs are one score per action (``Encoding.actions`` of them). The policy's
choice is the offered action with the highest score, the lowest action among equals.

>>> import numpy as np
>>> mlp = MLP([(np.eye(3), np.zeros(3))], rule_set="crazy-eights", players=2, cards=52)
>>> mlp.act(np.array([0.2, 0.9, 0.5]), np.array([1, 0, 1]))   # action 1 scores best, but is not offered
2
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

FORMAT = "tourney-mlp"
ACTIVATIONS = ("relu", "tanh", "identity")
INPUTS = ("observation", "action_mask+observation")


class MLPError(ValueError):
    """A policy file or layer list that is not an MLP of this format."""


def _activate(name: str, x: np.ndarray) -> np.ndarray:
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "tanh":
        return np.tanh(x)
    return x


class MLP:
    """Layers ``[(w, b), ...]``, an activation, what the input is, and the game set-up."""

    def __init__(self, layers: list[tuple[Any, Any]], *, rule_set: str, players: int, cards: int,
                 activation: str = "relu", inputs: str = "observation"):
        if activation not in ACTIVATIONS:
            raise MLPError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {activation!r}")
        if inputs not in INPUTS:
            raise MLPError(f"inputs must be one of {', '.join(INPUTS)}, not {inputs!r}")
        if not layers:
            raise MLPError("an MLP needs at least one layer")
        # float64: the choice must not hang on the last bits of a float32 sum
        self.layers = [(np.asarray(w, np.float64), np.asarray(b, np.float64).reshape(-1)) for w, b in layers]
        for i, (w, b) in enumerate(self.layers):
            if w.ndim != 2 or w.shape[1] != b.shape[0]:
                raise MLPError(f"layer {i}: w{i} has shape {w.shape} and b{i} {b.shape}: "
                               "w must be (inputs, outputs) and b (outputs,)")
            if i and w.shape[0] != self.layers[i - 1][0].shape[1]:
                raise MLPError(f"layer {i} takes {w.shape[0]} inputs, but layer {i - 1} gives "
                               f"{self.layers[i - 1][0].shape[1]}")
        self.activation = activation
        self.inputs = inputs
        self.rule_set = rule_set
        self.players = int(players)
        self.cards = int(cards)

    @property
    def input_size(self) -> int:
        return self.layers[0][0].shape[0]

    @property
    def output_size(self) -> int:
        return self.layers[-1][0].shape[1]

    def scores(self, observation: Any, mask: Any) -> np.ndarray:
        """The last layer's outputs: one score per action."""
        x = np.asarray(observation, np.float64)
        if self.inputs == "action_mask+observation":
            x = np.concatenate([np.asarray(mask, np.float64), x])
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                x = _activate(self.activation, x)
        return x

    def act(self, observation: Any, mask: Any) -> int:
        """The offered action (``mask`` 1) with the highest score; the lowest of equals."""
        offered = np.flatnonzero(np.asarray(mask))
        if offered.size == 0:
            raise MLPError("no action is offered")
        scores = self.scores(observation, mask)
        return int(offered[int(np.argmax(scores[offered]))])

    __call__ = act  # a policy(observation, mask) -> action, as the environments' opponents are

    # -- the file --------------------------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> None:
        arrays: dict[str, Any] = {"format": np.array(FORMAT), "activation": np.array(self.activation),
                                  "inputs": np.array(self.inputs), "rule_set": np.array(self.rule_set),
                                  "players": np.array(self.players), "cards": np.array(self.cards)}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        with open(path, "wb") as f:  # a file object: np.savez would add ".npz" to a name without it
            np.savez(f, **arrays)

    @classmethod
    def load(cls, path: str | os.PathLike) -> MLP:
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise MLPError(f"{path}: not a numpy .npz archive ({exc})") from None
        missing = [k for k in ("rule_set", "players", "cards", "w0", "b0") if k not in arrays]
        if missing:
            raise MLPError(f"{path}: no {', '.join(missing)} in it (see tourney/rl/mlp.py for the format)")
        if "format" in arrays and str(arrays["format"]) != FORMAT:
            raise MLPError(f"{path}: format {str(arrays['format'])!r}, not {FORMAT!r}")
        layers: list[tuple[Any, Any]] = []
        while f"w{len(layers)}" in arrays:
            i = len(layers)
            if f"b{i}" not in arrays:
                raise MLPError(f"{path}: w{i} without b{i}")
            layers.append((arrays[f"w{i}"], arrays[f"b{i}"]))
        return cls(layers, rule_set=str(arrays["rule_set"]), players=int(arrays["players"]),
                   cards=int(arrays["cards"]), activation=str(arrays.get("activation", "relu")),
                   inputs=str(arrays.get("inputs", "observation")))

"""From a trained policy to a protocol bot: ``tourney export-bot NAME POLICY.npz``.

The policy is an MLP saved as a ``.npz`` archive (:mod:`tourney.rl.mlp` describes the format;
:func:`save_mlp` writes one from any framework's weights). :func:`export_bot` writes a bot folder
that needs nothing but Python and numpy, with or without tourney installed:

- ``bot.py``: the bot: it encodes every request, runs the forward pass and answers the offered
  option the policy scores highest;
- ``policy.npz``: the weights, as given;
- ``mlp.py``: the forward pass (a copy of :mod:`tourney.rl.mlp`, numpy only);
- ``encoding.py``: the observation encoding the policy was trained on (a copy of
  :mod:`tourney.rl.encoding`, the very function the environments' observations equal);
- ``botkit.py``: the protocol helper (a copy of :mod:`tourney.botkit.kit`, standard library);
- ``README.md``: what it is and how to check it.

The folder carries copies rather than importing tourney, as ``tourney new-bot`` does for its
helper: it runs anywhere (another machine, a tournament with another tourney version), and the
bot keeps the encoding its policy was trained with even when tourney's changes later.

A torch model (``nn.Sequential`` of ``Linear`` layers and one activation) in one line::

    save_mlp("policy.npz", [(m.weight.detach().cpu().numpy().T, m.bias.detach().cpu().numpy())
                            for m in net.modules() if isinstance(m, torch.nn.Linear)],
             activation="tanh", rule_set="crazier-eights", players=2)
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any

import engine
from tourney.errors import UserError
from tourney.rl.encoding import Encoding
from tourney.rl.mlp import MLP, MLPError

#: the files of a bot folder, in the order they are written
FILES = ("bot.py", "policy.npz", "mlp.py", "encoding.py", "botkit.py", "README.md")


def save_mlp(path: str | os.PathLike, layers: list[tuple[Any, Any]], *, rule_set: str, players: int,
             activation: str = "relu", inputs: str = "observation", options: dict | None = None,
             teams: list[list[int]] | None = None) -> MLP:
    """Save ``layers`` (``[(w, b), ...]``, ``w`` of shape ``(inputs, outputs)``) as a policy file
    for games of ``rule_set`` with ``players`` seats; the MLP saved. Its sizes are checked
    against the encoding of that set-up (the number of cards comes from the engine)."""
    game = engine.new_game(rule_set, players=players, seed=0, options=options, teams=teams)
    encoding = Encoding.for_game(game)
    mlp = MLP(layers, rule_set=rule_set, players=players, cards=encoding.cards, activation=activation,
              inputs=inputs)
    problem = fit_problem(mlp)
    if problem is not None:
        raise MLPError(problem)
    mlp.save(path)
    return mlp


def fit_problem(mlp: MLP) -> str | None:
    """Why ``mlp`` cannot read its set-up's observations or score its actions; None if it can."""
    if mlp.rule_set not in engine.RULE_SETS:
        return f"rule set {mlp.rule_set!r} is unknown (known: {', '.join(sorted(engine.RULE_SETS))})"
    encoding = Encoding(mlp.cards, mlp.players)
    wanted = encoding.size + (encoding.actions if mlp.inputs == "action_mask+observation" else 0)
    if mlp.input_size != wanted:
        return (f"the first layer takes {mlp.input_size} inputs, but {mlp.inputs} of {mlp.rule_set} with "
                f"{mlp.players} players and {mlp.cards} cards has {wanted}")
    if mlp.output_size != encoding.actions:
        return f"the last layer gives {mlp.output_size} scores, but there are {encoding.actions} actions"
    return None


def _source(package: str, name: str) -> str:
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


BOT = '''#!/usr/bin/env python3
"""__NAME__: a trained policy as a tourney protocol bot (written by `tourney export-bot`).

    tourney check -- {python} bot.py

It encodes every request with encoding.py (the encoding the policy was trained on), scores the
actions with the MLP in policy.npz (mlp.py, numpy) and answers the offered option scored
highest. Needs Python 3.11+ and numpy; everything else is in this folder.
"""

import sys
from pathlib import Path

sys.dont_write_bytecode = True  # a sandboxed bot writes only its scratch directory
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # this folder's copies first

from botkit import game, log, run  # noqa: E402
from encoding import Encoding  # noqa: E402
from mlp import MLP  # noqa: E402

policy = MLP.load(HERE / "policy.npz")
encoding = Encoding(policy.cards, policy.players)


def choose(view, options):
    if game.rule_set != policy.rule_set or len(game.cards) != policy.cards or game.players != policy.players:
        log(f"__NAME__ was trained for {policy.rule_set} with {policy.players} players and {policy.cards} cards, "
            f"not {game.rule_set} with {game.players} and {len(game.cards)}: answering the first option")
        return options[0]
    mask = encoding.mask(options)
    return encoding.option(policy.act(encoding.encode(view, game.kind), mask), options)


if __name__ == "__main__":
    run(choose, name="__NAME__")
'''

README = '''# __NAME__

A trained policy as a tourney protocol bot, written by `tourney export-bot`: an MLP
(`policy.npz`, __LAYERS__, __ACTIVATION__) for __RULE_SET__ with __PLAYERS__ players.

| file | what it is |
| --- | --- |
| `bot.py` | the bot: encodes each request, runs the MLP, answers the best offered option |
| `policy.npz` | the weights (format: `mlp.py`'s docstring) |
| `mlp.py` | the forward pass, numpy only |
| `encoding.py` | the observation encoding the policy was trained on |
| `botkit.py` | the protocol helper |

Needs Python 3.11+ and numpy, nothing else: no tourney, no torch.

```sh
tourney check -- {python} bot.py                                          # the protocol, sandboxed
tourney sprt __NAME__ greedy --config event.toml --duplicate --elo1 50    # with an event naming it
```

As an entrant of an event: `command = ["{python}", "bot.py"]` and `cwd` this folder.
'''


def export_bot(name: str, policy: str | os.PathLike, folder: str | os.PathLike | None = None) -> list[Path]:
    """Write bot ``name`` playing the MLP in ``policy`` into ``folder`` (default ``./name``); the
    files written. The folder must not exist, or be empty (nothing is overwritten)."""
    from tourney.botkit.skeleton import NAME  # the same rule for names as new-bot's

    if not NAME.fullmatch(name):
        raise UserError(f"bot name {name!r}: use a letter, then letters, digits, '-' or '_' (at most 64)")
    source = Path(policy)
    if not source.is_file():
        raise UserError(f"{source}: no such policy file")
    try:
        mlp = MLP.load(source)
    except MLPError as exc:
        raise UserError(str(exc)) from None
    problem = fit_problem(mlp)
    if problem is not None:
        raise UserError(f"{source}: {problem}")
    target = Path(folder) if folder is not None else Path(name)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UserError(f"{target}: already exists and is not an empty folder; nothing written")
    try:
        target.mkdir(parents=True, exist_ok=True)
        target.chmod(0o755)  # readable by everyone: when tourney runs as root, bots run as nobody
    except OSError as exc:
        raise UserError(f"{target}: cannot create the folder ({exc.strerror})") from None
    sizes = [mlp.input_size] + [w.shape[1] for w, _ in mlp.layers]
    texts = {
        "bot.py": BOT.replace("__NAME__", name),
        "mlp.py": _source("tourney.rl", "mlp.py"),
        "encoding.py": _source("tourney.rl", "encoding.py"),
        "botkit.py": _source("tourney.botkit", "kit.py"),
        "README.md": (README.replace("__NAME__", name).replace("__RULE_SET__", mlp.rule_set)
                      .replace("__PLAYERS__", str(mlp.players)).replace("__ACTIVATION__", mlp.activation)
                      .replace("__LAYERS__", " -> ".join(map(str, sizes)))),
    }
    written = []
    for file in FILES:
        path = target / file
        if file == "policy.npz":
            path.write_bytes(source.read_bytes())
        else:
            path.write_text(texts[file], encoding="utf-8")
        path.chmod(0o755 if file == "bot.py" else 0o644)
        written.append(path)
    return written

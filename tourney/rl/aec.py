"""The eights family as a PettingZoo AEC environment (``pip install -e '.[rl]'``).

>>> env = EightsEnv("crazy-eights", players=3)
>>> env.reset(seed=7)
>>> env.agent_selection in env.possible_agents
True
>>> obs, reward, terminated, truncated, info = env.last()
>>> sorted(obs), obs["observation"].shape == (env.encoding.size,)
(['action_mask', 'observation'], True)
>>> action = int(obs["action_mask"].argmax())       # the first legal action
>>> env.option_of(action) in env.game.pending.options
True
>>> env.step(action)

Agents are ``player_0`` ... ``player_<n-1>``, one per seat. The agent to act is the seat of the
engine's pending decision, so Crazier Eights' questions asked out of turn (Guardian Valkyrie's
save, Trade's give) go to the seat asked, as in a tournament. Observations and actions follow
:mod:`tourney.rl.encoding` (docs/tutorial.md, part 2); an observation is exactly the encoding of
that seat's view, kept up to date from the engine's state by :mod:`tourney.rl.observe`.

The game ends for every agent at once: all agents get their reward when the engine's result
is in (``reward="win"``: +1 a winner, -1 everyone else, 0 for all when nobody won;
``reward="placement"``: from +1 for the first place down to -1 for the last;
``reward="points"``: minus the seat's league points, see :func:`outcome`), and ``infos`` then
hold the result. A player eliminated earlier just stops being asked.

:meth:`EightsEnv.state` is the whole table for a centralised critic (hidden cards included,
so never an agent's input at play time; :func:`table_state`), apart from the observations;
:meth:`EightsEnv.clone` is an independent copy of the environment in the middle of a game.
With ``history=True``, :meth:`EightsEnv.history` is an agent's information-state history: every
event it has been shown, its own decisions among them (:func:`information_state`).

``reset(seed=s)`` plays the engine's game of seed ``s``, so ``engine.replay(env.start(),
env.game.choices)`` re-creates it exactly; ``reset()`` without a seed draws the next game's seed
from the last seed given (or from the system when none was). ``render()`` is the narrated log
(tourney/narrate.py): ``render_mode="ansi"`` returns the lines since the previous call,
``"human"`` prints them.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import engine
from tourney import narrate
from tourney.rl.encoding import Encoding
from tourney.rl.observe import Observer, observer_for

REWARDS = ("win", "placement", "points")
RENDER_MODES = ("ansi", "human")
#: declared for wrappers that pace a "human" render (the log is text: nothing is drawn at a rate)
RENDER_FPS = 4


class IllegalAction(ValueError):
    """An action that is not one of the pending decision's options."""


def outcome(result: engine.Result, seat: int, players: int, kind: str = "win") -> float:
    """The reward of ``seat`` for a finished game, by ``kind``:

    - ``"win"``: +1 a winner, -1 everyone else, 0 for all when nobody won;
    - ``"placement"``: from +1 for the first place down to -1 for the last, shared places alike;
    - ``"points"``: minus the seat's league points (``Result.points``, where fewer is better), so
      that more reward is better, as learners expect: 0 for a seat that went out clean.
    """
    if kind == "win":
        return 0.0 if not result.winners else (1.0 if seat in result.winners else -1.0)
    if kind == "points":
        return -float(result.points[seat])
    return 1.0 - 2.0 * (result.placements[seat] - 1) / (players - 1)


def clone_game(game: Any) -> Any:
    """An independent copy of an engine game: its own ``clone()`` where the engine has one, else a
    deep copy (the game is plain Python data, so both continue exactly as the original would)."""
    clone = getattr(game, "clone", None)
    return clone() if clone is not None else copy.deepcopy(game)


def state_size(encoding: Encoding) -> int:
    """Length of :func:`table_state`'s vector."""
    return encoding.players * (encoding.size + encoding.cards) + encoding.cards + encoding.players


def table_state(encoding: Encoding, observer: Observer, game: Any, order: Sequence[int]) -> np.ndarray:
    """The whole table as one float32 vector in [0, 1], for a centralised critic: hidden cards
    included, so it is for training only, never an input of a playing policy.

    With seats taken in ``order`` (every seat once; the environments put seat 0, or the learner,
    first), it is, in this order:

    - every seat's observation (:class:`Encoding`; the decision's ``kind`` set for the seat asked):
      the public table and what each seat knows;
    - per seat, a card plane of every card in the hands it holds (dummies included);
    - a card plane of the draw pile's cards (their order is not encoded);
    - a one-hot of the seat asked now (all zero once the game is over).
    """
    pending = game.pending
    asked = pending.player if pending is not None else None
    cards, players = encoding.cards, encoding.players
    held = np.zeros((players, cards), np.float32)
    place = {seat: k for k, seat in enumerate(order)}
    for hand, holder in zip(game.hands, game.hand_players()):
        held[place[holder], hand] = 1.0
    draw = np.zeros(cards, np.float32)
    draw[list(game.draw_pile)] = 1.0
    to_act = np.zeros(players, np.float32)
    if asked is not None:
        to_act[place[asked]] = 1.0
    seen = [observer.observe(s, pending.kind if s == asked else None) for s in order]
    return np.concatenate([*seen, held.ravel(), draw, to_act])


def start_history(game: Any) -> list[list[dict]]:
    """Every seat's information-state history when a game is handed over (before its first
    decision): the seat's hand then."""
    return [[{"type": "hand", "player": s, "cards": list(game.view(s)["hand"])}] for s in range(game.players)]


def record_decision(history: list[list[dict]], game: Any, option: str) -> None:
    """Call before ``game`` applies ``option`` to its pending decision: the asked seat's history
    takes the events since its previous decision (the engine's view shows them only until the
    seat answers), then the decision and its answer."""
    pending = game.pending
    seat = pending.player
    history[seat].extend(game.view(seat)["events"])
    history[seat].append({"type": "decision", "player": seat, "kind": pending.kind, "option": option})


def information_state(history: list[list[dict]], game: Any, seat: int) -> list[dict]:
    """What ``seat`` has seen of the game so far, in order, as JSON-ready events: its hand before
    the first decision, then every event its view has shown it (the public ones, and the private details
    meant for it alone, such as the cards it drew), with its own decisions among them as
    ``{"type": "decision", "player", "kind", "option"}``: the same events a protocol bot in that
    seat is sent, from the first request to the end. Nothing hidden from the seat is in it."""
    return [*history[seat], *game.view(seat)["events"]]


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def start_agents(env: AECEnv, first_seat: int) -> None:
    """PettingZoo's per-agent bookkeeping at the start of a game: every agent in, nothing earned
    or ended yet, seat ``first_seat`` to act."""
    env.agents = env.possible_agents[:]
    env.rewards = dict.fromkeys(env.agents, 0.0)
    env._cumulative_rewards = dict.fromkeys(env.agents, 0.0)
    env.terminations = dict.fromkeys(env.agents, False)
    env.truncations = dict.fromkeys(env.agents, False)
    env.infos = {a: {} for a in env.agents}
    env.agent_selection = env.possible_agents[first_seat]


class EightsEnv(AECEnv):
    """One game of ``rule_set`` for ``players`` seats (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "eights_v0", "is_parallelizable": False,
                "render_fps": RENDER_FPS}
    # set by start_agents() at every reset
    agent_selection: str
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict]

    def __init__(
        self,
        rule_set: str = "crazier-eights",
        players: int = 2,
        options: dict | None = None,
        teams: list[list[int]] | None = None,
        first_player: int | None = None,
        reward: str = "win",
        max_decisions: int | None = None,
        render_mode: str | None = None,
        names: list[str] | None = None,
        history: bool = False,
    ):
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        self.rule_set = rule_set
        self.players = players
        self.options = engine.validate_options(rule_set, options, players)
        self.teams = teams
        self.first_player = first_player
        self.reward_kind = reward
        self.max_decisions = max_decisions
        self.render_mode = render_mode
        self.names = list(names) if names else [agent_name(s) for s in range(players)]
        self.keep_history = history
        self._history: list[list[dict]] = []
        # the card table depends on the set-up only, never on the shuffle
        self.encoding = Encoding.for_game(self._new_game(0))
        self.possible_agents = [agent_name(s) for s in range(players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        n = self.encoding.actions
        self._option_ids = self.encoding.option_ids
        self._action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (self.encoding.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        #: the space of :meth:`state` (PettingZoo's name for it)
        self.state_space = spaces.Box(0.0, 1.0, (state_size(self.encoding),), dtype=np.float32)
        self._seeder: random.Random | None = None
        self._seeded_with: Any = None  # the last seed given to reset()
        self.game: Any = None
        self._observer: Observer | None = None
        self._table: narrate.Table | None = None  # made when the log is first read
        self.seed: int | None = None
        self._log: list[str] = []
        self._shown = 0
        self._rendered = 0

    # -- spaces ----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # -- the game --------------------------------------------------------------------------------
    def _new_game(self, seed: int):
        return engine.new_game(self.rule_set, players=self.players, seed=seed, options=self.options,
                               first_player=self.first_player, teams=self.teams)

    def start(self) -> dict:
        """The ``engine.replay`` start of the current game."""
        return {"rule_set": self.rule_set, "players": self.players, "seed": self.seed,
                "options": self.options, "first_player": self.first_player, "teams": self.teams}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            # the seeder of later resets without a seed is made only when one comes (seeding a
            # Random costs a few engine steps)
            self._seeder, self._seeded_with = None, seed
            self.seed = int(seed)
        else:
            if self._seeder is None:
                self._seeder = random.Random(self._seeded_with)  # None: from the system
            self.seed = self._seeder.getrandbits(32)
        self.game = self._new_game(self.seed)
        self._log = []  # narrated when read (see _narrate)
        self._shown = 0
        self._rendered = 0
        self.decisions = 0
        if self.keep_history:
            self._history = start_history(self.game)
        start_agents(self, self.game.pending.player)

    def observe(self, agent: str) -> dict:
        seat = self._seat[agent]
        game = self.game
        observer = self._observer
        if observer is None or observer.game is not game:  # a new game, or one put in its place
            observer = self._observer = observer_for(self.encoding, game)
        pending = game.pending
        # only the asked agent's observation is built, when it is asked for (``last()``)
        if pending is not None and pending.player == seat and not self.truncations.get(agent, False):
            return {"observation": observer.observe(seat, pending.kind),
                    "action_mask": self.encoding.mask(pending.options)}
        return {"observation": observer.observe(seat),
                "action_mask": np.zeros(self.encoding.actions, np.int8)}

    def history(self, agent: str) -> list[dict]:
        """``agent``'s information-state history (``history=True``; :func:`information_state`)."""
        if not self.keep_history:
            raise RuntimeError("made without history: EightsEnv(..., history=True) keeps it")
        return information_state(self._history, self.game, self._seat[agent])

    def state(self) -> np.ndarray:
        """The whole table for a centralised critic (:func:`table_state`, seats in seat order):
        every seat's observation, every hand, the draw pile and the seat asked. It holds hidden
        cards: train a critic on it, never give it to an acting policy."""
        if self.game is None:
            raise RuntimeError("no game yet: call reset()")
        if self._observer is None or self._observer.game is not self.game:
            self._observer = observer_for(self.encoding, self.game)
        return table_state(self.encoding, self._observer, self.game, range(self.players))

    def clone(self) -> EightsEnv:
        """An independent copy of the environment as it stands, mid-game included: stepping one
        changes nothing in the other, and both continue as this one would (for search, or to
        branch a game). Spaces and the encoding are shared (they never change)."""
        memo: dict[int, Any] = {id(x): x for x in (self.encoding, self._table, self._action_spaces,
                                                   self._observation_spaces, self.state_space)}
        memo[id(self._observer)] = None  # rebuilt from the copied game when first asked
        if self.game is not None:
            memo[id(self.game)] = clone_game(self.game)
        return copy.deepcopy(self, memo)

    def option_of(self, action: int) -> str:
        """The option id of the pending decision that ``action`` stands for (``Encoding.option``,
        without its call: it is paid at every step)."""
        action = int(action)
        options = self.game.pending.options
        if 0 <= action < len(self._option_ids):
            option_id = self._option_ids[action]
            if option_id in options:
                return option_id
        raise IllegalAction(f"action {action} is not one of the offered options {options}")

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalAction(f"{agent} is asked to decide: None is no action")
        game = self.game
        option = self.option_of(action)
        if self.keep_history:
            record_decision(self._history, game, option)
        game.apply(option)
        self.decisions += 1
        self._cumulative_rewards[agent] = 0.0
        pending = game.pending
        # every reward stays 0 until the game ends, so ``rewards`` and the cumulative rewards change
        # only then (rebuilding and adding them up every step costs a tenth of an engine step)
        if pending is None:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._finish()
            self._accumulate_rewards()
        elif self.max_decisions is not None and self.decisions >= self.max_decisions:
            self.truncations = dict.fromkeys(self.agents, True)
            self._narrate()
            self._log.append(f"truncated after {self.decisions} decisions")
        else:
            self.agent_selection = self.possible_agents[pending.player]
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        result = self.game.result
        for a in self.agents:
            self.rewards[a] = outcome(result, self._seat[a], self.players, self.reward_kind)
            self.terminations[a] = True
            self.infos[a] = {"winners": list(result.winners), "reason": result.reason,
                             "points": list(result.points), "placements": list(result.placements)}

    def _narrate(self) -> None:
        """Narrate the events not narrated yet: only when the log is read (narrating every step
        would cost as much as the step)."""
        game = self.game
        if self._table is None:  # the card table depends on the set-up only: one serves every game
            self._table = narrate.table_for(game, self.names)
        if not self._log:
            self._log.append(f"game: {self.rule_set}, seed {self.seed}; "
                             + ", ".join(f"seat {s} {n}" for s, n in enumerate(self.names)))
        events = game.events
        if self._shown > len(events):
            return  # the game is over and narrated, result included
        while self._shown < len(events):
            self._log.append(narrate.event(self._table, events[self._shown]))
            self._shown += 1
        if game.result is not None:
            result = game.result
            self._log.append(narrate.result_line(self._table, result.winners, result.reason, result.points))
            self._shown += 1

    # -- text ------------------------------------------------------------------------------------
    @property
    def log(self) -> list[str]:
        """The narrated log of the current game so far: the referee's log, so it names the cards
        each seat drew (it is for people watching; observations never read it)."""
        if self.game is not None:
            self._narrate()
        return list(self._log)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.game is not None:
            self._narrate()
        text, self._rendered = render_lines(self._log, self._rendered, self.render_mode)
        return text

    def close(self) -> None:
        """Nothing to release: the game is plain Python data."""


def render_lines(log: list[str], shown: int, mode: str) -> tuple[str | None, int]:
    """The log lines not rendered yet, printed (``"human"``) or returned (``"ansi"``), and how
    many lines are rendered now."""
    text = "\n".join(log[shown:])
    if mode == "human":
        if text:
            print(text)
        return None, len(log)
    return text, len(log)


def raw_env(**kwargs) -> EightsEnv:
    """The environment itself (PettingZoo's naming)."""
    return EightsEnv(**kwargs)


def env(**kwargs):
    """The environment inside PettingZoo's order-enforcing wrapper (PettingZoo's naming)."""
    from pettingzoo.utils import wrappers  # pettingzoo's wrappers load only for those who ask for them

    return wrappers.OrderEnforcingWrapper(EightsEnv(**kwargs))

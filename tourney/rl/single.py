"""One learned seat against bots, as a Gymnasium environment (``pip install -e '.[rl]'``).

>>> env = SingleSeatEnv("crazy-eights", opponents=["greedy", "random"])
>>> obs, info = env.reset(seed=3)
>>> obs["observation"].shape == (env.encoding.size,), bool(info["action_mask"].any())
(True, True)
>>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
>>> env.close()

The learner sits in ``seat`` (0 by default; ``None`` draws it from each game's seed); the other
seats are taken, in seat order, by ``opponents``. An opponent is one of:

- a built-in bot's name (``engine.bots.BOT_NAMES``: ``"random"``, ``"greedy"``, ...);
- a command (a list or tuple of strings), e.g. ``["{python}", "bots/mine.py"]``: a protocol bot
  program (docs/protocol.md), started once, sandboxed like in an event and spoken to by the
  referee's own code;
- an :class:`tourney.bots.entrants.EntrantSpec`, for a working directory, limits or sandbox;
- an in-process policy: any callable ``policy(observation, mask) -> action``, called with that
  seat's own observation vector and action mask (what the learner would get in that seat);
- :class:`Snapshots`: earlier copies of the learner (self-play), one of them drawn for each game.

Anything else is refused when the environment is made, with a message that says what is accepted.

Observations, actions and rewards are the AEC environment's (:mod:`tourney.rl.aec`, docs/tutorial.md part 2):
``reward="win"`` (the default), ``"placement"`` or ``"points"`` (minus the learner's league points).
The action mask is in the observation, in ``info["action_mask"]`` and from :meth:`action_masks`.
An action that is not one of the offered options forfeits the game (``illegal="forfeit"``, the
default: the learner loses under the rules, as a faulting bot does, and ``info["illegal"]`` says
so) or raises :class:`~tourney.rl.aec.IllegalAction` (``illegal="raise"``). The same setting
holds for an in-process opponent's action that is not offered.

A built-in opponent's random numbers, and the snapshot each game draws, are seeded from each
game's seed, so ``reset(seed=s)`` followed by the same actions replays exactly (as long as the
in-process policies are deterministic); a protocol bot does as its program does (it is sent a
seed in its hello, once). An opponent's fault makes it lose under the rules, as in an event.

:meth:`SingleSeatEnv.state` is the whole table for a centralised critic (the learner's seat
first), apart from the observation; with ``history=True``, :meth:`SingleSeatEnv.history` is the
learner's information-state history; :meth:`SingleSeatEnv.clone` copies the environment mid-game
(not with protocol bots: a process cannot be copied).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import engine
from tourney import narrate
from tourney.bots import protocol
from tourney.bots.base import Entrant
from tourney.bots.entrants import EntrantSpec, open_entrant
from tourney.bots.protocol import ProtocolError
from tourney.rl import ENV_ID  # noqa: F401 (registered with Gymnasium by tourney.rl; kept importable here)
from tourney.rl.aec import (
    RENDER_FPS,
    RENDER_MODES,
    REWARDS,
    IllegalAction,
    clone_game,
    information_state,
    outcome,
    record_decision,
    render_lines,
    start_history,
    state_size,
    table_state,
)
from tourney.rl.encoding import Encoding, EncodingError
from tourney.rl.observe import Observer, observer_for
from tourney.rl.opponents import PolicyEntrant, Snapshots, accepted, opponent_problem, opponent_spec

ILLEGAL = ("forfeit", "raise")



class SingleSeatEnv(gym.Env):
    """The learner's seat of one game against ``opponents`` (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS}

    def __init__(
        self,
        rule_set: str = "crazier-eights",
        opponents: Sequence[Any] = ("greedy",),
        seat: int | None = 0,
        options: dict | None = None,
        teams: list[list[int]] | None = None,
        reward: str = "win",
        illegal: str = "forfeit",
        max_decisions: int | None = None,
        render_mode: str | None = None,
        history: bool = False,
    ):
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL)}, not {illegal!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        if isinstance(opponents, str | EntrantSpec | Snapshots) or callable(opponents):
            opponents = [opponents]  # one opponent, not wrapped in a list
        for index, opponent in enumerate(opponents):
            problem = opponent_problem(opponent)
            if problem is not None:
                raise ValueError(f"opponent {index} ({opponent!r}): {problem}; {accepted()}")
        self.rule_set = rule_set
        self.players = len(opponents) + 1
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not a seat of a {self.players}-player game")
        self.options = engine.validate_options(rule_set, options, self.players)
        self.teams = teams
        self.fixed_seat = seat
        self.reward_kind = reward
        self.illegal = illegal
        self.max_decisions = max_decisions
        self.render_mode = render_mode
        self.keep_history = history
        self._history: list[list[dict]] = []
        self.opponents = list(opponents)
        probe = engine.new_game(rule_set, players=self.players, seed=0, options=self.options, teams=teams)
        self.encoding = Encoding.for_game(probe)
        n = self.encoding.actions
        self.action_space = spaces.Discrete(n)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoding.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
        })
        #: the space of :meth:`state`
        self.state_space = spaces.Box(0.0, 1.0, (state_size(self.encoding),), dtype=np.float32)
        self._programs: dict[int, Any] = {}  # protocol bots by opponent index: started once
        self._seeder: random.Random | None = None
        self.game: Any = None
        self._observer: Observer | None = None
        self._log: list[str] = []
        self._rendered = 0

    # -- seats -----------------------------------------------------------------------------------
    def _entrant(self, index: int, seat: int, seed: int):
        opponent = self.opponents[index]
        if isinstance(opponent, Snapshots):  # one snapshot per game, drawn from the game's seed
            pick = opponent.pick(random.Random(seed * 9 + seat))
            return PolicyEntrant(f"snapshot_{seat}", pick, self)
        if callable(opponent) and not isinstance(opponent, EntrantSpec):
            return PolicyEntrant(f"policy_{seat}", opponent, self)
        spec = opponent_spec(opponent, seat)
        if spec.builtin is not None:  # cheap: a fresh one per game, seeded from the game
            return open_entrant(spec, seed=seed * 9 + seat)
        if index not in self._programs:
            self._programs[index] = open_entrant(spec, seed=seed)
        return self._programs[index]

    def start(self) -> dict:
        """The ``engine.replay`` start of the current game."""
        return {"rule_set": self.rule_set, "players": self.players, "seed": self.seed,
                "options": self.options, "first_player": None, "teams": self.teams}

    # -- Gymnasium -------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._seeder = random.Random(seed)
            self.seed = int(seed)
        else:
            if self._seeder is None:
                self._seeder = random.Random()
            self.seed = self._seeder.getrandbits(32)
        while True:  # a game over before the learner is asked (possible in theory) is skipped
            self._begin()
            if self.game.pending is not None:
                return self._observation(), self._info()
            self.seed = self._seeder.getrandbits(32)

    def _begin(self) -> None:
        players = self.players
        self.seat = self.fixed_seat if self.fixed_seat is not None else self.seed % players
        self.game = engine.new_game(self.rule_set, players=players, seed=self.seed, options=self.options,
                                    teams=self.teams)
        self.entrants: dict[int, Any] = {}
        others = [s for s in range(players) if s != self.seat]
        for index, s in enumerate(others):
            self.entrants[s] = self._entrant(index, s, self.seed)
        names = ["learner" if s == self.seat else self.entrants[s].name for s in range(players)]
        self._table = narrate.table_for(self.game, names)
        self._log = [f"game: {self.rule_set}, seed {self.seed}; "
                     + ", ".join(f"seat {s} {n}" for s, n in enumerate(names))]
        self._shown = 0
        self._rendered = 0
        self.faults: dict[int, str] = {}
        if self.keep_history:
            self._history = start_history(self.game)
        self.decisions = 0
        self._request = 0
        self.illegal_action = False
        cards = self.game.card_table()
        first = self.game.view(0)["active"]
        for s, entrant in self.entrants.items():
            entrant.meet(names)
            message = protocol.game_start_message(
                seat=s, players=players, teams=self.teams, rule_set=self.rule_set, options=self.options,
                first_player=first if isinstance(first, int) else 0, series={"kind": "single", "game": 1, "of": 1},
                cards=cards)
            err = entrant.begin_game(message)
            if err is not None:
                self._fault(s, err.code)
        self._narrate()
        self._play_opponents()

    def _fault(self, seat: int, code: str) -> None:
        self.faults[seat] = code
        if seat in self.entrants:
            self.entrants[seat].fault(code)
        self.game.forfeit(seat, code)
        self._narrate()

    def _play_opponents(self) -> None:
        """Let the opponents decide until the learner is asked or the game is over."""
        game = self.game
        while (pending := game.pending) is not None and pending.player != self.seat:
            if self.max_decisions is not None and self.decisions >= self.max_decisions:
                return
            seat = pending.player
            self._request += 1
            try:
                option = self.entrants[seat].decide(game, seat, self._request)
            except ProtocolError as exc:
                self._fault(seat, exc.code)
                continue
            game.apply(option)
            self.decisions += 1
            self._narrate()
        if game.pending is None:
            self._end_game()

    def _end_game(self) -> None:
        result = self.game.result
        for s, entrant in self.entrants.items():
            if s not in self.faults:
                entrant.end_game(protocol.game_end_message(s, result, self.faults, self.game.view(s)))
                entrant.take_stderr()
        self._log.append(narrate.result_line(self._table, result.winners, result.reason, result.points))

    def step(self, action):
        game = self.game
        if game is None or game.pending is None:
            raise RuntimeError("the game is over: call reset()")
        try:
            option = self.encoding.option(int(action), game.pending.options)
        except EncodingError as exc:
            if self.illegal == "raise":
                raise IllegalAction(str(exc)) from None
            self.illegal_action = True
            self._fault(self.seat, "illegal")
        else:
            if self.keep_history:
                record_decision(self._history, game, option)
            game.apply(option)
            self.decisions += 1
            self._narrate()
        if game.pending is None:
            self._end_game()
        else:
            self._play_opponents()
        terminated = game.pending is None
        truncated = not terminated and self.max_decisions is not None and self.decisions >= self.max_decisions
        reward = outcome(game.result, self.seat, self.players, self.reward_kind) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def _observer_now(self) -> Observer:
        if self._observer is None or self._observer.game is not self.game:
            self._observer = observer_for(self.encoding, self.game)
        return self._observer

    def _observation(self) -> dict:
        game = self.game
        observer = self._observer_now()
        pending = game.pending
        asked = pending is not None and pending.player == self.seat
        return {
            # the numbers of ``encoding.encode(game.view(seat), kind)``, the function a protocol bot calls
            "observation": observer.observe(self.seat, pending.kind if asked else None),
            "action_mask": self.action_masks(),
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions now (1 = offered), as maskable learners ask for them."""
        pending = self.game.pending
        if pending is None or pending.player != self.seat:
            return np.zeros(self.encoding.actions, np.int8)
        return self.encoding.mask(pending.options)

    def _info(self) -> dict:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat}
        result = self.game.result
        if result is not None:
            info.update(winners=list(result.winners), reason=result.reason, points=list(result.points),
                        placements=list(result.placements), faults=dict(self.faults),
                        illegal=self.illegal_action)
        return info

    def history(self) -> list[dict]:
        """The learner's information-state history (``history=True``): every event its seat has
        been shown, its own decisions among them (:func:`tourney.rl.aec.information_state`)."""
        if not self.keep_history:
            raise RuntimeError("made without history: SingleSeatEnv(..., history=True) keeps it")
        return information_state(self._history, self.game, self.seat)

    def state(self) -> np.ndarray:
        """The whole table for a centralised critic (:func:`tourney.rl.aec.table_state`), seats
        counted from the learner's: every seat's observation, every hand, the draw pile and the
        seat asked. It holds hidden cards: train a critic on it, never give it to the policy."""
        if self.game is None:
            raise RuntimeError("no game yet: call reset()")
        order = [(self.seat + k) % self.players for k in range(self.players)]
        return table_state(self.encoding, self._observer_now(), self.game, order)

    def clone(self) -> SingleSeatEnv:
        """An independent copy of the environment mid-game: stepping one changes nothing in the
        other, and both continue as this one would. Built-in bots are copied with their random
        state; in-process policies and snapshots are shared (not copied); an environment with a
        protocol bot cannot be cloned (a process cannot be copied): ValueError."""
        if self._programs or any(isinstance(e, Entrant) and not isinstance(e, PolicyEntrant)
                                 and e.spec.command is not None for e in getattr(self, "entrants", {}).values()):
            raise ValueError("an environment with a protocol bot opponent cannot be cloned: "
                             "its process cannot be copied (use built-in bots or in-process policies)")
        memo: dict[int, Any] = {id(x): x for x in (self.encoding, self.action_space, self.observation_space,
                                                   self.state_space, getattr(self, "_table", None))}
        memo[id(self._observer)] = None
        for opponent in self.opponents:
            if callable(opponent) or isinstance(opponent, Snapshots):
                memo[id(opponent)] = opponent
        for entrant in getattr(self, "entrants", {}).values():
            if isinstance(entrant, PolicyEntrant):
                memo[id(entrant.policy)] = entrant.policy
        if self.game is not None:
            memo[id(self.game)] = clone_game(self.game)
        return copy.deepcopy(self, memo)

    def option_of(self, action: int) -> str:
        """The option id of the learner's pending decision that ``action`` stands for."""
        return self.encoding.option(int(action), self.game.pending.options)

    # -- text ------------------------------------------------------------------------------------
    def _narrate(self) -> None:
        events = self.game.events
        while self._shown < len(events):
            self._log.append(narrate.event(self._table, events[self._shown]))
            self._shown += 1

    @property
    def log(self) -> list[str]:
        """The narrated log of the current game so far (the referee's log)."""
        return list(self._log)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text, self._rendered = render_lines(self._log, self._rendered, self.render_mode)
        return text

    def close(self) -> None:
        """Say goodbye to the protocol bots (their processes end)."""
        for entrant in self._programs.values():
            entrant.close()
        self._programs.clear()


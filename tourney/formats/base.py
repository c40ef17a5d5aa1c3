"""What every event format shares: the keys of ``[event]`` (a pydantic model), the checks that
span several keys, and the plain schedule items a format plans.

A format is one :class:`Format` subclass: its :attr:`Format.settings` model declares the keys it
takes (types, ranges, defaults, what each means), and its methods check what a model cannot
(keys that depend on each other), plan the first series, plan the next round from the results
so far, and say what its report adds. The models also produce the reference table of
docs/formats.md and the JSON Schema of configs (``scripts/gen_config_docs.py``).
"""

from __future__ import annotations

import typing
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

import engine
from tourney import seeding
from tourney.luck.value import on_by_default


class FormatName(StrEnum):
    """The event formats (``[event] format``); the stored value is the string."""

    SINGLE = "single"
    MATCH = "match"
    LEAGUE = "league"
    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    SPRT = "sprt"


class Unit(StrEnum):
    """What one series of an event is: one game, a best-of-N match or a points league."""

    SINGLE = "single"
    MATCH = "match"
    LEAGUE = "league"


class Problem(ValueError):
    """One mistake in an ``[event]`` table: where (``event.games``) and what, in one line."""

    def __init__(self, place: str, text: str):
        super().__init__(f"{place}: {text}")
        self.place, self.text = place, text


class EventSettings(BaseModel):
    """The keys every format takes. Defaults that depend on other keys are ``None`` here and
    settled by :meth:`Format.check` (their description says how)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    #: what a key expects, in words, where a type name says too little (any mistake in it
    #: reads "expected WORDS, got VALUE")
    expected: ClassVar[dict[str, str]] = {
        "cluster": 'a scheduler address such as "tcp://host:8786"',
        "entrants": "a list of entrant names",
    }

    name: str = Field(pattern=r"\S", description="The event's name in the database.")
    format: FormatName = Field(strict=False, description="The event format (\"Formats\" below).")
    rule_set: str = Field("crazier-eights", description="The rule set played (docs/rulesets.md).")
    options: dict[str, Any] = Field(default_factory=dict,
                                    description="Rule-set options (`[event.options]`).")
    seed: int = Field(0, ge=0, description="The event seed; every game seed derives from it.")
    players: int | None = Field(None, ge=2, le=8, description=(
        "Players per table (default: every entrant for single, match and league; else 2)."))
    games: int | None = Field(None, ge=0, le=1000, description=(
        "Games per series: best of N (a match, N odd; default 3), the games of a league table "
        "(default 5; 0 = the rule set's own series, e.g. crazy-eights), 1 for a single game."))
    max_games: int | None = Field(None, ge=1, le=10000, description=(
        "Matches only: games after which an undecided match is drawn (default 2N+1)."))
    entrants: list[str] | None = Field(None, description=(
        "The entrants that play, in seeding order (default: every `[[entrants]]` table)."))
    concurrency: int = Field(0, ge=0, description="Series played at once (0 = the number of cores).")
    cluster: str | None = Field(None, pattern=r"\S", description=(
        "Address of a Dask scheduler to play on, e.g. \"tcp://10.0.0.5:8786\" (docs/scale.md; "
        "default: local processes). How the event is played, not part of what identifies it."))
    duplicate: bool = Field(False, description=(
        "Play every deal once per seat rotation (mirror games for two); no bot process meets a deal twice."))
    play_all: bool = Field(False, description="Matches only: play all N games even after a majority.")
    public_seeds: bool = Field(False, description=(
        "Seeds anyone can recompute from `seed` (no event secret; docs/formats.md)."))
    luck_adjusted: bool | None = Field(None, description=(
        "Judge entrants on luck-adjusted scores: standings show adjusted scores, and an SPRT "
        "tests them (docs/evaluation.md; default: on only where tourney/luck/coefficients.json "
        "marks the rule set and player count, none today)."))


class UnitSettings(EventSettings):
    """Formats whose tables are drawn from the field: they take a ``unit``."""

    unit: Unit | None = Field(None, strict=False, description=(
        "What each series is: a best-of-N match, a points league or a single game, of those the "
        "format takes (default: the first listed for tables of 2, else league where taken)."))


class RoundsSettings(UnitSettings):
    rounds: int = Field(1, ge=1, le=1000, description="Times the whole schedule is played.")


def _quoted(values) -> str:
    words = [repr(str(v)) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def problem_of(error: ErrorDetails, model: type[BaseModel], owners: dict[str, list[str]] | None = None,
               prefix: str = "event", unknown: str = "unknown key") -> Problem:
    """A pydantic error as a :class:`Problem` in our words: the place (under ``prefix``), what
    is wrong and what is allowed. ``owners`` maps a key to the formats that take it."""
    owners = owners or {}
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    if kind == "value_error" and isinstance(ctx.get("error"), Problem):
        return ctx["error"]  # a check across keys, already in words
    loc = [str(p) for p in error["loc"]]
    place = ".".join([prefix, loc[0]] + [f"[{p}]" if p.isdigit() else p for p in loc[1:]]).replace(".[", "[")
    got = f", got {value!r}"
    for i, key in enumerate(loc[:-1]):  # the error is inside a nested table: speak of its keys
        inner = _model_of(model, key)
        if inner is None:
            break
        model, unknown, loc = inner, getattr(inner, "unknown", "unknown key"), loc[i + 1:]
    field = model.model_fields.get(loc[0])
    if kind == "missing":
        what = (field.description or "").split(":")[0].rstrip(".") if field else ""
        return Problem(prefix, f"missing field '{loc[0]}'" + (f" ({what[:1].lower()}{what[1:]})" if what else ""))
    if kind == "extra_forbidden":
        if loc[0] in owners:
            return Problem(place, f"only {_list_formats(owners[loc[0]])} takes '{loc[0]}'")
        known = ", ".join(sorted(model.model_fields))
        return Problem(place, f"{unknown} (known: {known})")
    hint = getattr(model, "expected", {}).get(loc[0])
    if hint:
        return Problem(place, f"expected {hint}{got}")
    words = {
        "int_type": "expected an integer", "bool_type": "expected true or false",
        "string_type": "expected a string", "float_type": "expected a number",
        "list_type": "expected a list", "dict_type": "expected a table",
    }
    if kind == "model_type":
        return Problem(place, f"expected a table{got}")
    if kind in words:
        return Problem(place, words[kind] + got)
    if kind == "greater_than" and ctx.get("gt") == 0:
        return Problem(place, f"must be positive{got}")
    if kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        return Problem(place, f"must be {'at least' if 'ge' in ctx else 'above'} {bound:g}, got {value!r}")
    if kind in ("less_than_equal", "less_than"):
        bound = ctx.get("le", ctx.get("lt"))
        return Problem(place, f"must be {'at most' if 'le' in ctx else 'below'} {bound:g}, got {value!r}")
    if kind in ("string_too_short", "string_pattern_mismatch"):
        return Problem(place, f"expected a non-empty string{got}")
    if kind in ("enum", "literal_error"):
        return Problem(place, f"expected {ctx['expected']}{got}")
    if kind == "value_error":
        return Problem(place, f"{ctx['error']}{got}")
    return Problem(place, f"{error['msg'].lower()}{got}")  # pragma: no cover - a kind not worded yet


def _model_of(model: type[BaseModel], key: str) -> type[BaseModel] | None:
    """The model of a nested table ``key`` of ``model`` (None if it is not one)."""
    field = model.model_fields.get(key)
    for kind in typing.get_args(field.annotation) if field else ():
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind
    return None


#: how the messages name each format ("only a Swiss takes 'bye_score'")
ARTICLES = {"single": "a single game", "match": "a match", "league": "a league",
            "round-robin": "a round robin", "gauntlet": "a gauntlet", "swiss": "a Swiss",
            "knockout": "a knockout", "sprt": "an sprt event"}


def _list_formats(names: list[str]) -> str:
    words = [ARTICLES[n] for n in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def series_item(event: dict, idx: int, rnd: int, table: list[str], secret: str | None = None) -> dict:
    """A schedule item for one table: ``{"idx", "round", "kind", "seed", "games_target",
    "max_games", "entrants": [names in seat order]}``; a table of one is a bye."""
    bye = len(table) == 1
    item = {
        "idx": idx, "round": rnd, "kind": "bye" if bye else event["unit"],
        "seed": seeding.series_seed(event["seed"], idx, secret),
        "games_target": 0 if bye else event["games"],
        "max_games": None if bye else event.get("max_games"), "entrants": list(table),
    }
    if bye:
        item["bye"] = event.get("bye_score", 1.0)
    return item


def has_series_rules(rule_set: str) -> bool:
    """Whether the rule set plays a game as a run of deals (``series_over``)."""
    try:
        return hasattr(engine.rule_set_module(rule_set), "series_over")
    except Exception:
        return False


class Format:
    """One event format. Subclasses set :attr:`name`, :attr:`settings` and :attr:`units`, and
    override the steps that differ; an instance holds no state (one per format, in
    :data:`tourney.formats.FORMATS`)."""

    name: ClassVar[FormatName]
    #: the declared keys of this format's ``[event]`` table
    settings: ClassVar[type[EventSettings]] = EventSettings
    #: the units a series may be, the first being the default for tables of two
    units: ClassVar[tuple[Unit, ...]] = (Unit.MATCH, Unit.LEAGUE)
    #: the keys this format adds to the event summary (``tourney run --json``)
    reports: ClassVar[tuple[str, ...]] = ()
    #: what the format plays, in one line (the description of its shape in the config schema)
    summary: ClassVar[str] = ""
    #: whether ``max_games`` is this format's own setting (an SPRT's cap) rather than a match's
    caps_games: ClassVar[bool] = False

    @property
    def article(self) -> str:
        return ARTICLES[self.name]

    # -- checking -------------------------------------------------------------------------

    def check(self, raw: dict, entrant_names: list[str], owners: dict[str, list[str]]) -> tuple[dict, int]:
        """The normalised event (the dict stored and hashed) and the concurrency; raises
        :class:`Problem`. Keys at their defaults are left out of the stored event where they were
        added later, so events stored before them keep their hash."""
        rounds = raw.get("rounds")
        if rounds == 1 and not isinstance(rounds, bool) and "rounds" not in self.settings.model_fields:
            # one round is what every other format plays: saying so stays allowed, as always
            raw = {k: v for k, v in raw.items() if k != "rounds"}
        try:
            s = self.settings.model_validate(raw)
        except ValidationError as exc:
            raise problem_of(exc.errors()[0], self.settings, owners) from None
        names = self.check_entrants(s.entrants if s.entrants is not None else entrant_names, entrant_names)
        n = len(names)
        players = s.players if s.players is not None else self.default_players(n)
        self.check_players(players, n)
        unit = self.unit_of(s, players)
        deals = has_series_rules(s.rule_set)
        games = s.games if s.games is not None else self.default_games(unit, deals)
        self.check_games(unit, games, deals)
        max_games = None
        if unit == Unit.MATCH:
            max_games = s.max_games if s.max_games is not None else 2 * games + 1
            if max_games < games:
                raise Problem("event.max_games", f"must be at least {games}, got {max_games}")
        elif s.max_games is not None and not self.caps_games:
            raise Problem("event.max_games", "only matches (and sprt events: a cap on games) take 'max_games'")
        if s.play_all and unit != Unit.MATCH:
            raise Problem("event.play_all", "only matches take 'play_all'")
        self.check_options(s.rule_set, s.options, players)
        event = {
            "name": s.name, "format": str(self.name), "unit": str(unit), "rule_set": s.rule_set,
            "options": dict(s.options), "seed": s.seed, "players": players, "games": games,
            "max_games": max_games, "rounds": self.rounds_of(s, n), "entrants": names,
        }
        for key in ("duplicate", "play_all"):
            if getattr(s, key):
                event[key] = True
        event.update(self.extra(s, names))
        if s.public_seeds:  # only when asked: older events keep their hash
            event["public_seeds"] = True
        if s.luck_adjusted is not None and s.luck_adjusted != on_by_default(s.rule_set, players):
            event["luck_adjusted"] = s.luck_adjusted  # only against the default, for the same reason
        return event, s.concurrency

    def check_entrants(self, names: list[str], defined: list[str]) -> list[str]:
        for n in names:
            if n not in defined:
                raise Problem("event.entrants", f"unknown entrant {n!r} (define it in [[entrants]])")
        if len(set(names)) != len(names):
            raise Problem("event.entrants", "an entrant is listed twice")
        if len(names) < 2:
            raise Problem("event.entrants", f"an event needs at least 2 entrants, got {len(names)}")
        return list(names)

    def default_players(self, n: int) -> int:
        return 2

    def check_players(self, players: int, n: int) -> None:
        if players != 2:
            raise Problem("event.players", f"{self.article} plays tables of 2, but players = {players}")

    def unit_of(self, s: EventSettings, players: int) -> Unit:
        unit = getattr(s, "unit", None)
        if unit is None:
            return self.units[0] if players == 2 or Unit.LEAGUE not in self.units else Unit.LEAGUE
        if unit not in self.units:
            raise Problem("event.unit", f"{self.article} takes unit {_quoted(self.units)}, got {str(unit)!r}")
        return unit

    def default_games(self, unit: Unit, deals: bool) -> int:
        return {Unit.SINGLE: 1, Unit.MATCH: 3, Unit.LEAGUE: 0 if deals else 5}[unit]

    def check_games(self, unit: Unit, games: int, deals: bool) -> None:
        if games == 0 and not (deals and unit == Unit.LEAGUE):
            raise Problem("event.games", "games = 0 (the rule set's own series: deals until "
                          "series_over) needs a league of a rule set with series rules, e.g. crazy-eights")
        if unit == Unit.SINGLE and games != 1:
            raise Problem("event.games", "a single game has games = 1")
        if unit == Unit.MATCH and games % 2 == 0:
            raise Problem("event.games", f"a match is best of an odd number of games, got {games}")

    def rounds_of(self, s: EventSettings, n: int) -> int:
        return getattr(s, "rounds", 1)

    def check_options(self, rule_set: str, options: dict, players: int) -> None:
        try:
            engine.validate_options(rule_set, options, players)
        except ImportError as exc:  # a rule set whose module cannot be loaded
            raise Problem("event.rule_set", f"rule set {rule_set!r} is not available ({exc})") from None
        except ValueError as exc:  # engine.OptionsError
            raise Problem("event.rule_set" if "rule set" in str(exc) else "event.options", str(exc)) from None

    def extra(self, s: EventSettings, names: list[str]) -> dict:
        """This format's own keys in the stored event."""
        return {}

    # -- planning -------------------------------------------------------------------------

    def prepare(self, db, event: dict) -> dict:
        """The event as its first round is planned (a knockout seeded by rating reorders it)."""
        return event

    def tables(self, event: dict) -> list[tuple[int, list[str]]]:
        """(round, table) of every series known up front, in order."""
        return [(0, list(event["entrants"]))]

    def first_series(self, event: dict, secret: str | None = None) -> list[dict]:
        """The schedule items the event starts with."""
        return [series_item(event, idx, rnd, table, secret)
                for idx, (rnd, table) in enumerate(self.tables(event))]

    def next_series(self, db, event_id: int, event: dict, rows: list[dict],
                    secret: str | None) -> list[dict]:
        """The items of the next round once every series in ``rows`` has finished; [] when the
        event is complete (formats planned up front have no next round)."""
        return []

    def seed_index(self, event: dict, idx: int) -> int | None:
        """The series whose deal and bot seeds series ``idx`` plays with; None: its own."""
        return None

    def next_series_ahead(self, event: dict, rows: list[dict], secret: str | None) -> list[dict]:
        """The items :meth:`next_series` will give once the series of ``rows`` have finished,
        should the event go on, when they can be known before those results (an SPRT's next
        batch); [] when they cannot. Played ahead and stored only once confirmed
        (:class:`tourney.events.runner.Runner`)."""
        return []

    def between_rounds(self, db, event_id: int, event: dict) -> str | None:
        """A line for people each time a round is done (an SPRT's test so far), or None."""
        return None

    # -- reporting ------------------------------------------------------------------------

    def report(self, db, event_id: int, event: dict, rows: list[dict]) -> dict:
        """What this format adds to the event summary, keys :attr:`reports`."""
        return {}

    def report_lines(self, report: dict) -> list[str]:
        """Those additions as text lines (after the standings table)."""
        return []

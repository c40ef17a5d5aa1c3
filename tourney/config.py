"""Event and entrant configuration: TOML files read with tomllib, written with tomli-w.

A config file defines one event and its entrants (see docs/formats.md for the reference)::

    [event]
    name = "demo"
    format = "round-robin"        # single | match | league | round-robin | gauntlet | swiss | knockout | sprt
    rule_set = "crazier-eights"
    seed = 2024
    players = 2                   # per table
    games = 3                     # best-of N legs (matches) or games per league table
    rounds = 1                    # round robin only
    concurrency = 0               # 0 = number of cores
    # cluster = "tcp://10.0.0.5:8786"  # play on a Dask cluster (docs/scale.md)

    [event.options]               # rule-set options

    [limits]                      # default bot limits of every command entrant
    decision_timeout = 2.0

    [[entrants]]
    name = "greedy"
    builtin = "greedy"

    [[entrants]]
    name = "py-random"
    command = ["{python}", "examples/bots/random_bot.py"]
    cwd = ".."                    # relative to the config file's folder (the default)

Every mistake is a :class:`ConfigError` whose text is one line: ``FILE: PLACE: PROBLEM``.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, ClassVar, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.bots import BOT_NAMES
from tourney import formats
from tourney.bots import sandbox
from tourney.bots.sandbox import Policy
from tourney.bots.spec import EntrantSpec, Limits, Reuse, command_problem, not_executable
from tourney.errors import UserError

BUILTIN_BOTS = BOT_NAMES
#: the built-in entrant of a person at the terminal (tourney/bots/human.py)
HUMAN = "human"

#: the keys of a built-in bot's own settings (the mcts bot's)
BOT_SETTINGS = ("iterations", "budget_ms")
#: what a command entrant's sandbox may be opened up to, each false by default
SANDBOX_SWITCHES = ("network", "writable")
TOP_KEYS = {"event", "entrants", "limits", "storage"}


class LimitsTable(BaseModel):
    """``[limits]`` (every command entrant's defaults) and an entrant's own ``limits``: the
    bot limits of docs/protocol.md; a key left out takes the referee's default."""

    model_config = ConfigDict(extra="forbid", strict=True)
    expected: ClassVar[dict[str, str]] = {"sandbox": '"auto", "on" or "off"'}
    unknown: ClassVar[str] = "unknown limit"

    startup_timeout: float | None = Field(None, gt=0, description="Seconds allowed for the handshake.")
    decision_timeout: float | None = Field(None, gt=0, description="Seconds allowed per decision.")
    time_bank: float | None = Field(None, gt=0, description="Extra seconds a bot may spend over a game.")
    max_line_bytes: int | None = Field(None, gt=0, description="The longest line a bot may print.")
    memory_mb: int | None = Field(None, gt=0, description="Memory limit of the bot's process.")
    cpu_seconds: int | None = Field(None, gt=0, description="CPU time limit of the bot's process.")
    grace: float | None = Field(None, gt=0, description="Seconds a bot has to exit after goodbye.")
    max_stderr_bytes: int | None = Field(None, gt=0, description="stderr kept per bot and game.")
    max_processes: int | None = Field(None, gt=0, description=(
        "Processes and threads a sandboxed bot may have at once."))
    max_open_files: int | None = Field(None, ge=16, description="Open files per process of the bot.")
    scratch_mb: int | None = Field(None, gt=0, description="Size of a sandboxed bot's /tmp, in MiB.")
    sandbox: Literal["auto", "on", "off"] | None = Field(None, description=(
        "Isolate the bot: auto (when this machine can), on (refuse to run otherwise) or off."))
    restart: Literal["never", "series", "game"] | None = Field(None, description=(
        "A fresh process: never (reuse a warm one while the bot allows it), per series or per game."))
    max_games: int | None = Field(None, gt=0, description="Games one process plays before it is replaced.")
    max_rss_mb: int | None = Field(None, gt=0, description=(
        "Resident memory (MiB) above which a process is replaced between games."))


class StorageTable(BaseModel):
    """``[storage]``: what an event keeps of its bots' stderr (tourney/results/logs.py; docs/formats.md,
    "Storage"). How the event is stored, not what it is: not part of its identity."""

    model_config = ConfigDict(extra="forbid", strict=True)
    unknown: ClassVar[str] = "unknown storage key"

    keep_logs: Annotated[int, Field(ge=0)] | Literal["all"] = Field("all", description=(
        "Each entrant's last N games keep its stderr in full once the event ends; a faulted seat keeps "
        "its fault and the end of its stderr; \"all\": every game."))


class EntrantTable(BaseModel):
    """One ``[[entrants]]`` table: a built-in bot, or a command that starts a bot program."""

    model_config = ConfigDict(extra="forbid", strict=True)
    expected: ClassVar[dict[str, str]] = {
        "command": "a non-empty list of strings (argv)", "env": "a table of strings"}

    name: str = Field(pattern=r"\S", description="The entrant's name, unique in the file.")
    builtin: str | None = Field(None, description="A built-in bot: random, greedy, mcts or human.")
    iterations: int | None = Field(None, gt=0, description=(
        "The mcts bot's rollouts per decision (default 200; deterministic from the seed)."))
    budget_ms: float | None = Field(None, gt=0, description=(
        "Caps the mcts bot's time per decision (milliseconds; a cap that bites makes its choices "
        "depend on the machine's speed)."))
    command: list[Annotated[str, Field(min_length=1)]] | None = Field(None, min_length=1, description=(
        "The bot's argv; \"{python}\" is the Python running tourney."))
    cwd: str | None = Field(None, description=(
        "Its working folder, relative to the config's folder (default: that folder)."))
    env: dict[str, str] | None = Field(None, description="Added to the bot's minimal environment.")
    limits: LimitsTable | None = Field(None, description="Overrides [limits] for this entrant.")
    network: bool | None = Field(None, description="The sandboxed bot may use the network (default false).")
    writable: bool | None = Field(None, description="The sandboxed bot may write its own folder (default false).")


def _checked(model, raw, path: str, place: str, unknown: str = "unknown key") -> dict:
    """``raw`` checked by ``model``: the keys given (None-valued ones left out), or a
    :class:`ConfigError` naming the file, the key and what it allows."""
    try:
        return model.model_validate(raw).model_dump(exclude_none=True)
    except ValidationError as exc:
        problem = formats.problem_of(exc.errors()[0], model, prefix=place, unknown=unknown)
        raise ConfigError(f"{_where(path, problem.place)}: {problem.text}") from None


class ConfigError(UserError):
    """A mistake in a config; ``str()`` is the one-line message shown to the user."""


@dataclass
class EventConfig:
    """A checked event: ``event`` settings, ``entrants`` (specs as plain dicts, in order)."""

    path: str
    event: dict
    entrants: list[dict]
    concurrency: int = 0
    base_dir: str = "."
    #: address of a Dask scheduler to play on (``[event] cluster``); like concurrency, how
    #: the event is played and not part of what identifies it
    cluster: str | None = None
    #: ``[storage]`` (:class:`StorageTable`): how the games are kept, not part of what identifies the event
    storage: dict = dataclasses.field(default_factory=dict)

    def canonical(self) -> dict:
        """What identifies the event in the database (concurrency is not part of it)."""
        return {"event": dict(self.event), "entrants": [dict(e) for e in self.entrants]}

    def resolved_entrants(self) -> list[dict]:
        """Entrant specs ready for :func:`entrant_spec`: placeholders and paths resolved."""
        return [resolve_entrant(e, self.base_dir) for e in self.entrants]


def _where(path: str, place: str) -> str:
    return f"{path}: {place}" if place else path


def _fail(path, place, problem):
    raise ConfigError(f"{_where(path, place)}: {problem}")


def _bot_names() -> tuple[str, ...]:
    return (*BOT_NAMES, HUMAN)


def check_limits(path: str, place: str, limits) -> dict:
    if not isinstance(limits, dict):
        _fail(path, place, "expected a table of limits")
    return _checked(LimitsTable, limits, path, place, LimitsTable.unknown)


def substitute(arg: str) -> str:
    return arg.replace("{python}", sys.executable)


def resolve_entrant(spec: dict, base_dir: str) -> dict:
    """A copy of ``spec`` with ``{python}`` replaced and ``cwd`` made absolute."""
    out = dict(spec)
    if spec.get("command"):
        out["command"] = [substitute(a) for a in spec["command"]]
        cwd = Path(base_dir, spec.get("cwd") or ".").resolve()
        out["cwd"] = str(cwd)
    return out


def check_command(path: str, place: str, spec: dict, base_dir: str) -> None:
    """A command entrant's program (and a Python script argument) must exist."""
    problem = command_problem(spec["command"], resolve_entrant(spec, base_dir)["cwd"])
    if problem is not None:
        _fail(path, f"{place}.{problem[0]}", problem[1])


def check_entrant(path: str, place: str, raw, default_limits: dict, base_dir: str,
                  check_commands: bool = True) -> dict:
    if not isinstance(raw, dict):
        _fail(path, place, "expected a table with name and builtin or command")
    name = raw.get("name")
    if isinstance(name, str) and name.strip():
        place = f"{place} ({name})"
    given = _checked(EntrantTable, raw, path, place)
    if ("builtin" in given) == ("command" in given):
        _fail(path, place, "give exactly one of 'builtin' or 'command'")
    if "builtin" in given:
        bots = _bot_names()
        if given["builtin"] not in bots:
            _fail(path, f"{place}.builtin",
                  f"unknown built-in bot {given['builtin']!r} (known: {', '.join(bots)})")
        for key in ("cwd", "env", "limits", *SANDBOX_SWITCHES):
            if key in given:
                _fail(path, f"{place}.{key}", "only command entrants take this key")
        settings = {key: given[key] for key in BOT_SETTINGS if key in given}
        if settings and given["builtin"] != "mcts":
            _fail(path, f"{place}.{next(iter(settings))}", "only the mcts built-in bot takes this key")
        return {"name": name, "builtin": given["builtin"], **settings}
    for key in BOT_SETTINGS:
        if key in given:
            _fail(path, f"{place}.{key}", "only the mcts built-in bot takes this key")
    spec = {"name": name, "command": given["command"], "cwd": given.get("cwd", "."),
            "env": given.get("env", {}), "limits": {**default_limits, **given.get("limits", {})}}
    spec.update({key: given[key] for key in SANDBOX_SWITCHES if key in given})
    if check_commands:
        check_command(path, place, spec, base_dir)
    return spec


def event_table(path: str, raw, entrant_names: list[str]) -> tuple[dict, int]:
    """The normalised ``[event]`` table and its concurrency, checked by its format's model
    (:mod:`tourney.formats`)."""
    try:
        return formats.read_event(raw, entrant_names)
    except formats.Problem as exc:
        raise ConfigError(f"{path}: {exc.place}: {exc.text}") from None


def parse_config(data: dict, path: str = "<config>", base_dir: str = ".",
                 check_commands: bool = True) -> EventConfig:
    """Check a parsed config (a dict from TOML) and return the :class:`EventConfig`."""
    for key in data:
        if key not in TOP_KEYS:
            _fail(path, key, f"unknown key (known: {', '.join(sorted(TOP_KEYS))})")
    if "event" not in data:
        _fail(path, "", "missing table [event]")
    if "entrants" not in data:
        _fail(path, "", "missing [[entrants]] (at least two entrants)")
    default_limits = check_limits(path, "limits", data.get("limits", {}))
    raw_entrants = data["entrants"]
    if not isinstance(raw_entrants, list):
        _fail(path, "entrants", "expected an array of tables [[entrants]]")
    specs: list[dict] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_entrants):
        spec = check_entrant(path, f"entrants[{i}]", raw, default_limits, base_dir, check_commands)
        if spec["name"] in seen:
            _fail(path, f"entrants[{i}].name", f"duplicate entrant name {spec['name']!r}")
        seen.add(spec["name"])
        specs.append(spec)
    event, concurrency = event_table(path, data["event"], [s["name"] for s in specs])
    by_name = {s["name"]: s for s in specs}
    chosen = [by_name[n] for n in event["entrants"]]
    if check_commands:
        check_sandbox(path, chosen)
    cluster = data["event"].get("cluster")
    storage = data.get("storage", {})
    if not isinstance(storage, dict):
        _fail(path, "storage", "expected a table [storage]")
    return EventConfig(path=path, event=event, entrants=chosen, concurrency=concurrency,
                       base_dir=base_dir, cluster=cluster,
                       storage=_checked(StorageTable, storage, path, "storage", StorageTable.unknown))


def check_sandbox(path: str, entrants: list[dict]) -> None:
    """Refuse an event whose bots must be isolated (``sandbox = "on"``) where they cannot be;
    where ``"auto"`` bots cannot be, say so once, now, rather than from every worker."""
    modes = {(e.get("limits") or {}).get("sandbox", "auto") for e in entrants if "command" in e}
    if not modes - {"off"}:
        return
    reason = sandbox.problem()
    if reason is None:
        return
    if "on" in modes:
        _fail(path, "limits.sandbox", f'"on", but {reason}')
    sandbox.warn_once(reason)


def load_config(path: str | os.PathLike, check_commands: bool = True) -> EventConfig:
    """Read and check a config file; every problem is a one-line :class:`ConfigError`."""
    p = Path(path)
    try:
        text = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read ({exc.strerror})") from None
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: TOML syntax error: {exc}") from None
    return parse_config(data, str(p), str(p.parent), check_commands)


def entrant_spec(spec: dict):
    """A :class:`tourney.bots.spec.EntrantSpec` from a resolved spec dict."""
    limit_fields = {f.name for f in dataclasses.fields(Limits)}
    reuse_fields = {f.name for f in dataclasses.fields(Reuse)}
    given = spec.get("limits") or {}
    limits = Limits(**{k: v for k, v in given.items() if k in limit_fields})
    reuse = Reuse(**{k: v for k, v in given.items() if k in reuse_fields})
    policy = Policy(given.get("sandbox", "auto"), network=bool(spec.get("network")),
                    writable=bool(spec.get("writable")))
    return EntrantSpec(
        name=spec["name"],
        builtin=spec.get("builtin"),
        settings={key: spec[key] for key in BOT_SETTINGS if key in spec},
        command=tuple(spec["command"]) if spec.get("command") else None,
        cwd=spec.get("cwd"),
        env=dict(spec.get("env") or {}),
        limits=limits,
        sandbox=policy,
        reuse=reuse,
    )


def entrant_from_arg(arg: str, taken: set[str], known: dict[str, dict] | None = None) -> dict:
    """An entrant spec from a command-line word: a name from ``known`` (a config's entrants), a
    built-in bot name, or the path of a bot program (``.py`` files run with this Python).
    Names are made unique with ``#2``, ``#3``...; raises :class:`ConfigError`."""
    known = known or {}
    if arg in known:
        spec = dict(known[arg])
    elif arg in _bot_names():
        spec = {"name": arg, "builtin": arg}
    elif Path(arg).exists():
        p = Path(arg).resolve()
        if p.suffix != ".py" and not (p.is_file() and os.access(p, os.X_OK)):
            raise ConfigError(f"entrant {arg!r}: {not_executable(arg)}")
        command = ["{python}", str(p)] if p.suffix == ".py" else [str(p)]
        spec = {"name": p.stem, "command": command, "cwd": str(Path.cwd()), "env": {},
                "limits": {}}
    else:
        raise ConfigError(
            f"entrant {arg!r}: not a built-in bot ({', '.join(_bot_names())}), not an entrant of "
            "the config and not a file"
        )
    base = spec["name"]
    k = 2
    while spec["name"] in taken:
        spec["name"] = f"{base}#{k}"
        k += 1
    taken.add(spec["name"])
    return spec


#: the folder of the starter bot, beside the config (``tourney init`` writes it with ``new-bot``)
STARTER_BOT = "my-bot"

STARTER = {
    "event": {
        "name": "my-event",
        "format": "round-robin",
        "rule_set": "crazier-eights",
        "seed": 1,
        "players": 2,
        "games": 3,
        "rounds": 1,
        "concurrency": 0,
        "options": {},
    },
    "limits": {"decision_timeout": 2.0, "startup_timeout": 10.0},
    "entrants": [
        {"name": "greedy", "builtin": "greedy"},
        {"name": "random", "builtin": "random"},
        # the starter bot tourney init writes beside the config (a tourney new-bot skeleton)
        {"name": STARTER_BOT, "command": ["{python}", "bot.py"], "cwd": STARTER_BOT},
    ],
}


#: the word an unnamed event of the command line is named after, where it is not the format's
COMMAND_NAMES: dict[str, str] = {formats.FormatName.SINGLE: "play"}


def event_from_words(fmt: str, words: list[str], *, seed: int, rule_set: str, options: dict,
                     games: int, max_games: int | None, config: str | os.PathLike | None,
                     name: str | None, duplicate: bool = False, play_all: bool = False,
                     public_seeds: bool = False, settings: dict | None = None,
                     reuse: dict | None = None) -> EventConfig:
    """The event of ``tourney play`` / ``match``: entrants from command-line words (built-in bot
    names, bot programs, or entrant names of ``config``), named by the time unless ``name``.
    ``reuse`` (``restart``, ``max_games``, ``max_rss_mb``) goes into every command entrant's
    limits (docs/protocol.md, "Warm bots")."""
    known: dict[str, dict] = {}
    base_dir = os.getcwd()
    if config is not None:
        loaded = load_config(config)
        base_dir = loaded.base_dir
        known = {e["name"]: e for e in loaded.entrants}
    taken: set[str] = set()
    specs = [entrant_from_arg(w, taken, known) for w in words]
    given = {k: v for k, v in (reuse or {}).items() if v is not None}
    if given:
        specs = [{**s, "limits": {**(s.get("limits") or {}), **given}} if s.get("command") else s
                 for s in specs]
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%f")
    raw = {
        "name": name or f"{COMMAND_NAMES.get(fmt, fmt)}-{stamp}",
        "format": fmt,
        "rule_set": rule_set,
        "options": options,
        "seed": seed,
        "games": games,
        "entrants": [s["name"] for s in specs],
    }
    if max_games is not None:
        raw["max_games"] = max_games
    raw.update(settings or {})  # format settings such as an SPRT's elo0 and elo1
    if duplicate:
        raw["duplicate"] = True
    if play_all:
        raw["play_all"] = True
    if public_seeds:
        raw["public_seeds"] = True
    event, _ = event_table("command line", raw, [s["name"] for s in specs])
    return EventConfig(path="command line", event=event, entrants=specs, concurrency=1,
                       base_dir=base_dir)


def starter_text() -> str:
    head = (
        "# A tourney event. Run it with: tourney run THIS_FILE\n"
        "# Reference: docs/formats.md. format = single | match | league | round-robin |\n"
        "# gauntlet | swiss | knockout | sprt; duplicate = true plays every deal once per seat rotation.\n"
        "# Command entrants: argv list; \"{python}\" is the Python running tourney; cwd is\n"
        "# relative to this file's folder. my-bot/ is a bot made by tourney new-bot: give it a\n"
        "# strategy in my-bot/bot.py (its README.md says how).\n\n"
    )
    return head + tomli_w.dumps(STARTER)


__all__ = [
    "STARTER_BOT",
    "ConfigError",
    "EventConfig",
    "entrant_from_arg",
    "entrant_spec",
    "load_config",
    "parse_config",
    "resolve_entrant",
    "starter_text",
]

"""Event and entrant configuration: TOML files read with tomllib, written with tomli-w.

A config file defines one event and its entrants (see docs/formats.md for the reference)::

    [event]
    name = "demo"
    format = "round-robin"        # single | match | league | round-robin | gauntlet | swiss
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
import math
import os
import shutil
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tourney.errors import UserError

FORMATS = ("single", "match", "league", "round-robin", "gauntlet", "swiss", "knockout", "sprt")
BUILTIN_BOTS = ("random", "greedy")
#: the built-in entrant of a person at the terminal (tourney/bots/human.py)
HUMAN = "human"
UNITS = ("match", "league")
#: formats whose tables are pairs of entrants drawn from the field, and the units they take
PAIRED_UNITS = {"gauntlet": ("match", "league", "single"), "swiss": ("match", "league", "single"),
                "knockout": ("match",), "sprt": ("single",)}
SEEDINGS = ("config", "rating")
BYE_SCORES = (1.0, 0.5, 0.0)

LIMIT_KEYS = {
    "startup_timeout": float,
    "decision_timeout": float,
    "time_bank": float,
    "max_line_bytes": int,
    "memory_mb": int,
    "cpu_seconds": int,
    "grace": float,
    "max_stderr_bytes": int,
    "sandbox": str,  # auto | on | off: see tourney/bots/sandbox.py
}

EVENT_KEYS = {
    "name", "format", "rule_set", "options", "seed", "players", "games", "rounds",
    "max_games", "concurrency", "entrants", "unit", "duplicate", "play_all", "candidates",
    "bye_score", "seeding", "public_seeds", "cluster", "elo0", "elo1", "alpha", "beta",
    "luck_adjusted",
}
ENTRANT_KEYS = {"name", "builtin", "command", "cwd", "env", "limits", "network", "writable"}
#: what a command entrant's sandbox may be opened up to, each false by default
SANDBOX_SWITCHES = ("network", "writable")
TOP_KEYS = {"event", "entrants", "limits"}


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
    try:
        import engine.bots as bots

        names = getattr(bots, "BOTS", None) or getattr(bots, "BOT_NAMES", None)
        if names:
            return (*names, HUMAN)
    except Exception:
        pass
    return (*BUILTIN_BOTS, HUMAN)


def _check_type(path, place, value, kind, what):
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, bool):
        _fail(path, place, f"expected {what}, got {value!r}")
    if not isinstance(value, kind):
        _fail(path, place, f"expected {what}, got {value!r}")
    return value


def check_limits(path: str, place: str, limits) -> dict:
    if not isinstance(limits, dict):
        _fail(path, place, "expected a table of limits")
    out = {}
    for key, value in limits.items():
        if key not in LIMIT_KEYS:
            known = ", ".join(LIMIT_KEYS)
            _fail(path, f"{place}.{key}", f"unknown limit (known: {known})")
        kind = LIMIT_KEYS[key]
        if key == "sandbox":
            if value not in ("auto", "on", "off"):
                _fail(path, f"{place}.{key}", f'expected "auto", "on" or "off", got {value!r}')
            out[key] = value
            continue
        value = _check_type(path, f"{place}.{key}", value, kind,
                            "a number" if kind is float else "an integer")
        if value <= 0:
            _fail(path, f"{place}.{key}", f"must be positive, got {value!r}")
        out[key] = value
    return out


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


def not_executable(program: str) -> str:
    """Why a bot program cannot be started, and the two ways to fix it."""
    runner = {".js": "node", ".py": "{python}", ".rb": "ruby", ".sh": "sh"}.get(Path(program).suffix)
    how = f', or run it with its interpreter: ["{runner}", "{program}"]' if runner else ""
    return f"{program} is not executable: make it so (chmod +x {program}){how}"


def check_command(path: str, place: str, spec: dict, base_dir: str) -> None:
    """A command entrant's program (and a Python script argument) must exist."""
    resolved = resolve_entrant(spec, base_dir)
    cwd = Path(resolved["cwd"])
    if not cwd.is_dir():
        _fail(path, f"{place}.cwd", f"no such directory: {cwd}")
    argv = resolved["command"]
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        prog_path = Path(program) if os.path.isabs(program) else cwd / program
        if not prog_path.exists():
            _fail(path, f"{place}.command", f"program not found: {spec['command'][0]}")
        if not prog_path.is_file() or not os.access(prog_path, os.X_OK):
            _fail(path, f"{place}.command", not_executable(spec["command"][0]))
    elif shutil.which(program) is None:
        _fail(path, f"{place}.command", f"program not found on PATH: {program}")
    if len(argv) > 1 and argv[1].endswith(".py") and "python" in Path(program).name:
        script = Path(argv[1]) if os.path.isabs(argv[1]) else cwd / argv[1]
        if not script.exists():
            _fail(path, f"{place}.command", f"script not found: {script}")


def check_entrant(path: str, place: str, raw, default_limits: dict, base_dir: str,
                  check_commands: bool = True) -> dict:
    if not isinstance(raw, dict):
        _fail(path, place, "expected a table with name and builtin or command")
    for key in raw:
        if key not in ENTRANT_KEYS:
            _fail(path, f"{place}.{key}", f"unknown key (known: {', '.join(sorted(ENTRANT_KEYS))})")
    if "name" not in raw:
        _fail(path, place, "missing field 'name'")
    name = raw["name"]
    if not isinstance(name, str) or not name.strip():
        _fail(path, f"{place}.name", f"expected a non-empty string, got {name!r}")
    place = f"{place} ({name})"
    has_builtin, has_command = "builtin" in raw, "command" in raw
    if has_builtin == has_command:
        _fail(path, place, "give exactly one of 'builtin' or 'command'")
    spec: dict = {"name": name}
    if has_builtin:
        bots = _bot_names()
        if raw["builtin"] not in bots:
            _fail(path, f"{place}.builtin",
                  f"unknown built-in bot {raw['builtin']!r} (known: {', '.join(bots)})")
        for key in ("cwd", "env", "limits", *SANDBOX_SWITCHES):
            if key in raw:
                _fail(path, f"{place}.{key}", "only command entrants take this key")
        spec["builtin"] = raw["builtin"]
        return spec
    command = raw["command"]
    if (not isinstance(command, list) or not command
            or not all(isinstance(a, str) and a for a in command)):
        _fail(path, f"{place}.command", "expected a non-empty list of strings (argv)")
    spec["command"] = list(command)
    cwd = raw.get("cwd", ".")
    if not isinstance(cwd, str):
        _fail(path, f"{place}.cwd", f"expected a string, got {cwd!r}")
    spec["cwd"] = cwd
    env = raw.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        _fail(path, f"{place}.env", "expected a table of strings")
    spec["env"] = dict(env)
    limits = dict(default_limits)
    limits.update(check_limits(path, f"{place}.limits", raw.get("limits", {})))
    spec["limits"] = limits
    for key in SANDBOX_SWITCHES:
        if key in raw:
            spec[key] = _check_type(path, f"{place}.{key}", raw[key], bool, "true or false")
    if check_commands:
        check_command(path, place, spec, base_dir)
    return spec


def _int(path, place, value, minimum=None, maximum=None):
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, place, f"expected an integer, got {value!r}")
    if minimum is not None and value < minimum:
        _fail(path, place, f"must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        _fail(path, place, f"must be at most {maximum}, got {value}")
    return value


def _has_series_rules(rule_set: str) -> bool:
    try:
        import engine

        return hasattr(engine.rule_set_module(rule_set), "series_over")
    except Exception:
        return False


def check_event(path: str, raw, entrant_names: list[str]) -> tuple[dict, int]:
    """The normalised ``[event]`` table and the concurrency level."""
    if not isinstance(raw, dict):
        _fail(path, "event", "expected a table [event]")
    for key in raw:
        if key not in EVENT_KEYS:
            _fail(path, f"event.{key}", f"unknown key (known: {', '.join(sorted(EVENT_KEYS))})")
    for key in ("name", "format"):
        if key not in raw:
            _fail(path, "event", f"missing field '{key}'")
    name = raw["name"]
    if not isinstance(name, str) or not name.strip():
        _fail(path, "event.name", f"expected a non-empty string, got {name!r}")
    fmt = raw["format"]
    if fmt not in FORMATS:
        _fail(path, "event.format", f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    rule_set = raw.get("rule_set", "crazier-eights")
    if not isinstance(rule_set, str):
        _fail(path, "event.rule_set", f"expected a string, got {rule_set!r}")
    options = raw.get("options", {})
    if not isinstance(options, dict):
        _fail(path, "event.options", "expected a table of rule-set options")
    seed = _int(path, "event.seed", raw.get("seed", 0), 0)
    public_seeds = _check_type(path, "event.public_seeds", raw.get("public_seeds", False), bool,
                               "true or false")
    concurrency = _int(path, "event.concurrency", raw.get("concurrency", 0), 0)

    names = raw.get("entrants", entrant_names)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        _fail(path, "event.entrants", "expected a list of entrant names")
    for n in names:
        if n not in entrant_names:
            _fail(path, "event.entrants", f"unknown entrant {n!r} (define it in [[entrants]])")
    if len(set(names)) != len(names):
        _fail(path, "event.entrants", "an entrant is listed twice")
    n = len(names)
    if n < 2:
        _fail(path, "event.entrants", f"an event needs at least 2 entrants, got {n}")
    if fmt == "sprt" and n != 2:
        _fail(path, "event.entrants", f"an sprt event tests a candidate against one baseline: 2 entrants, got {n}")

    one_table = {"single": "single", "match": "match", "league": "league"}
    default_players = n if fmt in one_table else 2
    players = _int(path, "event.players", raw.get("players", default_players), 2, 8)
    if fmt in one_table and players != n:
        _fail(path, "event.players",
              f"a {fmt} seats all its {n} entrants at one table, but players = {players}")
    if fmt == "round-robin" and players > n:
        _fail(path, "event.players", f"tables of {players} need at least {players} entrants")
    if fmt in PAIRED_UNITS and fmt != "swiss" and players != 2:
        _fail(path, "event.players", f"a {fmt} plays tables of 2, but players = {players}")
    if fmt == "swiss" and players > n:
        _fail(path, "event.players", f"tables of {players} need at least {players} entrants")
    if n > 8 and fmt in one_table:
        _fail(path, "event.entrants", f"at most 8 entrants at one table, got {n}")

    unit = raw.get("unit")
    if fmt in one_table:
        if "unit" in raw:
            _fail(path, "event.unit", f"a {fmt} takes no 'unit' (it is one {one_table[fmt]})")
        unit = one_table[fmt]
    elif fmt == "round-robin":
        unit = unit or ("match" if players == 2 else "league")
        if unit not in UNITS:
            _fail(path, "event.unit", f"expected 'match' or 'league', got {unit!r}")
    else:
        unit = unit or ("single" if fmt == "sprt" else "match" if players == 2 else "league")
        if unit not in PAIRED_UNITS[fmt]:
            known = " or ".join(repr(u) for u in PAIRED_UNITS[fmt])
            _fail(path, "event.unit", f"a {fmt} takes unit {known}, got {unit!r}")

    deals = _has_series_rules(rule_set)
    default_games = {"single": 1, "match": 3, "league": 0 if deals else 5}.get(unit, 3)
    games = _int(path, "event.games", raw.get("games", default_games), 0, 1000)
    if games == 0 and not (deals and unit == "league"):
        _fail(path, "event.games", "games = 0 (the rule set's own series: deals until "
              "series_over) needs a league of a rule set with series rules, e.g. crazy-eights")
    if unit == "single" and games != 1:
        _fail(path, "event.games", "a single game has games = 1")
    if unit == "match" and games % 2 == 0:
        _fail(path, "event.games", f"a match is best of an odd number of games, got {games}")
    max_games = None
    if unit == "match":
        max_games = _int(path, "event.max_games", raw.get("max_games", 2 * games + 1), games,
                         10000)
    elif "max_games" in raw and fmt != "sprt":
        _fail(path, "event.max_games", "only matches (and sprt events: a cap on games) take 'max_games'")
    # a Swiss needs about log2(n) rounds to separate the field
    default_rounds = max(1, math.ceil(math.log2(n))) if fmt == "swiss" else 1
    rounds = _int(path, "event.rounds", raw.get("rounds", default_rounds), 1, 1000)
    if fmt not in ("round-robin", "gauntlet", "swiss") and rounds != 1:
        _fail(path, "event.rounds", "only a round robin, a gauntlet or a Swiss takes 'rounds'")

    extra: dict = {}
    for key in ("duplicate", "play_all"):
        flag = raw.get(key, False)
        if not isinstance(flag, bool):
            _fail(path, f"event.{key}", f"expected true or false, got {flag!r}")
        if flag:
            extra[key] = True
    if extra.get("play_all") and unit != "match":
        _fail(path, "event.play_all", "only matches take 'play_all'")
    if fmt == "gauntlet":
        cands = raw.get("candidates")
        if cands is None:
            _fail(path, "event", "missing field 'candidates' (the entrants that play the pool)")
        if (not isinstance(cands, list) or not cands
                or not all(isinstance(c, str) for c in cands)):
            _fail(path, "event.candidates", "expected a non-empty list of entrant names")
        for c in cands:
            if c not in names:
                _fail(path, "event.candidates", f"{c!r} is not an entrant of the event")
        if len(set(cands)) != len(cands):
            _fail(path, "event.candidates", "a candidate is listed twice")
        if len(cands) == n:
            _fail(path, "event.candidates", "every entrant is a candidate: the pool is empty")
        extra["candidates"] = list(cands)
    elif "candidates" in raw:
        _fail(path, "event.candidates", "only a gauntlet takes 'candidates'")
    if fmt == "swiss":
        bye = raw.get("bye_score", 1.0)
        if isinstance(bye, bool) or not isinstance(bye, int | float) or bye not in BYE_SCORES:
            _fail(path, "event.bye_score", f"expected 1, 0.5 or 0, got {bye!r}")
        extra["bye_score"] = float(bye)
    elif "bye_score" in raw:
        _fail(path, "event.bye_score", "only a Swiss takes 'bye_score'")
    if fmt == "knockout":
        seeding = raw.get("seeding", "config")
        if seeding not in SEEDINGS:
            _fail(path, "event.seeding", f"expected 'config' or 'rating', got {seeding!r}")
        extra["seeding"] = seeding
    elif "seeding" in raw:
        _fail(path, "event.seeding", "only a knockout takes 'seeding'")
    if fmt == "sprt":
        from tourney.events.sprt import DEFAULTS

        test = {}
        for key, default in DEFAULTS.items():
            value = raw.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int | float):
                _fail(path, f"event.{key}", f"expected a number, got {value!r}")
            test[key] = int(value) if key == "max_games" else float(value)
        if not test["elo0"] < test["elo1"]:
            _fail(path, "event.elo1", f"elo1 must be above elo0, got elo0 = {test['elo0']:g}, elo1 = {test['elo1']:g}")
        for key in ("alpha", "beta"):
            if not 0 < test[key] < 0.5:
                _fail(path, f"event.{key}", f"expected a probability between 0 and 0.5, got {test[key]:g}")
        if test["max_games"] < 2:
            _fail(path, "event.max_games", f"expected at least 2 games, got {test['max_games']}")
        extra["sprt"] = test
    else:
        for key in ("elo0", "elo1", "alpha", "beta"):
            if key in raw:
                _fail(path, f"event.{key}", f"only an sprt event takes '{key}'")

    if "luck_adjusted" in raw:  # left out when not given: the rule set's default (tourney/luck)
        if not isinstance(raw["luck_adjusted"], bool):
            _fail(path, "event.luck_adjusted", f"expected true or false, got {raw['luck_adjusted']!r}")
        extra["luck_adjusted"] = raw["luck_adjusted"]

    try:
        import engine

        engine.validate_options(rule_set, options, players)
    except ImportError as exc:
        _fail(path, "event.rule_set", f"rule set {rule_set!r} is not available ({exc})")
    except ValueError as exc:  # engine.OptionsError
        place = "event.rule_set" if "rule set" in str(exc) else "event.options"
        _fail(path, place, str(exc))
    event = {
        "name": name,
        "format": fmt,
        "unit": unit,
        "rule_set": rule_set,
        "options": dict(options),
        "seed": seed,
        "players": players,
        "games": games,
        "max_games": max_games,
        "rounds": rounds,
        "entrants": list(names),
    }
    # keys at their defaults are left out, so events stored before they existed keep their hash
    event.update(extra)
    if public_seeds:  # only when asked: the configs of earlier events keep their hash
        event["public_seeds"] = True
    return event, concurrency


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
    event, concurrency = check_event(path, data["event"], [s["name"] for s in specs])
    by_name = {s["name"]: s for s in specs}
    chosen = [by_name[n] for n in event["entrants"]]
    if check_commands:
        check_sandbox(path, chosen)
    cluster = data["event"].get("cluster")
    if cluster is not None and (not isinstance(cluster, str) or not cluster.strip()):
        _fail(path, "event.cluster", f"expected a scheduler address such as \"tcp://host:8786\", "
              f"got {cluster!r}")
    return EventConfig(path=path, event=event, entrants=chosen, concurrency=concurrency,
                       base_dir=base_dir, cluster=cluster)


def check_sandbox(path: str, entrants: list[dict]) -> None:
    """Refuse an event whose bots must be isolated (``sandbox = "on"``) where they cannot be;
    where ``"auto"`` bots cannot be, say so once, now, rather than from every worker."""
    from tourney.bots import sandbox

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
    """A :class:`tourney.bots.entrants.EntrantSpec` from a resolved spec dict."""
    from tourney.bots.entrants import EntrantSpec, Limits
    from tourney.bots.sandbox import Policy

    limit_fields = {f.name for f in dataclasses.fields(Limits)}
    given = spec.get("limits") or {}
    limits = Limits(**{k: v for k, v in given.items() if k in limit_fields})
    policy = Policy(given.get("sandbox", "auto"), network=bool(spec.get("network")),
                    writable=bool(spec.get("writable")))
    return EntrantSpec(
        name=spec["name"],
        builtin=spec.get("builtin"),
        command=tuple(spec["command"]) if spec.get("command") else None,
        cwd=spec.get("cwd"),
        env=dict(spec.get("env") or {}),
        limits=limits,
        sandbox=policy,
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
        {"name": "my-bot", "command": ["{python}", "examples/bots/random_bot.py"], "cwd": "."},
    ],
}


def event_from_words(fmt: str, words: list[str], *, seed: int, rule_set: str, options: dict,
                     games: int, max_games: int | None, config: str | os.PathLike | None,
                     name: str | None, duplicate: bool = False, play_all: bool = False,
                     public_seeds: bool = False, settings: dict | None = None) -> EventConfig:
    """The event of ``tourney play`` / ``match``: entrants from command-line words (built-in bot
    names, bot programs, or entrant names of ``config``), named by the time unless ``name``."""
    import datetime

    known: dict[str, dict] = {}
    base_dir = os.getcwd()
    if config is not None:
        loaded = load_config(config)
        base_dir = loaded.base_dir
        known = {e["name"]: e for e in loaded.entrants}
    taken: set[str] = set()
    specs = [entrant_from_arg(w, taken, known) for w in words]
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%f")
    raw = {
        "name": name or f"{'play' if fmt == 'single' else fmt}-{stamp}",
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
    event, _ = check_event("command line", raw, [s["name"] for s in specs])
    return EventConfig(path="command line", event=event, entrants=specs, concurrency=1,
                       base_dir=base_dir)


def starter_text() -> str:
    import tomli_w

    head = (
        "# A tourney event. Run it with: tourney run THIS_FILE\n"
        "# Reference: docs/formats.md. format = single | match | league | round-robin |\n"
        "# gauntlet | swiss | knockout; duplicate = true plays every deal once per seat rotation.\n"
        "# Command entrants: argv list; \"{python}\" is the Python running tourney; cwd is\n"
        "# relative to this file's folder.\n\n"
    )
    return head + tomli_w.dumps(STARTER)


__all__ = [
    "ConfigError",
    "EventConfig",
    "FORMATS",
    "entrant_from_arg",
    "entrant_spec",
    "load_config",
    "parse_config",
    "resolve_entrant",
    "starter_text",
]

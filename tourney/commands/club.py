"""``tourney club ...``: scorekeeping for leagues played with real cards.

Data goes to stdout (a table, or JSON with ``--json``), messages to stderr. A user mistake
(unknown league or player, impossible result, a change not confirmed) prints one ``error:`` line
and exits 2, changing nothing (the exit-code table: tourney.errors). Shapes of the JSON output are
documented in docs/standings.md.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from urllib.parse import quote

import typer
from tabulate import tabulate

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, err, open_store
from tourney.errors import UserError

club_app = typer.Typer(
    name="club",
    help="Keep the scores of a club league played with real cards (lowest total wins).",
    epilog="Example: tourney club new thursday --players Ann,Bea,Cy --seed 7\n\n" + EXIT_CODES,
    no_args_is_help=True,
)
app.add_typer(club_app, name="club")


def _epilog(example: str) -> str:
    return f"Example: {example}\n\n{EXIT_CODES}"


# Options shared by several commands, declared once so their flags and help read the same everywhere.


def _name_argument():
    return typer.Argument(..., help="Name of the league.")


def _card_option():
    return typer.Option(None, "--card", help="One NAME=VALUE pair, not split on commas (repeatable).")


def _yes_option():
    return typer.Option(False, "--yes", "-y", help="Do not ask for confirmation.")


def _db_option():
    return typer.Option(None, "--db", help=DB_HELP)


def _by_option():
    return typer.Option(None, "--by", help="Who makes this change (default: $USER).")


def _json_option():
    return typer.Option(False, "--json", help="Print JSON (shape in docs/standings.md).")


@contextmanager
def _league(db_path: str | None, name: str | None = None, *, readonly: bool = False):
    """The database (or league ``name`` in it); read-only for commands that only look."""
    from tourney.club.league import League  # heavy at CLI start: the club service loads for club commands

    db = open_store(db_path, readonly=readonly)
    yield (League(db, name) if name is not None else db)


def _out_json(data) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _print_standings(summary: dict, games: list | None = None) -> None:
    from tourney.club.standings import club_envelope  # heavy at CLI start: loads when standings are shown
    from tourney.report import render_table  # heavy at CLI start: loads when a report is shown

    data = club_envelope(summary, games)
    typer.echo(render_table(data), nl=False)  # the footnote included


def _show(summary: dict, as_json: bool, **done) -> None:
    """The league after a command: the standings table, or the summary's JSON led by what the
    command did (``entered=...``, ``joined=...``)."""
    if as_json:
        # the league summary's own version (2): its field names are version 2's (issue 25, point 7)
        _out_json({"version": summary["version"], **done, **summary})
    else:
        _print_standings(summary)


def _confirm(yes: bool, question: str, hint: str = "add --yes") -> None:
    """Go on only with ``--yes`` or a yes at the terminal; with no terminal (CI) refuse at once
    rather than wait for an answer that cannot come."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise UserError(f"not changing anything without confirmation; {hint}")
    if not typer.confirm(question, err=True):
        raise UserError("nothing changed")


def _pairs(cards: list[str], card: list[str]):
    from tourney.club.entries import parse_pairs  # heavy at CLI start: the club service loads for club commands

    return parse_pairs(cards or []) + parse_pairs(card or [], split=False)


@club_app.command("new", epilog=_epilog("tourney club new thursday --players Ann,Bea,Cy --seed 7 --target 100"))
def new(
    name: str = _name_argument(),
    players: str = typer.Option("", "--players", help="Players, comma-separated, in roster order."),
    player: list[str] = typer.Option(None, "--player", help="One more player (repeatable; for names with commas)."),
    rule_set: str = typer.Option("crazier-eights", "--rule-set",
                                 help="crazier-eights (points = cards left), crazy-eights or super-crazy-eights "
                                      "(card values)."),
    seed: int = typer.Option(None, "--seed",
                             help="Seed that settles ties for who goes first and draws tables "
                                  "(default: random, stored)."),
    target: int = typer.Option(None, "--target",
                               help="Stop when a total reaches this score (e.g. 100); lowest total wins."),
    eliminated_score: str = typer.Option("snapshot", "--eliminated-score",
                                         help="How an eliminated player scores: snapshot, zero or max_plus_one "
                                              "(rulings.md 13)."),
    absence: str = typer.Option("average", "--absence",
                                help="What a player absent from a game scores: average (the game's average points, "
                                     "rounded up), highest (the game's highest points), none, or a number of points."),
    withdrawal: str = typer.Option("penalty", "--withdrawal",
                                   help="Fairness to players who stay after someone withdraws: penalty (each game "
                                        "missed after withdrawing counts as an absence), average (rank everyone by "
                                        "points per game), prorate (scale a withdrawn player's points to the games "
                                        "they missed), total (plain totals)."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Create a club league with its players."""
    from tourney.club.league import League  # heavy at CLI start: the club service loads for club commands

    names = [p for p in players.split(",") if p.strip()] + list(player or [])
    with _league(db) as database:
        league = League.create(database, name, names, rule_set=rule_set, seed=seed, target=target,
                               eliminated_score=eliminated_score, absence=absence, withdrawal=withdrawal, by=by)
        summary = league.summary()
    err(f"created club league {name!r} with {len(names)} players (seed {summary['seed']})")
    _show(summary, as_json)


@club_app.command("list", epilog=_epilog("tourney club list --json"))
def list_(db: str | None = _db_option(), as_json: bool = _json_option()) -> None:
    """List the club leagues in the database."""
    from tourney.club.league import list_leagues  # heavy at CLI start: the club service loads for club commands

    with _league(db, readonly=True) as database:
        rows = list_leagues(database)
    if as_json:
        _out_json({"version": 1, "leagues": rows})
    else:
        typer.echo(tabulate([[r["name"], r["rule_set"], r["target"] or "", r["games"]] for r in rows],
                            headers=["league", "rule set", "target", "games"], disable_numparse=True))


@club_app.command("add", epilog=_epilog("tourney club add thursday --cards Ann=0,Bea=3,Cy=elim:5 --absent Dee"))
def add(
    name: str = _name_argument(),
    cards: list[str] = typer.Option(None, "--cards",
                                    help="NAME=VALUE pairs, comma-separated. NAME is a player's name or roster number "
                                         "(#2). VALUE: cards left (crazier-eights; elim:N when eliminated holding N); "
                                         "points, or the cards themselves like 8+K+T+3 (other rule sets; ranks A 2-9 "
                                         "10 or T J Q K, or ace/jack/queen/king, a suit letter optional: 8h)."),
    card: list[str] = _card_option(),
    absent: list[str] = typer.Option(None, "--absent",
                                     help="Players not at the table tonight, comma-separated (scored by the league's "
                                          "absence rule; they stay in the league)."),
    table: int = typer.Option(None, "--table", help="On a club night: the table whose game this is (see club night)."),
    first: str = typer.Option(None, "--first", help="Who actually went first, if not the player shown by standings."),
    note: str = typer.Option(None, "--note", help="A note kept with the entry."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Enter the result of the next game: every player's cards left in hand (the winner 0)."""
    with _league(db, name) as league:
        result = league.add(_pairs(cards, card), first=first, absent=_names(absent), table=table, by=by, note=note)
        summary = league.summary()
    at = f" (round {result['round']}, table {result['table']})" if result["table"] else ""
    err(f"game {result['game']}{at} entered; won by {', '.join(result['winners']) or 'nobody (draw)'}"
        + (f"; absent: {', '.join(result['absent'])}" if result["absent"] else ""))
    _show(summary, as_json, entered=result)


def _names(items: list[str] | None) -> list[str]:
    """Names given comma-separated, in one or several options."""
    return [n.strip() for item in items or [] for n in item.split(",") if n.strip()]


@club_app.command("correct", epilog=_epilog("tourney club correct thursday 2 --cards Bea=4 --dry-run"))
def correct(
    name: str = _name_argument(),
    game: int = typer.Argument(..., help="Number of the game to correct."),
    cards: list[str] = typer.Option(None, "--cards",
                                    help="Corrected NAME=VALUE pairs (as for club add); players not named keep "
                                         "their value."),
    card: list[str] = _card_option(),
    note: str = typer.Option(None, "--note", help="Why (kept in the history)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change and change nothing."),
    yes: bool = _yes_option(),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Correct a game's result. The correction is a new version; the old one is kept in the history."""
    with _league(db, name, readonly=dry_run) as league:
        values = _pairs(cards, card)
        preview = league.correct(game, values, by=by, note=note, dry_run=True)
        _describe_correction(preview, dry_run)
        if dry_run:
            if as_json:
                _out_json({"version": 1, "correction": preview})
            return
        _confirm(yes, f"store this correction of game {game}?", "add --yes (or --dry-run to preview)")
        result = league.correct(game, values, by=by, note=note, dry_run=False)
        summary = league.summary()
    err(f"game {game} corrected (version {result['version']}; the previous version is kept)")
    _show(summary, as_json, correction=result)


def _describe_correction(p: dict, dry_run: bool) -> None:
    head = "would change" if dry_run else "changes"
    err(f"game {p['game']}: version {p['version']} {head}:")
    for n in p["after"]:
        if p["before_values"][n] != p["after_values"][n] or p["before"][n] != p["after"][n]:
            err(f"  {n}: {p['before_values'][n]} ({p['before'][n]} points) -> "
                f"{p['after_values'][n]} ({p['after'][n]} points)")
    for c in p["leaders_changed"]:
        err(f"warning: game {c['game']} was already played with {c['actually_first']} first; after this correction "
            f"{c['now']} should have gone first (before it: {c['was']})"
            + (" (a tie, settled at random)" if c["now_random"] else ""))
    if p["finished_changed"]:
        err(_end_warning(p["finished_changed"], dry_run))


def _end_warning(change: dict, dry_run: bool) -> str:
    """One line: how a correction changes the end of a league played to a target."""

    def end(done: dict | None) -> str:
        if done is None:
            return f"not over, no total reaches {change['target']}"
        return f"over after game {done['after_game']}, {' and '.join(done['winners'])} won with {done['lowest_total']}"

    verb, now = ("would change", "would be") if dry_run else ("changes", "now")
    line = (f"warning: this correction {verb} the end of the league "
            f"(was: {end(change['was'])}; {now}: {end(change['now'])})")
    later = change["entered_after"]
    if later:
        games = f"game {later[0]} was" if len(later) == 1 else f"games {', '.join(map(str, later))} were"
        line += f"; {games} entered after game {change['now']['after_game']} (kept, and still counted in the totals)"
    return line


@club_app.command("history", epilog=_epilog("tourney club history thursday"))
def history(
    name: str = _name_argument(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Show who changed what and when (every change, with the names of the time).

    Creation, entries, corrections, voids and restores, renames, night plans, rule changes,
    withdrawals, joins."""
    with _league(db, name, readonly=True) as league:
        rows = league.history()
    if as_json:
        _out_json({"version": 1, "league": name, "history": rows})
        return
    table = []
    for r in rows:
        d = r["detail"]
        if r["action"] == "create":
            what = f"players {', '.join(d['players'])}; {d['rule_set']}; seed {d['seed']}"
        elif r["action"] == "enter":
            what = ", ".join(f"{k}={v}" for k, v in d["values"].items()) + f"; first {d['first']}"
            if d.get("table"):
                what += f"; round {d['round']} table {d['table']}"
            if d.get("absent"):
                what += f"; absent {', '.join(d['absent'])}"
        elif r["action"] == "correct":
            what = f"v{d['version']}: " + ", ".join(f"{k} {d['before'][k]}->{v}" for k, v in d["after"].items()
                                                    if d["before"].get(k) != v)
            if d.get("leaders_changed"):
                what += "; changes who should have gone first in game " + \
                    ", ".join(str(c["game"]) for c in d["leaders_changed"])
            if d.get("finished_changed"):
                what += "; changes the end of the league"
        elif r["action"] in ("void", "restore"):
            what = f"v{d['version']}: {'voided' if r['action'] == 'void' else 'restored'} " + \
                ", ".join(f"{k}={v}" for k, v in d["values"].items())
        elif r["action"] == "rename":
            what = f"{'league' if 'league' in d else 'player'} {d.get('league', d.get('player'))} renamed {d['to']}"
        elif r["action"] == "night":
            what = f"round {d['round']} planned" + (" again" if d.get("replaced") else "") + ": " + \
                "; ".join(f"table {k} {', '.join(t)}" for k, t in enumerate(d["tables"], 1)) + \
                (f"; absent {', '.join(d['absent'])}" if d["absent"] else "")
        elif r["action"] == "set":
            what = "; ".join(f"{k} {v['was']} -> {v['now']}" for k, v in d.items())
        elif r["action"] == "withdraw":
            what = f"{d['player']} withdrew after game {d['after_game']}"
        elif r["action"] == "code":
            what = f"code {d['code']} ({d['label']}) made" + (f", expires {d['expires']}" if d.get("expires") else "")
        elif r["action"] == "revoke":
            what = f"code {d['code']} ({d['label']}) revoked"
        elif r["action"] in ("pending", "reject"):
            what = ("waiting for confirmation: " if r["action"] == "pending" else "rejected: ") + \
                ", ".join(f"{k}={v}" for k, v in d.get("values", {}).items())
        else:
            what = f"{d['player']} joined after game {d['after_game']} with {d['start_points']} points ({d['start']})"
        if d.get("note"):
            what += f" ({d['note']})"
        table.append([r["at"], r["by"], r["source"], r["action"], r["game"] or "", what])
    typer.echo(tabulate(table, headers=["at (UTC)", "by", "from", "action", "game", "what"], disable_numparse=True))


@club_app.command("standings", epilog=_epilog("tourney club standings thursday --json"))
def standings(
    name: str = _name_argument(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Show the standings (lowest total first) and who goes first in the next game."""
    with _league(db, name, readonly=True) as league:
        summary = league.summary()
        games = league.games()
    if as_json:
        _show(summary, as_json)
    else:
        _print_standings(summary, games)  # with each player's rating, as tourney standings shows it


@club_app.command("withdraw", epilog=_epilog("tourney club withdraw thursday Cy"))
def withdraw(
    name: str = _name_argument(),
    player: str = typer.Argument(..., help="The player who leaves (kept in the standings, marked)."),
    yes: bool = _yes_option(),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Withdraw a player from the following games; their results stay in the standings."""
    with _league(db, name) as league:
        m = league.member(player)
        _confirm(yes, f"withdraw {m.name} from league {name}?")
        result = league.withdraw(player, by=by)
        summary = league.summary()
    err(f"{result['player']} withdrew after game {result['withdrawn_after']}")
    _show(summary, as_json, withdrawn=result)


@club_app.command("join", epilog=_epilog("tourney club join thursday Dan --start average"))
def join(
    name: str = _name_argument(),
    player: str = typer.Argument(..., help="The new player."),
    start: str = typer.Option("max", "--start",
                              help="Starting points: max (highest total of the active players), average, min, "
                                   "zero, or a number."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Add a new player from the next game on, with a starting score."""
    with _league(db, name) as league:
        result = league.join(player, start=start, by=by)
        summary = league.summary()
    err(f"{result['player']} joins after game {result['joined_after']} with {result['start_points']} points")
    _show(summary, as_json, joined=result)


def _void_or_restore_command(action: str, summary: str, game_help: str, example: str) -> None:
    """Register ``club void`` or ``club restore``: one signature, two actions."""

    def command(
        name: str = _name_argument(),
        game: int = typer.Argument(..., help=game_help),
        note: str = typer.Option(None, "--note", help="Why (kept in the history)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change and change nothing."),
        yes: bool = _yes_option(),
        by: str = _by_option(),
        db: str | None = _db_option(),
        as_json: bool = _json_option(),
    ) -> None:
        _void_or_restore(action, name, game, note, dry_run, yes, by, db, as_json)

    command.__name__ = action
    club_app.command(action, help=summary, epilog=_epilog(example))(command)


_void_or_restore_command(
    "void",
    "Void a game entered by mistake (a duplicate, the wrong league).\n\n"
    "The game stops counting but keeps its number and stays in the history; club restore undoes it.",
    "Number of the game entered by mistake.", 'tourney club void thursday 7 --note "entered twice" --dry-run')
_void_or_restore_command(
    "restore", "Undo the void of a game: its result (as last entered or corrected) counts again.",
    "Number of the void game to count again.", "tourney club restore thursday 7 --yes")


def _void_or_restore(action: str, name: str, game: int, note: str | None, dry_run: bool, yes: bool,
                     by: str | None, db: str | None, as_json: bool) -> None:
    with _league(db, name, readonly=dry_run) as league:
        change = getattr(league, action)
        preview = change(game, by=by, note=note, dry_run=True)
        head = "would" if dry_run else "will"
        what = "no longer count" if action == "void" else "count again"
        err(f"game {game}: version {preview['version']} {head} {what}: "
            + ", ".join(f"{k}={v} ({preview['points'][k]} points)" for k, v in preview["values"].items()))
        _describe_consequences(preview, dry_run)
        if dry_run:
            if as_json:
                _out_json({"version": 1, action: preview})
            return
        _confirm(yes, f"{action} game {game}?", "add --yes (or --dry-run to preview)")
        result = change(game, by=by, note=note, dry_run=False)
        summary = league.summary()
    err(f"game {game} {'voided' if action == 'void' else 'restored'} (version {result['version']}; "
        f"every version is kept)")
    _show(summary, as_json, **{action: result})


def _describe_consequences(p: dict, dry_run: bool) -> None:
    """Warnings about games after a changed one: who should have gone first, the league's end."""
    for c in p["leaders_changed"]:
        err(f"warning: game {c['game']} was already played with {c['actually_first']} first; after this change "
            f"{c['now']} should have gone first (before it: {c['was']})"
            + (" (a tie, settled at random)" if c["now_random"] else ""))
    if p["finished_changed"]:
        err(_end_warning(p["finished_changed"], dry_run).replace("this correction", "this change"))


@club_app.command("rename", epilog=_epilog('tourney club rename thursday "Bea Smith" --player Bea'))
def rename(
    name: str = _name_argument(),
    new_name: str = typer.Argument(..., help="The new name (of the league, or of the player given with --player)."),
    player: str = typer.Option(None, "--player",
                               help="Rename this player (name or roster number, #2) instead of the league."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Rename the league, or one of its players (a typo fixed); results and history are kept."""
    with _league(db, name) as league:
        result = league.rename(new_name, player=player, by=by)
        summary = league.summary()
    what = f"league {result['league']!r}" if "league" in result else f"player {result['player']!r}"
    err(f"{what} renamed {result['to']!r} (the history keeps the old name)")
    _show(summary, as_json, renamed=result)


@club_app.command("games", epilog=_epilog("tourney club games thursday --json"))
def games(
    name: str = _name_argument(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """List every game with its current result (after corrections; void games marked).

    club history lists the changes themselves."""
    with _league(db, name, readonly=True) as league:
        rows = league.game_list()
    if as_json:
        _out_json({"version": 1, "league": name, "games": rows})
        return
    table = []
    for g in rows:
        result = "void" if g["void"] else ", ".join(
            f"{r['entrant']} {r['points']}" + ("*" if r["winner"] else "") for r in g["results"])
        where = f"{g['round']}" + (f"/{g['table']}" if g["table"] else "")
        table.append([g["game"], where, g["version"], g["first"] or "", result, ", ".join(g["absent"]),
                      g["note"] or ""])
    typer.echo(tabulate(table, headers=["game", "round/\ntable", "version", "first", "points (* won)", "absent",
                                        "note"], disable_numparse=True))


@club_app.command("night", epilog=_epilog("tourney club night thursday --absent Dee --tables 2 --split draw"))
def night(
    name: str = _name_argument(),
    absent: list[str] = typer.Option(None, "--absent", help="Players not here tonight, comma-separated."),
    present: list[str] = typer.Option(None, "--present",
                                      help="Or: the players here tonight, comma-separated (the others are absent)."),
    tables: int = typer.Option(None, "--tables", help="Number of tables (default: as few as seat at most 4 each)."),
    size: int = typer.Option(None, "--size", help="Or: the most players at one table."),
    split: str = typer.Option("standings", "--split",
                              help="standings (best-ranked together at table 1, and so on) or draw (shuffled "
                                   "from the league's seed)."),
    show: bool = typer.Option(False, "--show", help="Print the plan of the round under way; change nothing."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Plan a round of a club night at several tables and print the table plan.

    The players present are split into tables (by standings, or drawn from the league's seed), each
    seated in playing order: the player with the most points first. Then enter each table's game
    with club add --table N. Planning again before any table is entered replaces the plan."""
    if show:
        with _league(db, name, readonly=True) as league:
            plan = league.open_night()
            if plan is None:
                raise UserError(f"no round of a club night is under way in league {name!r}")
            data = league.describe_night(plan)
    else:
        with _league(db, name) as league:
            data = league.plan_night(absent=_names(absent), present=_names(present) if present else None,
                                     split=split, tables=tables, size=size, by=by)
    if as_json:
        _out_json({"version": 1, "league": name, "night": data})
        return
    typer.echo(f"{name}, round {data['round']} (tables by {data['split']}; seats in playing order, "
               f"seat 1 goes first; points so far in brackets)")
    for t in data["tables"]:
        tie = f"  (first: a tie between {', '.join(t['tied'])}, settled from the league's seed)" if t["tied"] else ""
        done = "" if t["table"] in data["open"] else "  [entered]"
        typer.echo(f"table {t['table']}: " + ", ".join(f"{s['seat']}. {s['entrant']} ({s['points']})"
                                                      for s in t["seats"]) + tie + done)
    if data["absent"]:
        typer.echo(f"absent: {', '.join(data['absent'])}")
    if data["open"]:
        err(f"enter each table's game with: tourney club add {name} --table {data['open'][0]} --cards ...")


@club_app.command("set", epilog=_epilog("tourney club set thursday --absence highest --withdrawal prorate"))
def set_rules(
    name: str = _name_argument(),
    absence: str = typer.Option(None, "--absence", help="New absence rule: average, highest, none, or a number."),
    withdrawal: str = typer.Option(None, "--withdrawal", help="New withdrawal rule: penalty, average, prorate, total."),
    double_entry: str = typer.Option(None, "--double-entry",
                                     help="on: a game entered on the web counts once a second person confirms "
                                          "it with another of the league's codes; off: it counts at once."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Change how absences or early withdrawals count (the standings are recomputed from every game),
    or whether web entries need a second person's confirmation."""
    if double_entry is not None and double_entry not in ("on", "off"):
        raise UserError(f"--double-entry {double_entry!r}: give on or off")
    with _league(db, name) as league:
        change = league.set_rules(absence=absence, withdrawal=withdrawal,
                                  double_entry=None if double_entry is None else double_entry == "on", by=by)
        summary = league.summary()
        live = sum(r["status"] == "live" for r in _codes_of(league)) if double_entry == "on" else 2
    for rule, v in change.items():
        err(f"{rule}: {v['was']} -> {v['now']}" + ("" if rule == "double_entry" else
                                                  " (every game counts under the new rule)"))
    if live < 2:
        err(f"note: a web entry is confirmed with another code than the one that entered it; league {name!r} "
            f"has {live} live code{'' if live == 1 else 's'} (tourney club code new {name} --table N)")
    _show(summary, as_json, changed=change)


def _codes_of(league) -> list[dict]:
    from tourney.club.codes import list_codes  # heavy at CLI start: the club service loads for club commands

    return list_codes(league)


# ---- league codes: who may write on the web (tourney serve --club-entry, docs/web.md)

code_app = typer.Typer(name="code", help="League codes: what a phone types to enter results on the web.",
                       epilog=_epilog("tourney club code new thursday --table 2 --expires 6h"), no_args_is_help=True)
club_app.add_typer(code_app, name="code")


@code_app.command("new", epilog=_epilog("tourney club code new thursday --table 2 --expires 6h"))
def code_new(
    name: str = _name_argument(),
    table: int = typer.Option(None, "--table", help="The table this code is for (its entries say 'table N')."),
    expires: str = typer.Option(None, "--expires", help="Stop working after this long: 90m, 6h, 2d (default: never)."),
    url: str = typer.Option(None, "--url",
                            help="The address phones open (e.g. http://192.168.1.20:8000/): print a link and a QR "
                                 "code that hold the league page and the code."),
    qr: bool = typer.Option(True, "--qr/--no-qr", help="Print a QR code in the terminal."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Make a code that lets a phone enter this league's results (shown once; only its hash is kept)."""
    from tourney.club.codes import new_code  # heavy at CLI start: the club service loads for club commands

    with _league(db, name) as league:
        code, row = new_code(league, table=table, expires=expires, by=by)
        link = _code_link(url, league.id, code) if url else None
    if as_json:
        _out_json({"version": 1, "league": name, "code": code, "link": link, **row})
        return
    typer.echo(f"code {row['id']} of league {name} ({row['label']}): {code}")
    if row["expires_at"]:
        typer.echo(f"expires {row['expires_at']}")
    if link:
        typer.echo(f"link: {link}")
    if qr:
        import segno  # heavy: the QR code only for --qr

        segno.make(link or code, error="m").terminal(compact=True)
    err("the code is shown once and stored only as a hash; tourney club code revoke stops it")


def _code_link(url: str, league_id: int, code: str) -> str:
    return f"{url.rstrip('/')}/league/{league_id}#code={quote(code)}"


@code_app.command("list", epilog=_epilog("tourney club code list thursday"))
def code_list(name: str = _name_argument(), db: str | None = _db_option(), as_json: bool = _json_option()) -> None:
    """List a league's codes (never the codes themselves): label, made, expires, last used, status."""
    from tourney.club.codes import list_codes  # heavy at CLI start: the club service loads for club commands

    with _league(db, name, readonly=True) as league:
        rows = list_codes(league)
    if as_json:
        _out_json({"version": 1, "league": name, "codes": rows})
        return
    typer.echo(tabulate([[r["id"], r["label"], r["created_at"], r["created_by"], r["expires_at"] or "never",
                          r["used_at"] or "", r["status"]] for r in rows],
                        headers=["id", "label", "made (UTC)", "by", "expires", "last used", "status"],
                        disable_numparse=True))


@code_app.command("revoke", epilog=_epilog("tourney club code revoke thursday 3"))
def code_revoke(
    name: str = _name_argument(),
    code_id: int = typer.Argument(None, help="The code's id (see club code list)."),
    every: bool = typer.Option(False, "--all", help="Revoke every live code of the league."),
    by: str = _by_option(),
    db: str | None = _db_option(),
) -> None:
    """Stop a code working at once: phones signed in with it can no longer write."""
    from tourney.club.codes import revoke  # heavy at CLI start: the club service loads for club commands

    if (code_id is None) == (not every):
        raise UserError("give a code's id or --all")
    with _league(db, name) as league:
        done = revoke(league, code_id, every=every, by=by)
    err(f"revoked {len(done)} code{'s' if len(done) != 1 else ''}"
        + (": " + ", ".join(f"{r['id']} ({r['label']})" for r in done) if done else ""))

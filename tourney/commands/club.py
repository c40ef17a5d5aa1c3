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
    from tourney.club.league import League

    db = open_store(db_path, readonly=readonly)
    yield (League(db, name) if name is not None else db)


def _out_json(data) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _print_standings(summary: dict) -> None:
    from tourney.results.report import footer_lines, render_table
    from tourney.results.standings import club_envelope

    data = club_envelope(summary)
    typer.echo(render_table(data), nl=False)
    if footer_lines(data):
        typer.echo(footer_lines(data))


def _show(summary: dict, as_json: bool, **done) -> None:
    """The league after a command: the standings table, or the summary's JSON led by what the
    command did (``entered=...``, ``joined=...``)."""
    if as_json:
        _out_json({"version": 1, **done, **{k: v for k, v in summary.items() if k != "version"}})
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
    from tourney.club.entries import parse_pairs

    return parse_pairs(cards or []) + parse_pairs(card or [], split=False)


@club_app.command("new", epilog=_epilog("tourney club new thursday --players Ann,Bea,Cy --seed 7 --target 100"))
def new(
    name: str = _name_argument(),
    players: str = typer.Option("", "--players", help="Players, comma-separated, in roster order."),
    player: list[str] = typer.Option(None, "--player", help="One more player (repeatable; for names with commas)."),
    rule_set: str = typer.Option("crazier-eights", "--rule-set",
                                 help="crazier-eights (points = cards left), crazy-eights or super-crazy-eights (card values)."),
    seed: int = typer.Option(None, "--seed", help="Seed that settles ties for who goes first (default: random, stored)."),
    target: int = typer.Option(None, "--target", help="Stop when a total reaches this score (e.g. 100); lowest total wins."),
    eliminated_score: str = typer.Option("snapshot", "--eliminated-score",
                                         help="How an eliminated player scores: snapshot, zero or max_plus_one (rulings.md 13)."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Create a club league with its players."""
    from tourney.club.league import League

    names = [p for p in players.split(",") if p.strip()] + list(player or [])
    with _league(db) as database:
        league = League.create(database, name, names, rule_set=rule_set, seed=seed, target=target,
                               eliminated_score=eliminated_score, by=by)
        summary = league.summary()
    err(f"created club league {name!r} with {len(names)} players (seed {summary['seed']})")
    _show(summary, as_json)


@club_app.command("list", epilog=_epilog("tourney club list --json"))
def list_(db: str | None = _db_option(), as_json: bool = _json_option()) -> None:
    """List the club leagues in the database."""
    from tourney.club.league import list_leagues

    with _league(db, readonly=True) as database:
        rows = list_leagues(database)
    if as_json:
        _out_json({"version": 1, "leagues": rows})
    else:
        typer.echo(tabulate([[r["name"], r["rule_set"], r["target"] or "", r["games"]] for r in rows],
                            headers=["league", "rule set", "target", "games"], disable_numparse=True))


@club_app.command("add", epilog=_epilog("tourney club add thursday --cards Ann=0,Bea=3,Cy=elim:5"))
def add(
    name: str = _name_argument(),
    cards: list[str] = typer.Option(None, "--cards",
                                    help="NAME=VALUE pairs, comma-separated: cards left (crazier-eights; elim:N when "
                                         "eliminated holding N), or points / cards like 8+K+3 (other rule sets)."),
    card: list[str] = _card_option(),
    first: str = typer.Option(None, "--first", help="Who actually went first, if not the player shown by standings."),
    note: str = typer.Option(None, "--note", help="A note kept with the entry."),
    by: str = _by_option(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Enter the result of the next game: every player's cards left in hand (the winner 0)."""
    with _league(db, name) as league:
        result = league.add(_pairs(cards, card), first=first, by=by, note=note)
        summary = league.summary()
    err(f"game {result['game']} entered; won by {', '.join(result['winners']) or 'nobody (draw)'}")
    _show(summary, as_json, entered=result)


@club_app.command("correct", epilog=_epilog("tourney club correct thursday 2 --cards Bea=4 --dry-run"))
def correct(
    name: str = _name_argument(),
    game: int = typer.Argument(..., help="Number of the game to correct."),
    cards: list[str] = typer.Option(None, "--cards", help="Corrected NAME=VALUE pairs; players not named keep their value."),
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
            err(f"  {n}: {p['before_values'][n]} ({p['before'][n]} points) -> {p['after_values'][n]} ({p['after'][n]} points)")
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
    line = f"warning: this correction {verb} the end of the league (was: {end(change['was'])}; {now}: {end(change['now'])})"
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
    """Show who changed what and when: creation, entries, corrections, withdrawals, joins."""
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
        elif r["action"] == "correct":
            what = f"v{d['version']}: " + ", ".join(f"{k} {d['before'][k]}->{v}" for k, v in d["after"].items()
                                                    if d["before"].get(k) != v)
            if d.get("leaders_changed"):
                what += "; changes who should have gone first in game " + ", ".join(str(c["game"]) for c in d["leaders_changed"])
            if d.get("finished_changed"):
                what += "; changes the end of the league"
        elif r["action"] == "withdraw":
            what = f"{d['player']} withdrew after game {d['after_game']}"
        else:
            what = f"{d['player']} joined after game {d['after_game']} with {d['start_points']} points ({d['start']})"
        if d.get("note"):
            what += f" ({d['note']})"
        table.append([r["at"], r["by"], r["action"], r["game"] or "", what])
    typer.echo(tabulate(table, headers=["at (UTC)", "by", "action", "game", "what"], disable_numparse=True))


@club_app.command("standings", epilog=_epilog("tourney club standings thursday --json"))
def standings(
    name: str = _name_argument(),
    db: str | None = _db_option(),
    as_json: bool = _json_option(),
) -> None:
    """Show the standings (lowest total first) and who goes first in the next game."""
    with _league(db, name, readonly=True) as league:
        summary = league.summary()
    _show(summary, as_json)


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
                              help="Starting points: max (highest total of the active players), average, min, zero, or a number."),
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

"""``tourney sprt A B``: is candidate A better than baseline B? Play until the SPRT answers."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store, out_json, parse_options
from tourney.commands.running import MAX_GAMES_PER_PROCESS, MAX_RSS_MB, RESTART, execute, reuse_settings
from tourney.config import event_from_words
from tourney.errors import UserError
from tourney.formats import sequential as sprt_event
from tourney.results import store


@app.command(epilog="Example: tourney sprt examples/bots/smart_bot.py greedy --elo0 0 --elo1 5 --duplicate "
             "-j 2\n\n" + EXIT_CODES)
def sprt(
    candidate: str = typer.Argument(..., help="The entrant under test: a built-in bot, a program or a --config name."),
    baseline: str = typer.Argument(..., help="The entrant it is measured against."),
    elo0: float = typer.Option(0.0, "--elo0", help="H0: the candidate is at most this much better (logistic Elo)."),
    elo1: float = typer.Option(5.0, "--elo1", help="H1: the candidate is at least this much better."),
    alpha: float = typer.Option(0.05, "--alpha", help="Chance of accepting H1 when H0 holds."),
    beta: float = typer.Option(0.05, "--beta", help="Chance of accepting H0 when H1 holds."),
    max_games: int = typer.Option(20000, "--max-games", min=2, help=(
        "Play at most this many games, then stop undecided; the last batch is cut to fit (whole "
        "pairs with --duplicate).")),
    duplicate: bool = typer.Option(False, "--duplicate", help=(
        "Play mirror pairs (the pentanomial model); at tables of 3 or more every deal is a duplicate "
        "substitution set anyway.")),
    players: int = typer.Option(2, "--players", min=2, max=8, help=(
        "Table size K: at 3 to 8 the candidate and the baseline each take every seat of a deal "
        "against the same field (docs/evaluation.md, \"Verdicts at tables of many\").")),
    field: str = typer.Option(None, "--field", help=(
        "The K-1 others at the table, comma-separated (built-in bots, programs or --config names); "
        "default: K-1 copies of the baseline.")),
    games_per_series: int = typer.Option(
        2, "--games-per-series",
        help="Single games per start of the two bots: 1, 2, 4 or 8 (the test is still updated every 8 games)."),
    luck_adjusted: bool = typer.Option(
        None, "--luck-adjusted/--raw",
        help="Test the luck-adjusted scores (docs/evaluation.md) or the raw ones; default: the rule set's."),
    concurrency: int = typer.Option(0, "--concurrency", "-j", min=0, help="Series played at once (0: cores)."),
    cluster: str = typer.Option(
        None, "--cluster", envvar="TOURNEY_CLUSTER",
        help="Play the series on the Dask cluster whose scheduler is at this address, as tourney run "
             "--cluster (default: $TOURNEY_CLUSTER, else local processes); docs/scale.md."),
    seed: int = typer.Option(1, help="Event seed."),
    rule_set: str = typer.Option("crazier-eights", "--rule-set", help="Rule set to play."),
    option: list[str] = typer.Option(None, "--option", "-o", help="Rule-set option key=value."),
    config: Path = typer.Option(None, "--config", help="Take entrant definitions from a config."),
    name: str = typer.Option(None, "--name", help="Event name to store the test under."),
    public_seeds: bool = typer.Option(False, "--public-seeds", help="Deal from the seed alone (docs/formats.md)."),
    restart: str = RESTART,
    max_games_per_process: int = MAX_GAMES_PER_PROCESS,
    max_rss_mb: int = MAX_RSS_MB,
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the test's result as JSON."),
) -> None:
    """Play CANDIDATE against BASELINE until the sequential probability ratio test answers.

    The test accepts H1 (better by at least --elo1), accepts H0 (at most --elo0), or stops
    inconclusive at --max-games. With --players K (3 to 8) the Elo is field Elo: how the
    candidate's placement score at that table, against that field, compares with the
    baseline's in the same seats of the same deals. Games come in batches of 8 (8 mirror pairs
    with --duplicate, 8 substitution sets of 2K games at tables of K), and the test is updated
    between batches: where it stands goes to stderr, the verdict to
    stdout. The test is stored as an event (tourney standings NAME, tourney report NAME).
    Methods: docs/evaluation.md. JSON shape: docs/schemas/sprt.schema.json; its "restart" names
    how long a bot process lived (never, series, game; docs/protocol.md, "Warm bots"): a warm
    bot may remember earlier games.
    """
    others: list[str] = []
    if players > 2:
        others = [w.strip() for w in field.split(",")] if field else [baseline] * (players - 1)
        if len(others) != players - 1 or not all(others):
            raise UserError(f"--field names the {players - 1} others at a table of {players}, "
                            f"got {len([w for w in others if w])}")
        games_per_series = 1  # each game of a set has bots of its own
    elif field:
        raise UserError("--field is for tables of 3 or more (--players K)")
    cfg = event_from_words("sprt", [candidate, baseline, *others], seed=seed, rule_set=rule_set,
                           options=parse_options(option), games=1, max_games=max_games, config=config,
                           name=name, duplicate=duplicate, public_seeds=public_seeds,
                           settings={"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta,
                                     "games_per_series": games_per_series, "players": players,
                                     **({} if luck_adjusted is None else {"luck_adjusted": luck_adjusted})},
                           reuse=reuse_settings(restart, max_games_per_process, max_rss_mb))
    database = open_store(db)
    summary = execute(database, cfg, store.COMMAND_LINE, concurrency=concurrency, json_out=json_out,
                      quiet=json_out, cluster=cluster, standings=False)
    if json_out:
        out_json({"event": summary["event"], "sprt": summary["sprt"]})
        return
    typer.echo(sprt_event.line(summary["sprt"]))

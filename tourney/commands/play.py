"""``tourney play``: one game between any entrants, its log printed as it goes."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store, out_json, parse_options
from tourney.commands.running import execute
from tourney.config import event_from_words
from tourney.results import store


@app.command(
    epilog="Examples: tourney play greedy random --seed 3\n\n"
    "tourney play greedy examples/bots/random_bot.py random random\n\n" + EXIT_CODES
)
def play(
    entrants: list[str] = typer.Argument(
        ..., help="2-8 entrants: built-in bots (random, greedy), bot programs (.py files run "
        "with this Python), or entrant names of --config."
    ),
    seed: int = typer.Option(1, help="Event seed (the game seed derives from it)."),
    rule_set: str = typer.Option("crazier-eights", "--rule-set", help="Rule set to play."),
    option: list[str] = typer.Option(None, "--option", "-o", help="Rule-set option key=value."),
    config: Path = typer.Option(None, "--config", help="Take entrant definitions from a config."),
    name: str = typer.Option(None, "--name", help="Event name to store the game under."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the game as JSON (no log)."),
) -> None:
    """Play one game between ENTRANTS (seat order as given) and print its log as it goes.

    The game is stored like any event's game, so `tourney games` lists it and `tourney replay`
    shows it again.
    """
    cfg = event_from_words("single", entrants, seed=seed, rule_set=rule_set,
                    options=parse_options(option), games=1, max_games=None, config=config,
                    name=name)
    database = open_store(db)
    games = []

    def on_line(line):
        if not json_out:
            typer.echo(line)

    summary = execute(database, cfg, store.COMMAND_LINE, concurrency=1, json_out=True, quiet=True,
                      on_line=on_line, on_game=lambda s, p: games.append(p))
    game = games[-1] if games else None
    names = [e["entrant"] for e in summary["series"][0]["entrants"]]
    if json_out:
        gid = database.execute(
            "select g.id from games g join events e on e.id = g.event_id where e.name = ?",
            [summary["event"]]).fetchone()[0]
        out_json(game_json(gid, summary["event"], names, game))
        return
    winners = [names[s] for s in game["winners"]]
    typer.echo(
        f"result: {', '.join(winners) + ' wins' if winners else 'no winner'} "
        f"({game['reason']}); points: "
        + ", ".join(f"{n} {p}" for n, p in zip(names, game["points"]))
    )


def game_json(game_id: int, event: str, names: list[str], game: dict) -> dict:
    """The ``tourney play --json`` document."""
    return {
        "game_id": game_id,
        "event": event,
        "rule_set": game["rule_set"],
        "seed": game["seed"],
        "first_player": game["first_player"],
        "winners": [names[s] for s in game["winners"]],
        "reason": game["reason"],
        "seats": [
            {"seat": s["seat"], "entrant": names[s["seat"]], "points": s["points"],
             "placement": s["placement"], "fault": s["fault"]}
            for s in game["seats"]
        ],
        "decisions": game["decisions"],
    }

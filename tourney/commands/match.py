"""``tourney match A B --best-of N``: a best-of-N series, printed as it goes."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney import narrate
from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, out_json
from tourney.commands.running import (
    CONFIG,
    MAX_GAMES_PER_PROCESS,
    MAX_RSS_MB,
    NAME,
    OPTION,
    PUBLIC_SEEDS,
    RESTART,
    RULE_SET,
    SEED,
    play_words,
    reuse_settings,
)
from tourney.formats import FormatName
from tourney.results import reads, store


@app.command(
    epilog="Example: tourney match greedy examples/bots/random_bot.py --best-of 5 --seed 7\n\n"
    + EXIT_CODES
)
def match(
    entrants: list[str] = typer.Argument(
        ..., help="The entrants (usually two): built-in bots (random, greedy, mcts), bot programs, or "
        "entrant names of --config."
    ),
    best_of: int = typer.Option(3, "--best-of", "-n", min=1, help="Best of N games (N odd)."),
    max_games: int = typer.Option(
        None, "--max-games", help="Games after which an undecided match is drawn "
        "(default 2N+1; games without a winner count for neither)."
    ),
    seed: int = SEED,
    public_seeds: bool = PUBLIC_SEEDS,
    rule_set: str = RULE_SET,
    option: list[str] = OPTION,
    config: Path = CONFIG,
    name: str = NAME,
    duplicate: bool = typer.Option(
        False, "--duplicate", help="Duplicate deals: every deal is played once per seat rotation "
        "(the mirror game for two), no bot process meeting a deal twice; the match is best of N such sets."
    ),
    play_all: bool = typer.Option(
        False, "--all", help="Play all N games (sets) even after a majority, for measurement."
    ),
    restart: str = RESTART,
    max_games_per_process: int = MAX_GAMES_PER_PROCESS,
    max_rss_mb: int = MAX_RSS_MB,
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print every game's log too."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the series as JSON."),
) -> None:
    """Play a best-of-N match: the first to win a majority of the N games wins.

    Game 1's first player is drawn from the seed; then the loser of the previous game goes
    first. A game without a winner counts for neither and another game is played; after
    --max-games games the match is drawn. With a rule set that plays a game as a series of
    deals (crazy-eights with -o series=target, super-crazy-eights) every game of the match is
    such a leg: to the target score, or fifteen deals. --duplicate plays every deal (or leg)
    once per seat rotation and counts sets; --all plays every game even after a majority.
    """
    def on_game(s, game):
        if not json_out:
            for line in game_lines([e["name"] for e in s["entrants"]], game):
                typer.echo(line)

    database, cfg, summary = play_words(
        FormatName.MATCH, entrants, db=db, seed=seed, rule_set=rule_set, option=option,
        config=config, name=name, public_seeds=public_seeds, games=best_of, max_games=max_games,
        duplicate=duplicate, play_all=play_all,
        reuse=reuse_settings(restart, max_games_per_process, max_rss_mb),
        log=(lambda line: typer.echo(f"  {line}")) if verbose and not json_out else None,
        on_game=on_game)
    if json_out:
        out_json(match_json(database, summary))
    else:
        typer.echo(match_line(summary["series"][0], bool(cfg.event.get("duplicate"))))


def game_lines(names: list[str], game: dict) -> list[str]:
    """A game of a match as it ends: who went first and who won, and the score (of the leg too,
    where legs are runs of deals)."""
    def score(counts):
        return " - ".join(f"{n} {c}" for n, c in zip(names, counts))

    tally = game["tally"]
    seated = [names[slot] for slot in game["slots"]]  # who sat where (duplicate rotations)
    who = ", ".join(seated[w] for w in game["winners"]) or "no winner"
    reason = narrate.reason_words(game["reason"])
    head = f"game {game['idx'] + 1}: first {seated[game['first_player']]}; {who} ({reason})"
    if game["duplicate_set"] is not None:
        head = f"set {game['duplicate_set'] + 1}, rotation {game['rotation'] + 1}, {head}"
    if "leg" not in tally:
        return [f"{head}; score {score(tally['wins'])}"]
    lines = [f"leg {tally['leg']}, {head}; leg points {score(tally['leg_scores'])}"]
    if tally["leg_over"]:
        leg_winner = ", ".join(names[w] for w in tally["leg_winners"]) or "nobody (drawn)"
        lines.append(f"leg {tally['leg']} won by {leg_winner}; score {score(tally['wins'])}")
    return lines


def match_line(series: dict, duplicate: bool) -> str:
    """The match's result in one line."""
    result = f"{series['winner']} wins" if series["winner"] else "drawn"
    played = (f" in {series['games']} games" if series["legs"] == series["games"]
              else f" in {series['legs']} leg{'s' if series['legs'] != 1 else ''} ({series['games']} deals)")
    sets = f" ({series['sets']} duplicate sets)" if duplicate else ""
    return f"match: {result}, " + " - ".join(f"{e['entrant']} {e['wins']}" for e in series["entrants"]) + played + sets


def match_json(db, summary: dict) -> dict:
    """The ``tourney match --json`` document."""

    series = summary["series"][0]
    games = store.list_games(db, event=summary["event"])
    return {
        "event": summary["event"],
        "seed": summary["seed"],
        "best_of": reads.event_best_of(db, summary["event"]),
        "legs": series["legs"],
        "sets": series["sets"],
        "outcome": series["outcome"],
        "winner": series["winner"],
        "entrants": [{"entrant": e["entrant"], "seat": e["seat"], "wins": e["wins"]}
                     for e in series["entrants"]],
        "games": [
            {"game_id": g["id"], "game": g["game"], "leg": g["leg"],
             "duplicate_set": g["duplicate_set"], "rotation": g["rotation"], "seed": g["seed"],
             "first_player": g["first_player"],
             "winners": [g["seats"][w]["entrant"] for w in g["winners"]], "reason": g["reason"]}
            for g in games
        ],
    }

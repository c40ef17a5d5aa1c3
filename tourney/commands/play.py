"""``tourney play``: one game between any entrants, its log printed as it goes."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney import narrate
from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, out_json
from tourney.commands.running import CONFIG, NAME, OPTION, PUBLIC_SEEDS, RULE_SET, SEED, play_words
from tourney.events.reasons import Reason
from tourney.formats import FormatName
from tourney.results import store

#: the ``reason`` of a game of several deals: decided on the deals' totals (docs/formats.md, "Legs")
LEG_TOTALS = Reason.LEG_TOTALS


@app.command(
    epilog="Examples: tourney play greedy random --seed 3\n\n"
    "tourney play human greedy --rule-set crazy-eights   (you play against greedy)\n\n"
    "tourney play greedy examples/bots/random_bot.py random random\n\n" + EXIT_CODES
)
def play(
    entrants: list[str] = typer.Argument(
        ..., help="2-8 entrants: built-in bots (random, greedy, mcts), human (you, at the terminal), bot "
        "programs (.py files run with this Python), or entrant names of --config."
    ),
    seed: int = SEED,
    public_seeds: bool = PUBLIC_SEEDS,
    rule_set: str = RULE_SET,
    option: list[str] = OPTION,
    config: Path = CONFIG,
    name: str = NAME,
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the game as JSON (no log)."),
) -> None:
    """Play one game between ENTRANTS (seat order as given) and print its log as it goes.

    The game is stored like any event's game, so `tourney games` lists it and `tourney replay`
    shows it again.
    """
    deals: list[dict] = []
    shown_result = []  # whether the printed log already ended a game with its result line

    def log(line):
        typer.echo(line)
        shown_result.append(line.startswith("result:"))

    def on_deal(s, deal):
        deals.append(deal)
        tally = deal["tally"]
        if not json_out and "leg" in tally:  # a game of several deals: say where the leg stands
            names = [e["name"] for e in s["entrants"]]
            who = ", ".join(names[w] for w in deal["winners"]) or "no winner"
            typer.echo(f"deal {len(deals)}: {who} ({narrate.reason_words(deal['reason'])}); leg points "
                       + " - ".join(f"{n} {p}" for n, p in zip(names, tally["leg_scores"])))

    # a person at the table sees only their own seat's view; the referee's log shows every hand
    database, _, summary = play_words(
        FormatName.SINGLE, entrants, db=db, seed=seed, rule_set=rule_set, option=option,
        config=config, name=name, public_seeds=public_seeds, games=1, max_games=None,
        log=None if json_out else log, on_game=on_deal)
    series = summary["series"][0]
    names = [e["entrant"] for e in series["entrants"]]
    ids = [g["id"] for g in store.list_games(database, event=summary["event"])]
    result = play_result(summary["event"], series, names, deals, ids)
    if json_out:
        out_json(result)
        return
    if len(deals) == 1 and shown_result and shown_result[-1]:
        return  # the log already ends with the game's result line
    winners = ", ".join(result["winners"])
    how = narrate.reason_words(result["reason"]) if len(deals) == 1 else \
        f"decided on the totals of {len(deals)} deals"
    typer.echo(
        f"result: {winners + (' wins' if len(result['winners']) == 1 else ' win') if winners else 'no winner'}"
        f" ({how}); points (fewer is better): "
        + ", ".join(f"{s['entrant']} {s['points']}" for s in result["seats"])
    )


def play_result(event: str, series: dict, names: list[str], deals: list[dict], ids: list[int]) -> dict:
    """The ``tourney play --json`` document: the whole game as the rule set defines it. With a rule
    set that plays a game as a run of deals (a leg: super-crazy-eights, crazy-eights to a target)
    the winner, points and placements are the leg's, and ``deals`` lists every deal; with one deal
    they are that deal's. ``game_id`` and ``seed`` are the first deal's."""
    first = deals[0]
    seats = {e["seat"]: e for e in series["entrants"]}
    return {
        "game_id": ids[0],
        "event": event,
        "rule_set": first["rule_set"],
        "seed": first["seed"],
        "first_player": first["first_player"],
        # one deal: its winners (a team may win together); a leg: the series' one winner, if any
        "winners": ([names[w] for w in first["winners"]] if len(deals) == 1
                    else [series["winner"]] if series["winner"] else []),
        "reason": first["reason"] if len(deals) == 1 else LEG_TOTALS,
        "seats": [
            {"seat": s, "entrant": names[s], "points": seats[s]["points"], "placement": seats[s]["placement"],
             "fault": next((d["seats"][s]["fault"] for d in deals if d["seats"][s]["fault"]), None)}
            for s in range(len(names))
        ],
        "decisions": sum(d["decisions"] for d in deals),
        "deals": [
            {"game_id": gid, "deal": i + 1, "seed": d["seed"], "first_player": d["first_player"],
             "winners": [names[w] for w in d["winners"]], "reason": d["reason"], "points": list(d["points"]),
             "decisions": d["decisions"]}
            for i, (gid, d) in enumerate(zip(ids, deals))
        ],
    }

"""``tourney replay GAME_ID``: re-create a stored game from its seed and choices."""

from __future__ import annotations

import json

import typer

from tourney import narrate
from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store, out_json
from tourney.errors import CheckFailed, UserError


@app.command(epilog="Example: tourney replay 12\n\n" + EXIT_CODES)
def replay(
    game_id: int = typer.Argument(..., help="Game id (see `tourney games`)."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the replay as JSON."),
) -> None:
    """Replay a stored game from its seed and option ids and print it turn by turn.

    The replayed result is checked against the stored one (exit code 3 if they differ).
    JSON shape: {"game_id", "start": {rule_set, players, seed, options, first_player, teams},
    "choices": [...], "forfeits": [[n, seat, code]], "seats": [entrant names], "log": [lines],
    "result": {winners, reason, points, placements, eliminated, detail}, "matches_stored": bool}.
    """
    from tourney.results import store

    database = open_store(db, readonly=True)
    rows = list(database["replays"].rows_where("game_id = ?", [game_id]))
    if not rows:
        raise UserError(f"no game with id {game_id}")
    row = rows[0]
    names = [r["name"] for r in database.query(
        "select e.name from seats s join entrants e on e.id = s.entrant_id where s.game_id = ? "
        "order by s.seat", [game_id])]
    stored = database["games"].get(game_id)
    lines: list[str] = []

    def on_line(line):
        lines.append(line)
        if not json_out:
            typer.echo(line)

    if not json_out:
        typer.echo(f"game {game_id}: " + ", ".join(f"seat {i} {n}" for i, n in enumerate(names))
                   + f"; seed {row['seed']}; first player {row['first_player']}")
    game = store.replay_game(row, on_line=on_line, names=names)
    result = game.result
    ok = result is not None and list(result.winners) == json.loads(stored["winners"])
    if json_out:
        out_json({
            "game_id": game_id,
            "start": store.replay_start(row),
            "choices": json.loads(row["choices"]),
            "forfeits": json.loads(row.get("forfeits") or "[]"),
            "seats": names,
            "log": lines,
            "result": result.to_dict() if result else None,
            "matches_stored": ok,
        })
    elif result is not None:
        table = narrate.Table(row["rule_set"], tuple(names))
        typer.echo(narrate.result_line(table, result.winners, result.reason, result.points))
    if not ok:
        raise CheckFailed("the replay does not match the stored result")

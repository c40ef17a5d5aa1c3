"""``tourney replay GAME_ID``: re-create a stored game from its seed and choices, in words."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any

import typer

import engine
from tourney import narrate
from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store, out_json
from tourney.errors import CheckFailed, UserError
from tourney.results import reads, store


@dataclass
class Replay:
    """A replayed game told in steps: ``steps[0]`` is the deal, every later step one decision
    and what followed it. ``forfeits`` are ``[choice index, seat, code]``."""

    game: Any
    steps: list[list[str]] = field(default_factory=list)
    forfeits: list[list] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        return [line for step in self.steps for line in step]


def replay_steps(row: dict, names: list[str], seat: int | None = None, options: bool = False,
                 fault_details: dict[int, str] | None = None) -> Replay:
    """Replay a stored game (a ``replays`` row) as steps of readable lines.

    ``seat`` None tells everything: the whole deal and every decision with its chooser (for
    analysis). With a seat, only what that seat saw: its own starting hand, the events shown to
    it, and its own decisions. ``options`` lists every legal option of a shown decision, the
    chosen one marked with ``*``.
    """
    game = engine.new_game(**store.replay_start(row))
    table = narrate.table_for(game, names)
    details = fault_details or {}
    out = Replay(game)
    shown = 0

    def news() -> list[str]:
        nonlocal shown
        lines = [f"  {narrate.event(table, e)}" for e in game.events[shown:]
                 if seat is None or e.get("only", seat) == seat]
        shown = len(game.events)
        return lines

    def forfeit(n: int, who: int, code: str) -> list[str]:
        out.forfeits.append([n, who, code])
        detail = details.get(who, "")
        return [f"! fault: {narrate.player(table, who)} {code}" + (f": {detail}" if detail else "")]

    out.steps.append(start_lines(game, table, seat) + news())
    choices = json.loads(row["choices"])
    stored_forfeits = json.loads(row.get("forfeits") or "[]")
    for i in range(len(choices) + 1):
        for n, who, code in stored_forfeits:  # forfeits stored beside the choices (older rows)
            if n == i:
                lines = forfeit(n, who, code)
                game.forfeit(who, code)
                out.steps[-1] += lines + news()
        if i == len(choices):
            break
        choice = choices[i]
        if choice.startswith(engine.FORFEIT + ":"):
            _, who, code = choice.split(":", 2)
            lines = forfeit(i, int(who), code)
            engine.apply_choice(game, choice)
            out.steps[-1] += lines + news()
            continue
        decision = game.pending
        assert decision is not None, "a choice is left, so the game waits for it"
        if seat is not None and decision.player != seat:
            engine.apply_choice(game, choice)
            out.steps[-1] += news()
            continue
        step = [f"> {narrate.player(table, decision.player)} chooses: "
                f"{narrate.option(table, choice, game.label(choice))}"
                + (f"  [{narrate.words(table, decision.prompt)}]" if options and decision.prompt else "")]
        if options:
            step += [f"    {'*' if o == choice else ' '} {k}. {narrate.option(table, o, game.label(o))}"
                     for k, o in enumerate(decision.options, 1)]
        engine.apply_choice(game, choice)
        out.steps.append(step + news())
    return out


def start_lines(game, table: narrate.Table, seat: int | None) -> list[str]:
    """The starting hands: every seat's (and every dummy), or only ``seat``'s."""
    lines = ["starting hands:"]
    seats = range(game.players) if seat is None else [seat]
    for p in seats:
        view = game.view(p)
        lines.append(f"  {narrate.player(table, p)}: {narrate.cards(table, view.get('hand') or [])}")
    dummies = [h for h in (game.view(seats[0]).get("hands") or []) if h.get("dummy") and "cards" in h]
    for h in dummies:
        lines.append(f"  {h['position']} (dummy of {narrate.player(table, h['player'])}): "
                     f"{narrate.cards(table, h['cards'])}")
    return lines


@app.command(epilog="Examples: tourney replay 12\n\ntourney replay 12 --as 1 --options\n\n"
             "tourney replay 12 --stderr\n\ntourney replay 12 --step\n\n" + EXIT_CODES)
def replay(
    game_id: int = typer.Argument(..., help="Game id (see `tourney games`)."),
    seat: int = typer.Option(None, "--as", help="Show only what this seat (0, 1, ...) saw."),
    options: bool = typer.Option(False, "--options", help="List each decision's options; * marks the chosen."),
    stderr: bool = typer.Option(False, "--stderr", help="Show what each bot wrote to stderr in this game."),
    step: bool = typer.Option(False, "--step", help="Walk through the game one decision at a time."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the replay as JSON."),
) -> None:
    """Replay a stored game from its seed and option ids and tell it decision by decision.

    Without --as it shows the whole deal and every decision with its chooser (for analysis);
    faults show their code and detail. The replayed result is checked against the stored one
    (exit code 3 if they differ).

    JSON shape: docs/schemas/replay.schema.json.
    """
    database = open_store(db, readonly=True)
    row = store.load_replay(database, game_id)
    if row is None:
        raise UserError(f"no game with id {game_id}")
    seats = reads.game_seats(database, game_id)
    names = [r["name"] for r in seats]
    if seat is not None and not 0 <= seat < len(names):
        raise UserError(f"--as {seat}: the game has seats 0 to {len(names) - 1}")
    logs = reads.game_output(database, game_id)
    details = {int(k): str(v) for k, v in json.loads(logs.get("faults") or "{}").items()}
    bot_stderr = {int(k): str(v) for k, v in json.loads(logs.get("stderr") or "{}").items()}
    stored = database["games"].get(game_id)

    told = replay_steps(row, names, seat, options, details)
    result = told.game.result
    ok = result is not None and list(result.winners) == json.loads(stored["winners"])
    faults = [{"seat": r["seat"], "entrant": r["name"], "code": r["fault"], "detail": details.get(r["seat"], "")}
              for r in seats if r["fault"]]
    shown_seats = range(len(names)) if seat is None else [seat]
    if json_out:
        out_json({
            "game_id": game_id,
            "start": store.replay_start(row),
            "choices": json.loads(row["choices"]),
            "forfeits": told.forfeits,
            "seats": names,
            "log": told.lines,
            "faults": faults,
            "stderr": {names[s]: bot_stderr[s] for s in shown_seats if s in bot_stderr},
            "result": result.to_dict() if result else None,
            "matches_stored": ok,
        })
    else:
        head = (f"game {game_id} ({row['rule_set']}): " + ", ".join(f"seat {i} {n}" for i, n in enumerate(names))
                + f"; seed {row['seed']}" + (f"; as seen by {names[seat]}" if seat is not None else ""))
        tail = []
        if result is not None:
            tail.append(narrate.result_line(narrate.Table(row["rule_set"], tuple(names)), list(result.winners),
                                            result.reason, list(result.points)))
        tail += [f"fault: {f['entrant']} {f['code']}" + (f": {f['detail']}" if f["detail"] else "") for f in faults]
        if stderr:
            written = [s for s in shown_seats if bot_stderr.get(s, "").strip()]
            if not written:
                tail.append("stderr: no bot wrote to stderr in this game")
            for s in written:
                tail.append(f"stderr of {names[s]}:")
                tail += [f"  | {line}" for line in bot_stderr[s].rstrip("\n").splitlines()]
        if step:
            walk([[head] + told.steps[0], *told.steps[1:], tail])
        else:
            for line in [head, *told.lines, *tail]:
                typer.echo(line)
    if not ok:
        raise CheckFailed("the replay does not match the stored result")


def walk(pages: list[list[str]]) -> None:
    """Show one page at a time: enter for the next, ``b`` for the one before, ``q`` to quit."""
    i = 0
    while True:
        typer.echo(f"-- step {i} of {len(pages) - 1} --")
        for line in pages[i]:
            typer.echo(line)
        if i == len(pages) - 1:
            typer.echo("-- end of the game --")
        typer.echo("[enter] next, b back, q quit: ", nl=False)
        answer = sys.stdin.readline()
        if not answer or answer.strip().lower() == "q":
            typer.echo("")
            return
        if answer.strip().lower() == "b":
            i = max(0, i - 1)
        elif i < len(pages) - 1:
            i += 1
        else:
            return

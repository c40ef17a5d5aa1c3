"""Helpers shared by several test files: building stored events by hand, what a database holds
after a run, and the processes a run leaves (read from /proc). Test files import them from
here (``from helpers import ...``), never from each other."""

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tourney.bots.entrants import EntrantSpec, Limits, SubprocessEntrant
from tourney.results import store
from tourney.results.standings import find_event

ROOT = Path(__file__).resolve().parent.parent
FAULT_BOT = str(ROOT / "tests" / "bots" / "fault_bot.py")
RANDOM_BOT = str(ROOT / "examples" / "bots" / "random_bot.py")
#: quick limits for bots that answer at once (a fault shows within a second)
FAST = Limits(startup_timeout=2.0, decision_timeout=0.5, grace=0.3)

#: the two built-in entrants most test configs seat, as TOML
GREEDY_AND_RANDOM = """
[[entrants]]
name = "greedy"
builtin = "greedy"

[[entrants]]
name = "random"
builtin = "random"
"""


# --- stored events built by hand ---------------------------------------------------------------

def build_event(db, name, fmt, entrants, series, rule_set="crazier-eights", legs=None):
    """series: list of (kind, [names in seat order], [games], result) where a game is
    {"winners": [seats], "points": [...], "placements": [...], "faults": {seat: code}} and result is
    None (pending) or ("win", winner_name) / ("draw", None). ``legs``: per series, the wins each
    seat is stored with when its last game ends it (a match of legs stores legs won, not deals)."""
    specs = [{"name": n, "builtin": "random"} for n in entrants]
    schedule = [{"idx": i, "round": 0, "kind": kind, "seed": i, "games_target": max(1, len(games)),
                 "entrants": table} for i, (kind, table, games, _) in enumerate(series)]
    event = {"name": name, "format": fmt, "rule_set": rule_set, "seed": 1, "players": len(series[0][1]),
             "games": 1}
    event_id = store.create_event(db, event, specs, schedule, {"name": name}, "test")
    ids = {r["name"]: r["id"] for r in db["entrants"].rows}
    for k, (s, (kind, table, games, result)) in enumerate(zip(store.series_rows(db, event_id), series)):
        wins = dict.fromkeys(table, 0)
        points = dict.fromkeys(table, 0)
        for idx, g in enumerate(games):
            for seat in g["winners"]:
                wins[table[seat]] += 1
            for seat, p in enumerate(g["points"]):
                points[table[seat]] += p
            payload = {
                "idx": idx, "rule_set": rule_set, "options": {}, "seed": idx, "players": len(table),
                "first_player": 0, "turn_order": list(range(len(table))), "teams": None,
                "winners": g["winners"], "reason": "test", "detail": "", "decisions": 1, "seconds": 0.0,
                "choices": [], "log": [], "stderr": {}, "faults": {},
                "seats": [{"seat": seat, "entrant_id": ids[n], "points": g["points"][seat],
                           "placement": g["placements"][seat], "eliminated": 0,
                           "fault": g.get("faults", {}).get(seat)} for seat, n in enumerate(table)],
            }
            sr = None
            if result is not None and idx == len(games) - 1:
                outcome, winner = result
                if kind == "league":
                    key = {n: points[n] for n in table}
                else:
                    key = {n: -wins[n] for n in table}
                placement = {n: 1 + sum(1 for o in key.values() if o < key[n]) for n in table}
                if outcome == "draw" and kind == "match":
                    placement = dict.fromkeys(table, 1)
                sr = {"outcome": outcome, "winner_id": ids[winner] if winner else None,
                      "games_played": len(games),
                      "entrants": {ids[n]: {"wins": legs[k][seat] if legs else wins[n], "points": points[n],
                                            "placement": placement[n]} for seat, n in enumerate(table)}}
            store.record_game(db, event_id, s["id"], payload, sr)
    return find_event(db, name)


def written_today(db, write):
    """``write()``'s rows, written with today's store API into a file migrated only up to an older
    step: the column today's writer keeps beside them (``events.series_count``, m020) is there
    while they are written, then gone, as in the file that older tourney left."""
    db.execute("ALTER TABLE events ADD COLUMN series_count INTEGER NOT NULL DEFAULT 0")
    out = write()
    db.execute("ALTER TABLE events DROP COLUMN series_count")
    return out


def g(winners, points, placements, faults=None):
    return {"winners": winners, "points": points, "placements": placements, "faults": faults or {}}



# --- what a database holds after a run ----------------------------------------------------------

def count_games(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("select count(*) from games").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:  # tables not created yet
        return 0


def terminate_while_playing(argv: list[str], env: dict, db: Path, games: int, group: bool, folder: Path,
                            stdout=subprocess.DEVNULL) -> tuple[int, int, str]:
    """Start a command that plays (in a session of its own, as a service manager starts it), wait
    until ``games`` games are stored, then send SIGTERM to it alone or to its whole process group
    (``group``: the workers get it too). Returns its pid, exit status and stderr."""
    with open(folder / "err", "w") as errors:
        proc = subprocess.Popen(argv, env=env, stdout=stdout, stderr=errors, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while count_games(db) < games:  # playing, tables in play
                assert proc.poll() is None and time.monotonic() < deadline, (folder / "err").read_text()
                time.sleep(0.05)
            (os.killpg if group else os.kill)(proc.pid, signal.SIGTERM)
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return proc.pid, code, (folder / "err").read_text()


def snapshot(db: Path) -> dict:
    """Everything that must not depend on interruptions: per (series, game) the game row,
    seats and replay; per series its result. Ids and times are left out."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    games = {}
    for g in con.execute(
            "select g.*, s.idx as sidx from games g join series s on s.id = g.series_id"):
        seats = [
            (r["seat"], r["name"], r["first"], r["winner"], r["points"], r["placement"],
             r["eliminated"], r["fault"])
            for r in con.execute(
                "select st.*, e.name from seats st join entrants e on e.id = st.entrant_id "
                "where game_id = ? order by seat", [g["id"]])
        ]
        rep = con.execute("select * from replays where game_id = ?", [g["id"]]).fetchone()
        key = (g["sidx"], g["idx"])
        assert key not in games, f"game {key} stored twice"
        games[key] = (g["seed"], g["first_player"], g["turn_order"], g["winners"], g["reason"],
                      tuple(seats), rep["choices_z"], rep["seed"], rep["options_id"])
    series = {}
    for s in con.execute("select * from series"):
        rows = tuple(
            (r["name"], r["seat"], r["wins"], r["points"], r["placement"])
            for r in con.execute(
                "select se.*, e.name from series_entrants se join entrants e "
                "on e.id = se.entrant_id where series_id = ? order by seat", [s["id"]])
        )
        series[s["idx"]] = (s["status"], s["outcome"], s["games_played"], rows)
    status = con.execute("select status from events").fetchone()[0]
    con.close()
    return {"games": games, "series": series, "status": status}



# --- processes ----------------------------------------------------------------------------------

def processes() -> Iterator[tuple[int, str, int, int]]:
    """Every process now: ``(pid, state, parent pid, process group)``, from /proc."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            yield int(entry), fields[0], int(fields[1]), int(fields[2])


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (for example a run's worker processes)."""
    return [p for p, _, ppid, _ in processes() if ppid == pid]


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie counts as ended)."""
    return all(p != pid or state == "Z" for p, state, _, _ in processes())


def leftovers(pgids):
    """Processes still in any of the process groups ``pgids``, and zombie children of ours."""
    return [(p, state, ppid, pgrp) for p, state, ppid, pgrp in processes()
            if pgrp in pgids or (ppid == os.getpid() and state == "Z")]


def reap_adopted(wait: float = 0.0) -> None:
    """Reap the zombies that fell to this test process: once it has started a bot it is a
    subreaper, so the orphans of a referee that ended in a child process (its keeper, the bots
    that keeper killed) become ours. ``wait``: keep reaping that long, while keepers finish."""
    end = time.monotonic() + wait
    while True:
        for pid, state, ppid, _ in processes():
            if ppid == os.getpid() and state == "Z":
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
        if time.monotonic() >= end:
            return
        time.sleep(0.05)


def all_pids(*entrants):
    """The process ids of every subprocess entrant among ``entrants``."""
    return {pid for e in entrants if isinstance(e, SubprocessEntrant) for pid in e.pids}


def processes_with(marker: str, also: str = "sleep", zombies: bool = True) -> list[int]:
    """The processes whose command line holds ``marker`` and ``also`` (by default the ``sleep``
    processes a hostile bot leaves); ``zombies=False`` leaves out the ended ones not yet reaped."""
    found = []
    for pid, state, _, _ in processes():
        if state == "Z" and not zombies:
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and also.encode() in cmdline:
            found.append(pid)
    return found


def random_spec(limits=FAST):
    """The example random bot as a subprocess entrant."""
    return EntrantSpec("random_bot", command=("{python}", RANDOM_BOT), limits=limits)


def start_serve(db, *options: str) -> tuple[subprocess.Popen, str]:
    """``tourney serve`` of ``db`` on a free port of 127.0.0.1: the process and its base URL."""
    proc = subprocess.Popen([sys.executable, "-m", "tourney", "serve", "--db", str(db), "--port", "0", *options],
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent)
    line = proc.stderr.readline()  # "serving ... at http://127.0.0.1:PORT/ ..."; "" if it died
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not match:
        stop_serve(proc)
        raise AssertionError(f"tourney serve did not start: {line!r}")
    return proc, match[0].rstrip("/")


def stop_serve(proc: subprocess.Popen) -> None:
    """Stop a server started by :func:`start_serve` (killed if it does not stop in 10 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def sign_in(page, url: str, code: str) -> None:
    """Open ``url`` (a league's or a ladder's page) and sign in there with an entry ``code``."""
    page.goto(url)
    page.fill("#code", code)
    page.click("#code-form button")
    page.wait_for_selector("#signed-in")


def assert_reused_plays_as_fresh(spec: EntrantSpec) -> None:
    """A bot that says ``reuse`` plays a game, then, in the same process and in the other seat,
    a second one; a fresh process given the second game and the same bot seed answers exactly
    as the reused one did (protocol 1.2: the bot reseeds from each ``game_start``)."""
    from tourney.bots.entrants import open_entrant
    from tourney.bots.protocol import REUSE
    from tourney.bots.referee import play_game

    greedy = EntrantSpec("g", builtin="greedy")
    with open_entrant(spec, 1) as warm, open_entrant(greedy, 2) as g:
        play_game([warm, g], seed=21, bot_seeds=[3, 0])
        again = play_game([g, warm], seed=22, bot_seeds=[0, 44])
        assert REUSE in warm.features and len(warm.pids) == 1
    with open_entrant(spec, 8) as fresh, open_entrant(greedy, 2) as g:
        first = play_game([g, fresh], seed=22, bot_seeds=[0, 44])
    assert again.faults == {} and again.choices == first.choices

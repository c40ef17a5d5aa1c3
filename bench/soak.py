"""Benchmark: a ladder soaked as an organiser runs it for weeks, compressed into minutes.

One ladder (tables of two, ``--keep-logs 20``, decisions limited to 0.5 s) with honest and
hostile versions: two built-in yardsticks, three honest Python bots (the example random bot),
one that writes 64 KB to stderr every game (it plays well otherwise, so it is never disabled:
what its stderr costs is the keep-logs policy's to bound), one that crashes from its third game,
one that stops answering from its third game, and one that never says hello (refused by its check).
``tourney ladder run`` plays it (``-j 2``), ``tourney serve`` serves it, and this script's own
client asks for the ladder's page, its JSON, the front page and the ladder's event page over
loopback, five requests a second at most. During the run:

* at 25% of it the runner is killed with ``kill -9`` and started again;
* at 35%, 55% and 75% new versions are submitted from the command line (each honest author's
  next version, which retires the last one, and a new crasher), as an organiser's authors would.

Sampled every two seconds: the runner's and the server's resident memory and open files. Windows:
"first" is 30% to 45% of the run (after the restart), "last" is 85% to 100%.

The last line::

    games=<int> rss_growth_mb=<float> server_rss_growth_mb=<float> fd_growth=<int> left_play_procs=<int>
    kb_per_game=<float> p99_ms_first=<float> p99_ms_last=<float> lost=<int> doubled=<int>

(one line): ``rss_growth_mb`` the runner's median RSS in the last window less the first,
``server_rss_growth_mb`` the same for ``serve``, ``fd_growth`` the open files of both together,
``left_play_procs`` the bot processes still running at the end whose version had left play
(retired or disabled), ``kb_per_game`` the database's size after the run (WAL checkpointed) per
stored game, ``p99_ms_*`` the 99th percentile of the ladder page and JSON requests in each window,
``lost`` games counted by the writer's totals but missing, plus tables marked finished without
their game, ``doubled`` tables with more than one game.

Usage: python bench/soak.py [--minutes 30] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
BOT = (ROOT / "examples" / "bots" / "random_bot.py").read_text()
GAME_START = '            if "seed" in message:'
REQUEST = '        if kind == "request":'
assert GAME_START in BOT and REQUEST in BOT


def variant(kind: str) -> str:
    """The example random bot, made hostile in one way (or left honest)."""
    if kind == "honest":
        return BOT
    if kind == "spammer":  # 64 KB of stderr every game
        return BOT.replace(GAME_START, '            sys.stderr.write("noise " * 10923)\n'
                                       '            sys.stderr.flush()\n' + GAME_START, 1)
    if kind == "crasher":  # dies at its third game
        return BOT.replace(GAME_START, '            GAMES.append(1)\n            if len(GAMES) >= 3:\n'
                                       '                sys.exit(3)\n' + GAME_START, 1).replace(
            "def main():", "GAMES = []\n\n\ndef main():", 1)
    if kind == "sleeper":  # stops answering at its third game
        return BOT.replace(GAME_START, '            GAMES.append(1)\n' + GAME_START, 1).replace(
            REQUEST, '        if kind == "request" and len(GAMES) >= 3:\n            time.sleep(3)\n' + REQUEST, 1
        ).replace("def main():", "import time\n\nGAMES = []\n\n\ndef main():", 1)
    if kind == "mute":  # never says hello
        return "import sys\nprint('hello there', flush=True)\nsys.stdin.read()\n"
    raise ValueError(kind)


class Soak:
    def __init__(self, folder: Path, minutes: float):
        self.folder = folder
        self.db = folder / "soak.db"
        self.minutes = minutes
        self.env = {**os.environ, "TOURNEY_DB": str(self.db), "PYTHONPATH": str(ROOT)}
        self.scripts: dict[str, str] = {}  # version's entrant name -> its script's unique name
        self.samples: list[tuple[float, float, float, int]] = []  # (t, runner MB, server MB, fds)
        self.wal_mb = 0.0  # the largest the write-ahead log was seen
        self.requests: list[tuple[float, float, str]] = []  # (t, ms, url)
        self.stop = threading.Event()
        self.runner: subprocess.Popen | None = None
        self.start = 0.0

    def tourney(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run([PYTHON, "-m", "tourney", *args], env=self.env, cwd=self.folder,
                              capture_output=True, text=True, timeout=300)
        if check and done.returncode not in (0, 3):
            raise SystemExit(f"tourney {' '.join(args)}: {done.stderr}")
        return done

    def submit(self, author: str, kind: str) -> None:
        number = sum(1 for n in self.scripts if n.startswith(f"soak/{author}/")) + 1
        script = f"soak_{author}_v{number}.py"  # a name that finds its processes
        bot = self.folder / "bots" / f"{author}-v{number}"
        bot.mkdir(parents=True)
        (bot / script).write_text(variant(kind))
        self.scripts[f"soak/{author}/v{number}"] = script
        self.tourney("ladder", "submit", "soak", author, "--path", str(bot), "--", "{python}", script)

    def start_runner(self) -> None:
        log = open(self.folder / "runner.log", "a")  # noqa: SIM115 (the runner's, closed with it)
        self.runner = subprocess.Popen([PYTHON, "-m", "tourney", "ladder", "run", "soak", "-q", "-j", "2"],
                                       env=self.env, cwd=self.folder, stdout=log, stderr=log,
                                       start_new_session=True)

    def elapsed(self) -> float:
        return (time.monotonic() - self.start) / (self.minutes * 60)

    # the watchers

    def sample(self, server: psutil.Process) -> None:
        """Every two seconds: the runner's and the server's resident memory and their open files.
        A process that cannot be read (the runner between its kill and its restart) gives no
        sample rather than a zero, which would read as memory given back."""
        while not self.stop.wait(2.0):
            try:
                assert self.runner is not None
                runner = psutil.Process(self.runner.pid)
                if runner.status() == psutil.STATUS_ZOMBIE:
                    continue
                sample = (self.elapsed(), runner.memory_info().rss / 2**20, server.memory_info().rss / 2**20,
                          runner.num_fds() + server.num_fds())
            except psutil.Error:
                continue
            self.samples.append(sample)
            wal = self.db.with_name(self.db.name + "-wal")
            try:
                self.wal_mb = max(self.wal_mb, wal.stat().st_size / 2**20)
            except OSError:
                pass

    def check_runner(self) -> None:
        """Stop the soak, loudly, if the runner ended by itself: a service that dies is no soak."""
        assert self.runner is not None
        if self.runner.poll() is not None:
            tail = (self.folder / "runner.log").read_text(errors="replace").splitlines()[-15:]
            raise SystemExit(f"the runner ended by itself (exit {self.runner.returncode}) at "
                             f"{self.elapsed():.0%} of the soak; the end of its log:\n" + "\n".join(tail))

    def client(self, base: str, ladder_id: int, event_id: int) -> None:
        urls = [f"{base}/ladder/{ladder_id}", f"{base}/ladder/{ladder_id}.json", f"{base}/",
                f"{base}/event/{event_id}"]
        k = 0
        limit = int(self.minutes * 60 * 5) + 10  # bounded: five a second at most
        while not self.stop.is_set() and k < limit:
            url = urls[k % len(urls)]
            k += 1
            began = time.perf_counter()
            try:
                with urllib.request.urlopen(url, timeout=30) as r:
                    r.read()
            except OSError:
                continue
            ms = (time.perf_counter() - began) * 1000
            self.requests.append((self.elapsed(), ms, url))
            self.stop.wait(max(0.0, 0.2 - ms / 1000))

    # the run

    def run(self) -> str:
        self.tourney("ladder", "new", "soak", "--seed", "7", "--keep-logs", "20", "--decision-timeout", "0.5",
                     "--startup-timeout", "5")
        self.tourney("ladder", "submit", "soak", "house", "--builtin", "greedy")
        self.tourney("ladder", "submit", "soak", "bo", "--builtin", "random")
        for author, kind in (("ann", "honest"), ("cy", "honest"), ("di", "honest"), ("sp", "spammer"),
                             ("cr", "crasher"), ("sl", "sleeper"), ("mu", "mute")):
            self.submit(author, kind)
        con = sqlite3.connect(self.db)
        ladder_id, event_id = con.execute("select id, event_id from ladders where name = 'soak'").fetchone()
        con.close()
        serve = subprocess.Popen([PYTHON, "-m", "tourney", "serve", "--port", "0"], env=self.env, cwd=self.folder,
                                 stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        match = re.search(r"http://127\.0\.0\.1:\d+", serve.stderr.readline())
        assert match, "tourney serve did not start"
        threading.Thread(target=lambda: serve.stderr.read(), daemon=True).start()  # keep its pipe drained
        self.start = time.monotonic()
        self.start_runner()
        try:
            return self._soak(serve, match[0], ladder_id, event_id)
        finally:  # whatever happened, nothing this started is left running
            self.stop.set()
            for proc in (self.runner, serve):
                if proc is not None and proc.poll() is None:
                    proc.send_signal(signal.SIGINT)
                    try:
                        proc.wait(timeout=60)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()

    def _soak(self, serve: subprocess.Popen, base: str, ladder_id: int, event_id: int) -> str:
        watchers = [threading.Thread(target=self.sample, args=(psutil.Process(serve.pid),), daemon=True),
                    threading.Thread(target=self.client, args=(base, ladder_id, event_id), daemon=True)]
        for w in watchers:
            w.start()
        plan = [(0.25, "kill"), (0.35, "submit ann"), (0.35, "submit cr2"), (0.55, "submit cy"),
                (0.75, "submit di")]
        for at, what in plan:
            while self.elapsed() < at:
                self.check_runner()
                time.sleep(0.5)
            if what == "kill":
                assert self.runner is not None
                os.kill(self.runner.pid, signal.SIGKILL)
                self.runner.wait()
                print(f"{time.strftime('%H:%M:%S')} killed the runner (kill -9); started again", file=sys.stderr)
                self.start_runner()
            else:
                author = what.split()[1]
                self.submit(author, "crasher" if author == "cr2" else "honest")
                print(f"{time.strftime('%H:%M:%S')} submitted {author}", file=sys.stderr)
        while self.elapsed() < 1.0:
            self.check_runner()
            time.sleep(0.5)
        left = self.left_play_procs()
        self.stop.set()
        for w in watchers:
            w.join(timeout=35)
        assert self.runner is not None
        self.runner.send_signal(signal.SIGINT)  # Ctrl-C: the tables in play finish or are abandoned
        try:
            self.runner.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.runner.kill()
            self.runner.wait()
        serve.send_signal(signal.SIGINT)
        serve.wait(timeout=30)
        return self.figures(left)

    def left_play_procs(self) -> int:
        """Bot processes of versions that are retired or disabled, still running (in the runner's tree)."""
        con = sqlite3.connect(self.db)
        gone = {n for (n,) in con.execute(
            "select e.name from ladder_versions v join entrants e on e.id = v.entrant_id "
            "where v.status in ('retired', 'disabled')")}
        con.close()
        scripts = {self.scripts[n] for n in gone if n in self.scripts}
        assert self.runner is not None
        count = 0
        for proc in psutil.Process(self.runner.pid).children(recursive=True):
            try:
                if any(any(s in arg for s in scripts) for arg in proc.cmdline()):
                    count += 1
            except psutil.Error:
                continue
        return count

    def figures(self, left: int) -> str:
        con = sqlite3.connect(self.db)
        con.execute("pragma wal_checkpoint(truncate)")
        event_id, players = con.execute("select event_id, players from ladders where name = 'soak'").fetchone()
        games = con.execute("select count(*) from games where event_id = ?", [event_id]).fetchone()[0]
        counted = con.execute("select coalesce(sum(games), 0) from entrant_totals where event_id = ?",
                              [event_id]).fetchone()[0] // players
        empty = con.execute("select count(*) from series s where s.event_id = ? and s.status = 'finished' and not "
                            "exists (select 1 from games g where g.series_id = s.id)", [event_id]).fetchone()[0]
        doubled = con.execute("select count(*) from (select series_id from games where event_id = ? "
                              "group by series_id having count(*) > 1)", [event_id]).fetchone()[0]
        statuses = con.execute("select status, count(*) from ladder_versions group by status").fetchall()
        con.close()
        size = self.db.stat().st_size

        def window(lo: float, hi: float, column: int) -> float:
            values = [s[column] for s in self.samples if lo <= s[0] <= hi]
            return statistics.median(values) if values else float("nan")  # no sample is no zero

        def p99(lo: float, hi: float) -> float:
            times = sorted(ms for t, ms, url in self.requests if lo <= t <= hi and "/ladder/" in url)
            return times[min(len(times) - 1, int(0.99 * len(times)))] if times else float("nan")

        first, last = (0.30, 0.45), (0.85, 1.0)
        fd_first = [s[3] for s in self.samples if first[0] <= s[0] <= first[1]]
        fd_last = [s[3] for s in self.samples if last[0] <= s[0] <= last[1]]
        print(f"versions: {dict(statuses)}; {len(self.requests)} page requests; database {size / 1e6:.1f} MB; "
              f"runner RSS first/last {window(*first, 1):.1f}/{window(*last, 1):.1f} MB, server "
              f"{window(*first, 2):.1f}/{window(*last, 2):.1f} MB; write-ahead log at most {self.wal_mb:.1f} MB",
              file=sys.stderr)
        return (f"games={games} rss_growth_mb={window(*last, 1) - window(*first, 1):.1f} "
                f"server_rss_growth_mb={window(*last, 2) - window(*first, 2):.1f} "
                f"fd_growth={(max(fd_last) if fd_last else 0) - (min(fd_first) if fd_first else 0)} "
                f"left_play_procs={left} kb_per_game={size / 1024 / max(games, 1):.2f} "
                f"p99_ms_first={p99(*first):.1f} p99_ms_last={p99(*last):.1f} "
                f"lost={abs(counted - games) + empty} doubled={doubled}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=30.0, help="How long the soak runs.")
    ap.add_argument("--keep", help="Run in this folder and keep it (default: a temporary one).")
    args = ap.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="tourney-soak-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(Soak(folder, args.minutes).run())


if __name__ == "__main__":
    main()

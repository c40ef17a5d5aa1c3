"""Events: single game, best-of-N match, points league, round robin, gauntlet, Swiss, knockout;
scheduling and running.

One module per job:

- :mod:`~tourney.events.schedule`: the series an event starts with, as its format
  (:mod:`tourney.formats`, one class per format; Swiss pairings and the knockout bracket in
  :mod:`tourney.formats.rounds`) plans them;
- :mod:`~tourney.events.reasons`: why a game ended (:class:`~tourney.events.reasons.Reason`);
- :mod:`~tourney.events.series`: the rules of one series (:class:`SeriesState`), duplicate
  sets included;
- :mod:`~tourney.events.play`: playing a series with its entrants (:func:`run_series`);
- :mod:`~tourney.events.workers`: the worker processes of the local pool;
- :mod:`~tourney.events.runner`: creating or resuming an event and running it, the main process
  being the only writer (:class:`Runner`);
- :mod:`~tourney.events.summary`: what an event looks like afterwards, read from the database.

An event is a list of **series** (its schedule, :func:`~tourney.events.schedule.schedule`). A series is the unit
given to a worker: its entrants' processes live for the series, and the seating of game k
depends on game k-1. Only the main process writes the database: a worker sends every finished
game back (with the series' result when that game ended the series) and the main process
commits it in one transaction (:func:`tourney.results.store.record_game`).

Series rules (:class:`SeriesState`):

- **single**: one game; the first player is drawn from the series seed.
- **match** (best of N, N odd): the first to win N//2+1 games wins. A game without a winner counts
  for neither and another game is played; after ``max_games`` games without a decision the
  series is drawn. Game 1's first player is drawn from the series seed; after that the loser of
  the previous game goes first (with more than two players: the worst placed; several
  equally placed, or a game without a winner: drawn among them from the series seed).
- **league** (points): ``games`` games; every player scores the game's points (``Result.points``:
  one per card in hand, the winner zero, eliminated players as rulings.md item 13 / the rule
  set's ``eliminated_score`` option says); fewest total points ranks first. The player with
  the most points so far goes first in the next game; ties (and game 1, where all have 0) are
  broken with the series RNG.
- **legs**: where the rule set plays a game as a run of deals (crazy-eights to a target,
  super-crazy-eights' fifteen deals), a match counts such legs instead of single deals, a single
  game is one leg, and a league with ``games = 0`` is one leg (:class:`SeriesState`,
  docs/formats.md "Legs").

At a table of two entrants keep one seat for the whole series (seat = position in the series'
entrant list). At three or more a league's or match's order round the table changes game by game
and duplicate sets rotate it (:meth:`SeriesState.seating`, :mod:`tourney.seating`); each game
stores who sat where. Who plays first changes too, and each game stores ``first_player`` and its
``turn_order``.

**Resume.** Finished games are in the database. A series left unfinished is given to a worker
with its finished games; the worker opens its entrants (same seeds as before) and plays the
finished games again, unrecorded, so that bots that learn or keep an RNG across a series are in
the same state as in an uninterrupted run, then plays on. The stored games stay authoritative
(a re-played game that differs is reported as a warning).
"""

"""Club scorekeeping: leagues played with real cards, entered game by game.

A club league is a series of games between its entrants (club members). After each game every
player's points are entered: cards left in hand for ``crazier-eights``, card values for
``crazy-eights`` and ``super-crazy-eights`` (as the engine's ``card_points`` scores them); the
winner scores 0, lower totals are better.

Everything lives in the tourney database, in the ``club_`` tables (built with the rest of the
schema, :mod:`tourney.results.schema`):

``club_leagues``   one row per league (rule set, seed, target score, elimination scoring)
``club_members``   the league's entrants, in roster order, with the starting points of late joiners
                   and the game after which a member withdrew
``club_games``     one row per game entered: who actually went first (as entered, or derived), its
                   round (one game, or the tables' games of one round of a club night) and table
``club_absences``  who was absent from which round (charged by the league's ``absence`` rule)
``club_nights``    the table plan of each round of a club night
``club_results``   one row per player per *version* of a game's result; nothing is updated in place
``club_versions``  one row per version of a game's result: who entered it, when, and why; a
                   ``void`` version has no results
``club_log``       the league's history: a closed set of actions (see :data:`tourney.club.league.ACTIONS`)

The view ``club_results_current`` keeps only the newest version of each game, and the view
``club_standings`` is *the* definition of a league's standings (totals, wins, ranks): the CLI,
the reports and datasette all read it. Rules (scoring, validation, tie-breaks, joining) are
documented in docs/standings.md.

One module per job: :mod:`~tourney.club.entries` reads what the secretary types (card values,
``NAME=VALUE`` pairs), :mod:`~tourney.club.scoring` checks and scores one game and charges an
absence, :mod:`~tourney.club.night` plans a club night's tables, :mod:`~tourney.club.ledger` is
the league's arithmetic over plain data (totals, who goes first, the end, what a change does),
:mod:`~tourney.club.tables` reads and writes the ``club_*`` tables (the package's only SQL),
:mod:`~tourney.club.league` is the service every command and form calls (checks, then writes),
:mod:`~tourney.club.roster` its roster and rule changes, and :mod:`~tourney.club.codes` the
league codes that let phones write (``tourney serve --club-entry``).

``club_codes`` (a salted scrypt hash per code, never the code), ``club_requests`` (the web's
idempotency keys) and ``club_pending`` (web entries waiting for a second person) come from
``m012_club_codes``; ``club_log.source`` says where each change came from. ``club_codes.lookup``
(``m014_club_code_lookup``) is a code's public part, by which a typed code is found; codes made
before it have none.
"""

from tourney.errors import UserError

#: rule sets a club league can use, and what an entered number means for them
RULE_SETS = ("crazier-eights", "crazy-eights", "super-crazy-eights")


class ClubError(UserError):
    """A user mistake: an unknown league or player, a bad entry. The message is one clear line."""

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
``NAME=VALUE`` pairs), :mod:`~tourney.club.scoring` scores one game and an absence,
:mod:`~tourney.club.night` plans a club night's tables, and :mod:`~tourney.club.league` is the
league model over the database.
"""

from tourney.errors import UserError

#: rule sets a club league can use, and what an entered number means for them
RULE_SETS = ("crazier-eights", "crazy-eights", "super-crazy-eights")


class ClubError(UserError):
    """A user mistake: an unknown league or player, a bad entry. The message is one clear line."""

"""The ladder: an open competition where authors submit bots and new versions of them, games
run all the time, and the leaderboard comes from maximum-likelihood ratings over every game
(docs/ladder.md).

``service``      making a ladder, submitting, running, settling, standings (what the CLI calls)
``vetting``      checking a new version (``tourney check``), disabling one that goes bad
``ratings``      the ladder's fit, refitted with a warm start, and its leaderboard
``matchmaking``  which tables to play next: the information they give about the unsettled order
"""

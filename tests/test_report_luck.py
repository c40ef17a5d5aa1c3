"""The standings table shows luck-adjusted columns beside the raw ones only where the event has
them switched on (docs/evaluation.md, "Luck-adjusted scores")."""

from tourney.report import LUCK_ELO, LUCK_SCORE, table_rows


def standings(luck_on: bool) -> dict:
    row = {"rank": 1, "rank_range": "1", "entrant": "a", "series": {"won": 0, "drawn": 0, "lost": 0, "legs_won": 0},
           "games": 4, "wins": 3, "draws": 0, "losses": 1, "points": 5, "average": 1.25, "faults": {}, "fault_count": 0,
           "elo": {"elo": 190.85, "elo_pm": 300.0, "elo_low": None, "elo_high": None, "score": 0.75},
           "rating": {"mu": 26.0, "sigma": 7.0, "ordinal": 5.0},
           "luck_adjusted": {"games": 4, "score": 0.625, "se": 0.125, "elo": 88.74, "elo_low": -90.0,
                             "elo_high": 300.0, "elo_pm": 195.0}}
    return {"kind": "event", "ranking": "games", "standings": [row], "elo_reference": "field",
            "luck": {"on": luck_on, "why": "asked for", "model": "m"}}


def test_luck_columns_appear_only_when_switched_on():
    headers, rows = table_rows(standings(True))
    assert headers.index(LUCK_SCORE) == headers.index(LUCK_ELO) - 1
    assert rows[0][headers.index(LUCK_SCORE)] == "0.625 ± 0.125"
    assert rows[0][headers.index(LUCK_ELO)] == "+89 ± 195"
    headers, rows = table_rows(standings(False))
    assert LUCK_SCORE not in headers and LUCK_ELO not in headers

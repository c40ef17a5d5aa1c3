"""Shared test set-up.

Hypothesis runs a modest profile by default (CI); ``TOURNEY_HYPOTHESIS=deep`` runs the same
properties far longer.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("TOURNEY_HYPOTHESIS", "ci"))

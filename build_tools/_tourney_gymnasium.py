"""Make ``gymnasium.make("tourney/Eights-v0")`` work with nothing of tourney imported first.

Gymnasium 1.0 removed the plugin entry points (group ``gymnasium.envs``) through which older
versions registered an installed package's ids when Gymnasium was imported. This module does
that one job instead: tourney's build installs it at the top of site-packages with a one-line
``tourney-gymnasium.pth`` (``import _tourney_gymnasium``), so Python imports it at start-up.

At start-up it only puts a finder in front of ``sys.meta_path``; that finder answers no import
itself. When ``gymnasium.envs`` (where Gymnasium builds its registry) has been loaded, it
registers tourney's id with the environment's entry point as a string (nothing of tourney is
imported until the environment is made) and takes itself out. Nothing here may ever break an
interpreter: every step gives up silently. Standard library only, and no import of tourney.
"""

from __future__ import annotations

import sys

ENV_ID = "tourney/Eights-v0"
ENTRY_POINT = "tourney.rl.single:SingleSeatEnv"
WATCHED = "gymnasium.envs"


def register(registration) -> None:
    """Register :data:`ENV_ID` in Gymnasium's ``registration`` module, unless it is there."""
    if ENV_ID not in registration.registry:
        registration.register(id=ENV_ID, entry_point=ENTRY_POINT)


class GymnasiumWatcher:
    """A meta path finder that finds nothing itself: it wraps the loading of :data:`WATCHED`."""

    def find_spec(self, name, path=None, target=None):
        if name != WATCHED:
            return None
        self.remove()
        try:
            from importlib.util import find_spec

            spec = find_spec(name)  # the real spec, from the finders behind us
        except Exception:
            return None
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module):
            run(module)
            try:
                register(sys.modules["gymnasium.envs.registration"])
            except Exception:  # a Gymnasium that works otherwise: leave it be
                pass

        try:
            loader.exec_module = exec_module  # this spec's own loader object only
        except Exception:
            pass
        return spec

    def remove(self) -> None:
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass


def install() -> None:
    """Watch for Gymnasium's registry (or register at once, if it is loaded already)."""
    loaded = sys.modules.get("gymnasium.envs.registration")
    if loaded is not None:
        try:
            register(loaded)
        except Exception:
            pass
        return
    if not any(isinstance(f, GymnasiumWatcher) for f in sys.meta_path):
        sys.meta_path.insert(0, GymnasiumWatcher())


try:
    install()
except Exception:  # pragma: no cover - never stop an interpreter from starting
    pass

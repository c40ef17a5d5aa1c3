"""Register ``tourney/Eights-v0`` with Gymnasium when Gymnasium's registry loads, without
importing Gymnasium (or anything of tourney) before.

Gymnasium 1.0 removed the plugin entry points (group ``gymnasium.envs``) through which older
versions registered an installed package's ids when Gymnasium was imported. This module does
that one job instead, two ways:

- tourney's build copies it to the top of site-packages as ``_tourney_gymnasium.py``, with a
  one-line ``tourney-gymnasium.pth`` (``import _tourney_gymnasium``) that Python runs at start-up:
  so ``gymnasium.make("tourney/Eights-v0")`` works in a fresh interpreter once tourney is
  installed (build_tools/tourney_build.py);
- ``import tourney.rl`` calls :func:`install` too (a checkout on PYTHONPATH has no ``.pth``).

:func:`install` only puts a finder in front of ``sys.meta_path``; that finder answers no import
itself. When ``gymnasium.envs`` (where Gymnasium builds its registry) has been loaded, it
registers the id with the environment's entry point as a string (nothing of tourney is imported
until the environment is made) and takes itself out. Nothing here may ever break an
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
            from importlib.util import find_spec  # only once Gymnasium loads: start-up imports nothing

            spec = find_spec(name)  # the real spec, from the finders behind us
        except Exception:
            return None
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if loader is None or run is None:
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
    # one watcher, whichever copy put it there (the .pth's or the package's)
    if not any(type(f).__name__ == "GymnasiumWatcher" for f in sys.meta_path):
        sys.meta_path.insert(0, GymnasiumWatcher())


if __name__ == "_tourney_gymnasium":  # the copy the .pth imports at start-up
    try:
        install()
    except Exception:  # pragma: no cover - never stop an interpreter from starting
        pass

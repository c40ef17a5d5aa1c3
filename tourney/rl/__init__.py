"""Learning to play: the eights family as PettingZoo and Gymnasium environments (docs/tutorial.md, part 2).

- :mod:`tourney.rl.encoding`: a seat's view and a decision's options as fixed-shape numbers
  (standard library, numpy if present); protocol bots can use it without the environments;
- :mod:`tourney.rl.observe`: the same observations, read from the engine's state and updated in
  place seat by seat, as the environments build them at every step;
- :mod:`tourney.rl.aec`: :class:`~tourney.rl.aec.EightsEnv`, the multi-agent AEC environment;
- :mod:`tourney.rl.single`: :class:`~tourney.rl.single.SingleSeatEnv`, one learned seat against
  built-in or protocol bots, as a Gymnasium environment.

The environments need the ``rl`` extra: ``pip install -e '.[rl]'``.

The Gymnasium id :data:`ENV_ID` is registered three ways. An installed tourney registers it when
Gymnasium loads, with nothing of tourney imported (``build_tools/_tourney_gymnasium.py``, put in
site-packages by the build with a one-line ``.pth``: Gymnasium 1.0 dropped the plugin entry points
older versions read at import). Importing this package registers it too (a checkout on
PYTHONPATH), and ``gymnasium.make("tourney.rl:tourney/Eights-v0", ...)`` imports this package.
"""

from tourney.rl.encoding import Encoding, EncodingError

__all__ = ["ENV_ID", "Encoding", "EncodingError"]

#: the Gymnasium id of :class:`tourney.rl.single.SingleSeatEnv`
ENV_ID = "tourney/Eights-v0"


def _register() -> None:
    """Register :data:`ENV_ID` with Gymnasium, if it is installed (the environment itself loads
    only when made, so this costs Gymnasium's import and nothing more)."""
    try:
        import gymnasium  # optional (the rl extra), and only to register the id: never at module level
    except ImportError:  # the rl extra is not installed: the encoding still works
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="tourney.rl.single:SingleSeatEnv")


_register()

"""Learning to play: the eights family as PettingZoo and Gymnasium environments (docs/tutorial.md, part 2).

- :mod:`tourney.rl.encoding`: a seat's view and a decision's options as fixed-shape numbers
  (standard library, numpy if present); protocol bots can use it without the environments;
- :mod:`tourney.rl.observe`: the same observations, read from the engine's state and updated in
  place seat by seat, as the environments build them at every step;
- :mod:`tourney.rl.aec`: :class:`~tourney.rl.aec.EightsEnv`, the multi-agent AEC environment;
- :mod:`tourney.rl.single`: :class:`~tourney.rl.single.SingleSeatEnv`, one learned seat against
  built-in or protocol bots, as a Gymnasium environment.

The environments need the ``rl`` extra: ``pip install -e '.[rl]'``.

The Gymnasium id :data:`ENV_ID` (``tourney/Eights-v0``) is registered when Gymnasium's registry
loads (:mod:`tourney.rl.gymnasium_id`): with nothing imported first once tourney is installed
(its build adds a start-up ``.pth``: Gymnasium 1.0 dropped the plugin entry points), and after
``import tourney.rl`` in a checkout. ``gymnasium.make("tourney.rl:tourney/Eights-v0", ...)``
imports this package itself.
"""

from tourney.rl import gymnasium_id
from tourney.rl.encoding import Encoding, EncodingError

__all__ = ["ENV_ID", "Encoding", "EncodingError"]

#: the Gymnasium id of :class:`tourney.rl.single.SingleSeatEnv`
ENV_ID = gymnasium_id.ENV_ID

gymnasium_id.install()  # cheap: Gymnasium is not imported here

"""Learning to play: the eights family as PettingZoo and Gymnasium environments (docs/tutorial.md, part 2).

- :mod:`tourney.rl.encoding`: a seat's view and a decision's options as fixed-shape numbers
  (standard library, numpy if present); protocol bots can use it without the environments;
- :mod:`tourney.rl.observe`: the same observations, read from the engine's state and updated in
  place seat by seat, as the environments build them at every step;
- :mod:`tourney.rl.aec`: :class:`~tourney.rl.aec.EightsEnv`, the multi-agent AEC environment;
- :mod:`tourney.rl.single`: :class:`~tourney.rl.single.SingleSeatEnv`, one learned seat against
  built-in or protocol bots, as a Gymnasium environment.

The environments need the ``rl`` extra: ``pip install -e '.[rl]'``.
"""

from tourney.rl.encoding import Encoding, EncodingError

__all__ = ["Encoding", "EncodingError"]

"""A wrapper that starts a bot 1.5 s late, as a bot that loads a network before its hello would.

Usage: python bench/slow_start.py SECONDS BOT [ARGS...]

It sleeps SECONDS, then becomes ``python BOT ARGS`` (exec: the same process, the same pipes), so
the referee's hello waits that long for its answer. bench/verdict.py's heavy arm uses it.
"""

import os
import sys
import time

time.sleep(float(sys.argv[1]))
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])

"""A protocol 1.0 bot that chooses with numpy (its random generator and a little linear algebra at
every request, so that numpy's threads and memory are in use): tests/test_seal.py runs it under
the sandbox's system-call filter."""

import json
import sys

import numpy as np


def main():
    rng = np.random.default_rng(0)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            rng = np.random.default_rng(msg.get("seed", 0))
            print(json.dumps({"type": "hello", "protocol": "tourney-bot", "version": "1.0",
                              "name": "numpy_bot"}), flush=True)
        elif msg["type"] == "request":
            weights = np.linalg.solve(np.eye(4) * 2.0, np.ones(4))  # touches BLAS
            options = msg["options"]
            pick = int(rng.integers(len(options))) if weights.sum() > 0 else 0
            print(json.dumps({"type": "answer", "id": msg["id"], "option": options[pick]["id"]}), flush=True)
        elif msg["type"] == "goodbye":
            return


if __name__ == "__main__":
    main()

"""Standard RL environments over the engine: PettingZoo AEC, Gymnasium single-agent, Gymnasium vector.

Importing this package registers ``bgzero/Backgammon-v0`` with Gymnasium (``make_vec`` builds the
vector environment, :mod:`bgzero.env.vector`). It needs the
``env`` extra (gymnasium, pettingzoo).
"""

import gymnasium

if "bgzero/Backgammon-v0" not in gymnasium.registry:
    gymnasium.register("bgzero/Backgammon-v0", entry_point="bgzero.env.single:BackgammonEnv",
                       vector_entry_point="bgzero.env.vector:BackgammonVectorEnv")

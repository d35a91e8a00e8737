"""Standard RL environments over the engine: PettingZoo AEC, Gymnasium single-agent.

Importing this package registers ``bgzero/Backgammon-v0`` with Gymnasium. It needs the
``env`` extra (gymnasium, pettingzoo).
"""

import gymnasium

if "bgzero/Backgammon-v0" not in gymnasium.registry:
    gymnasium.register("bgzero/Backgammon-v0", entry_point="bgzero.env.single:BackgammonEnv")

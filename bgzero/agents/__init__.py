"""Agents: whatever picks a move (and a cube action) for a batch of positions.

Each agent answers through :class:`bgzero.agents.base.Agent`; :mod:`bgzero.agents.specs`
names them on the command line.
"""

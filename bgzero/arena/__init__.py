"""The arena: agents measured against each other in games.

:mod:`~bgzero.arena.duplicate` plays duplicate-dice money games, :mod:`~bgzero.arena.reports`
keeps their results as rows of a report, and :mod:`~bgzero.arena.league` rates many agents
from such games. An agent's single decisions are judged in :mod:`bgzero.judge`; matches with
the cube live in :mod:`bgzero.match`, their analysis in :mod:`bgzero.analysis`.
"""

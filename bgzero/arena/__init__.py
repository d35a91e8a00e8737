"""The arena: agents measured against each other and against references.

:mod:`~bgzero.arena.duplicate` plays duplicate-dice money games and pools their reports;
:mod:`~bgzero.arena.league` rates many agents from such games; :mod:`~bgzero.arena.move_errors`
and :mod:`~bgzero.arena.rollout_judge` score an agent's plays against gnubg's and a rollout's
choices. Matches with the cube live in :mod:`bgzero.match`, their analysis in :mod:`bgzero.analysis`.
"""

"""Checker play judged decision by decision: the move-error benchmark.

:mod:`~bgzero.judge.move_errors` holds the positions gnubg judges at n ply and the loss
arithmetic, :mod:`~bgzero.judge.rollout_judge` the neutral judge of variance-reduced rollouts,
and :mod:`~bgzero.judge.errors_bench` the tables of ``bgzero-bench errors``. The gate of
``bgzero-iterate`` reads them too.
"""

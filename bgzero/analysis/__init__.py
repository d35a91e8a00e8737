"""Analysis: what a position's plays and cube actions are worth, and how well a match was played.

:mod:`~bgzero.analysis.position` ranks the plays and cube actions of one position, read from a
Position ID, an XGID or a board and a Match ID (``bgzero-hint``, ``bgzero-rollout``);
:mod:`~bgzero.analysis.match` replays every decision of a whole
:class:`~bgzero.match.record.MatchRecord` against it and marks the errors (``bgzero-analyze``).
"""

"""Matches: what a match is, how two agents play one, and the files it is saved in.

:mod:`~bgzero.match.record` holds the records (:class:`~bgzero.match.record.Action`,
:class:`~bgzero.match.record.MatchGame`, :class:`~bgzero.match.record.MatchRecord`);
:mod:`~bgzero.match.game` is a game in progress, pushed action by action under the rules,
and the walk through a recorded one; :mod:`~bgzero.match.runner` plays cubeful matches and
money sessions between two agents and sums them up; gnubg's ``.mat``
(:mod:`~bgzero.match.mat`) and SGF (:mod:`~bgzero.match.sgf`) files are written from records
and read back through a game, and :mod:`~bgzero.match.files` picks between the two by a
path's suffix.
"""

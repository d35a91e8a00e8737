"""Who plays a rollout, and who judges it: a policy for the moves and the cube, a 0-ply evaluator.

The *player* is any agent: it chooses every move and every cube action in the rollout.
The *judge* is a 0-ply evaluator of positions before the roll: it values each roll for
variance reduction and the positions where a rollout is truncated. A checkpoint judges
its own rollouts; gnubg judges its own through ``gnubg-nn``; pubeval and the random
player have no evaluation of their own and need a judge only for variance reduction or
truncation. Any judge keeps a rollout unbiased (the luck it measures has mean zero);
the closer it is to the player, the more variance it removes.

A checkpoint at 0 ply plays exactly the judge's choice, so a rollout with variance
reduction reuses the move it already found for the roll thrown; with a pruning net in the
checkpoint (and ``prune``) that choice is pruned: the pruning net ranks every play and the
contact net scores the best five (:func:`bgzero.agents.search.choose_replies`). gnubg prunes
only inside its n-ply evaluations (the best ten); its 0-ply rollouts score every play with
the full net, as ``prune=false`` does here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgzero.agents.base import Agent
from bgzero.agents.gnubg import GnubgNet
from bgzero.agents.search import PRUNE_KEEP, best_replies, choose_replies
from bgzero.agents.specs import make_agent, parse_spec
from bgzero.engine.movegen import MoveBatch
from bgzero.engine.segments import segment_argmax
from bgzero.errors import ConfigError
from bgzero.value.evaluator import Evaluator, checker_play
from bgzero.value.probs import equity


class NetJudge:
    """A checkpoint's 0-ply evaluator: its mover (the role split) chooses the plays where it has
    one, as the checkpoint at 0 ply does in games, and its pruning net ranks them first where it has one."""

    def __init__(self, evaluator: Evaluator, prune: bool = True):
        self.evaluator = evaluator
        self.chooser = checker_play(evaluator, 0)
        self.prune = prune and self.chooser.pruner is not None

    def probs(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) probabilities for the side on roll of each board, before it rolls."""
        return self.evaluator.probs(boards)

    def best(self, moves: MoveBatch) -> tuple[np.ndarray, np.ndarray]:
        """Each segment's 0-ply choice (global index) and its probabilities (opponent on roll)."""
        return choose_replies(self.chooser, moves, PRUNE_KEEP, self.prune)

    def choose(self, moves: MoveBatch) -> np.ndarray:
        """Each segment's 0-ply choice alone (forced moves are not scored), for distinct
        positions and rolls: past a rollout's first plies their candidates rarely repeat one
        another (in the first two, the 21 rolls of a root do, and a few evaluations repeat)."""
        return best_replies(self.chooser, moves, PRUNE_KEEP, self.prune, repeats=False)


class GnubgJudge(GnubgNet):
    """GNU Backgammon's 0-ply net (``gnubg-nn``), one position at a time."""

    def __init__(self):
        super().__init__("a gnubg judge")

    def best(self, moves: MoveBatch) -> tuple[np.ndarray, np.ndarray]:
        probs = self.probs(moves.results)
        best = segment_argmax(-equity(probs), moves.offsets)
        return best, probs[best]

    def choose(self, moves: MoveBatch) -> np.ndarray:
        return self.best(moves)[0]


@dataclass
class RolloutPlayer:
    """The agent that plays, the judge that values rolls and truncated games, and whether
    the agent's move is simply the judge's choice (``greedy``: then it is not asked)."""

    agent: Agent
    judge: NetJudge | GnubgJudge | None
    greedy: bool = False

    def choose(self, boards: np.ndarray, dice: np.ndarray, moves: MoveBatch) -> np.ndarray:
        """Global indices of the moves played."""
        if self.greedy:
            assert self.judge is not None  # a greedy player plays its judge's choice
            return self.judge.choose(moves)
        return self.agent.choose(boards, dice, moves)


def make_judge(spec: str, prune: bool = True, database: bool = True) -> NetJudge | GnubgJudge:
    """The judge a spec names: ``checkpoint:PATH`` (0 ply) or ``gnubg``."""
    name, path, ply = parse_spec(spec)
    if ply:
        raise ConfigError(f"judge {spec!r}: a judge evaluates at 0 ply; drop '@{ply}'")
    if name == "gnubg":
        return GnubgJudge()
    if name != "checkpoint" or not path:
        raise ConfigError(f"judge {spec!r}: use checkpoint:PATH or gnubg")
    return NetJudge(_loaded(path, database), prune)


def _loaded(path: str, database: bool) -> Evaluator:
    """A checkpoint's evaluator, reading the bear-off databases or not (``database``), its mover too."""
    from bgzero.value.checkpoint import load_evaluator
    evaluator = load_evaluator(path)
    for nets in (evaluator, evaluator.mover):
        if nets is not None:
            nets.exact_bearoff = database
    return evaluator


def make_player(spec: str, judge: str | None = None, prune: bool = True, database: bool = True) -> RolloutPlayer:
    """The rollout player an agent spec names, with its own judge unless ``judge`` names one.

    ``database=False`` keeps the bear-off databases out of a checkpoint's evaluations (it then
    values bear-offs with its nets), to test rollouts against the databases; gnubg always
    reads its own.
    """
    name, path, ply = parse_spec(spec)
    agent: Agent
    own: NetJudge | GnubgJudge | None = None
    if name == "checkpoint" and path:
        from bgzero.agents.neural import NeuralAgent
        evaluator = _loaded(path, database)
        agent = NeuralAgent(evaluator, ply=ply, name=f"{path}@{ply}")
        own = NetJudge(evaluator, prune)
    else:
        agent = make_agent(spec)
        if name == "gnubg" and judge is None:
            own = GnubgJudge()
    if judge is not None:
        chosen = make_judge(judge, prune, database)
        return RolloutPlayer(agent, chosen, greedy=False)
    return RolloutPlayer(agent, own, greedy=own is not None and name == "checkpoint" and ply == 0)

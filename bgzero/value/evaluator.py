"""Batched position evaluation, routed by position class.

* finished games: scored exactly from the result;
* bear-offs (both sides entirely in their home boards): exact, from the one-sided
  bear-off database;
* races (no contact left), when a race network is given: the race network;
* everything else: the contact network.

An evaluator may also carry a pruning net (``pruner``, :mod:`bgzero.value.pruning`): a small net
distilled from the contact net that search uses to rank replies cheaply before it
evaluates the best few with the contact net; and a *mover*, another evaluator whose nets
choose checker plays at 0 ply (:func:`checker_play`). A student distilled from search
chooses plays better than the nets it started from, while its values drift in absolute
level, which the cube and the searches compare across positions: the role split keeps
each net where it is best (checkpoints/strong.md).

The nets are torch :class:`~bgzero.value.net.ValueNet` s, which training updates in place, or
:class:`~bgzero.value.frozen.FrozenNet` s, a loaded checkpoint's fixed weights evaluated
without torch (several times faster at these batch sizes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bgzero.engine.bearoff.probs import bearoff_probs
from bgzero.engine.classify import BEAROFF, CONTACT, OVER, RACE, classify
from bgzero.engine.game import game_results
from bgzero.value.encode import get_encoder
from bgzero.value.frozen import FrozenNet
from bgzero.value.probs import result_probs
from bgzero.value.pruning import PruningNet

if TYPE_CHECKING:
    from torch import nn


class Evaluator:
    """Five probabilities for the side on roll of each board, before it rolls."""

    def __init__(self, net: nn.Module | FrozenNet, encoder: str, race_net: nn.Module | FrozenNet | None = None,
                 race_encoder: str = "race", exact_bearoff: bool = True, pruner: PruningNet | None = None,
                 mover: Evaluator | None = None):
        self.net = _inference(net)
        self.encoder = _checked_encoder(net, encoder)
        self.race_net = _inference(race_net) if race_net is not None else None
        self.race_encoder = _checked_encoder(race_net, race_encoder) if race_net is not None else None
        self.exact_bearoff = exact_bearoff
        self.pruner = pruner
        self.mover = mover

    def route(self, boards: np.ndarray) -> np.ndarray:
        """Which evaluator answers for each board (a class from :func:`classify`)."""
        race = RACE if self.race_net is not None else CONTACT
        return classify(boards, race=race, bearoff=BEAROFF if self.exact_bearoff else race)

    def probs(self, boards: np.ndarray, classes: np.ndarray | None = None) -> np.ndarray:
        """(N, 5) float32 probabilities for (N, 2, 25) boards; ``classes``: their :meth:`route`, if known."""
        cls = self.route(boards) if classes is None else classes
        if (cls == CONTACT).all():
            return self.contact_probs(boards)
        out = np.empty((len(boards), 5), np.float32)
        for which, fill in ((CONTACT, self.contact_probs), (RACE, self._race), (BEAROFF, bearoff_probs),
                            (OVER, lambda b: result_probs(game_results(b)))):
            mask = cls == which
            if mask.any():
                out[mask] = fill(boards[mask])
        return out

    def contact_probs(self, boards: np.ndarray) -> np.ndarray:
        """The contact network's (N, 5) answer, whatever the boards' class."""
        return _answer(self.net, self.encoder, boards)

    def _race(self, boards: np.ndarray) -> np.ndarray:
        return _answer(self.race_net, self.race_encoder, boards)


def checker_play(evaluator, ply: int):
    """The evaluator that scores checker plays at ``ply``: its mover at 0 ply where it has one, else itself.

    Deeper searches, position values and cube decisions keep ``evaluator``'s own nets, whose
    absolute level they compare across positions."""
    mover = getattr(evaluator, "mover", None)  # gnubg's net and test doubles have none
    return mover if ply == 0 and mover is not None else evaluator


def _inference(net):
    """A frozen net as it is; a torch net in evaluation mode (the evaluator's nets are never in training mode)."""
    return net if isinstance(net, FrozenNet) else net.eval()


def _answer(net, encoder, boards: np.ndarray) -> np.ndarray:
    """A net's (N, 5) probabilities: a frozen net encodes for itself; a torch net is fed the encoder's inputs."""
    if isinstance(net, FrozenNet):
        return net.probs(boards)
    import torch  # only torch nets need it, and whoever built one has imported it

    with torch.inference_mode():
        return net(torch.from_numpy(encoder(boards))).numpy()


def _checked_encoder(net, name: str):
    encoder = get_encoder(name)
    if encoder.num_inputs != net.config.num_inputs:
        raise ValueError(f"encoder {name!r} gives {encoder.num_inputs} inputs, the net expects {net.config.num_inputs}")
    return encoder

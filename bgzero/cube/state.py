"""The doubling cube and the match score (docs/rules.md sections 7-8): state and the rules that change it.

State is immutable: :class:`CubeState` and :class:`MatchState` are frozen dataclasses and
every rule is a pure function returning a new state, so a match runner can keep a history
and replay it. Players are gnubg's 0 and 1; a cube owner of ``-1`` means centred. The
conversion to and from gnubg's Match ID lives here too, since it is the same state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bgzero.engine.ids import MAX_CUBE, MAX_MATCH_LENGTH, GameState, MatchInfo
from bgzero.errors import BgzeroError, integer

CENTRED = -1

# How the side on roll sees the cube.
CENTRED_CUBE = "centred"
OWNED_CUBE = "owned"
UNAVAILABLE_CUBE = "unavailable"


class MatchStateError(BgzeroError, ValueError):
    """A cube or match state that cannot occur under the rules (or outside gnubg's limits)."""


class IllegalCubeActionError(BgzeroError, ValueError):
    """A cube action or award the rules forbid in the given state."""


# --------------------------------------------------------------------------- state


def _cube_value(value) -> int:
    value = integer("cube value", value, MatchStateError)
    if value < 1 or value > MAX_CUBE or value & (value - 1):
        raise MatchStateError(f"cube value {value} is not a power of two from 1 to {MAX_CUBE}")
    return value


def _check_player(player) -> None:
    if player not in (0, 1) or isinstance(player, float):
        raise MatchStateError(f"player must be 0 or 1, got {player!r}")


@dataclass(frozen=True)
class CubeState:
    """The cube's value (1-64) and owner (``-1`` centred, else the player who may redouble).

    A centred cube is always at 1 and a doubled one always owned (rules 24 and 26), so the
    two fields are checked against each other.
    """

    value: int = 1
    owner: int = CENTRED

    def __post_init__(self) -> None:
        value, owner = _cube_value(self.value), integer("cube owner", self.owner, MatchStateError)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "owner", owner)
        if owner not in (CENTRED, 0, 1):
            raise MatchStateError(f"cube owner {owner} is not -1 (centred), 0 or 1")
        if (value == 1) != (owner == CENTRED):
            raise MatchStateError(f"a cube at {value} cannot be {'centred' if owner == CENTRED else 'owned'}")


@dataclass(frozen=True)
class MatchState:
    """Score, options and cube before a turn of a match (``match_length`` N) or money game (0).

    ``crawford`` marks the current game as the Crawford game (rule 30); later games with a
    side at N-1 are post-Crawford (:attr:`post_crawford`). ``jacoby`` and ``beavers`` are
    the money options of rule 28; they are kept in a match (a Match ID carries the Jacoby
    bit) but act only in money play. In money play ``score`` is a running total.
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    cube: CubeState = CubeState()

    def __post_init__(self) -> None:
        n = integer("match_length", self.match_length, MatchStateError)
        object.__setattr__(self, "match_length", n)
        try:
            s0, s1 = self.score
        except (TypeError, ValueError):
            raise MatchStateError(f"score must be a pair of integers, got {self.score!r}") from None
        score = (integer("score", s0, MatchStateError), integer("score", s1, MatchStateError))
        object.__setattr__(self, "score", score)
        for name in ("crawford", "jacoby", "beavers"):
            flag = getattr(self, name)
            if flag not in (0, 1):  # True and False too
                raise MatchStateError(f"{name} must be a bool, got {flag!r}")
            object.__setattr__(self, name, bool(flag))
        if not isinstance(self.cube, CubeState):
            raise MatchStateError(f"cube must be a CubeState, got {self.cube!r}")
        if not 0 <= n <= MAX_MATCH_LENGTH:
            raise MatchStateError(f"match_length {n} is not 0 (money) to {MAX_MATCH_LENGTH}")
        if min(score) < 0:
            raise MatchStateError(f"score {score} is negative")
        if n == 0:
            if self.crawford:
                raise MatchStateError("crawford is set in a money game")
            return
        if max(score) > n or min(score) >= n:
            raise MatchStateError(f"score {score} is impossible in a {n}-point match")
        if self.crawford and not (max(score) == n - 1 > min(score)):
            raise MatchStateError(f"score {score} cannot be a Crawford game: exactly one side must be at {n - 1}")

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    @property
    def over(self) -> bool:
        """Whether a side has reached the match length (never in money play)."""
        return not self.is_money and max(self.score) >= self.match_length

    @property
    def post_crawford(self) -> bool:
        """A game after the Crawford game: a side is at N-1, the match goes on, and not ``crawford``."""
        return not self.is_money and not self.over and not self.crawford and max(self.score) == self.match_length - 1

    @property
    def jacoby_active(self) -> bool:
        """Gammons count single now: money play, the Jacoby option, and the cube still centred."""
        return self.is_money and self.jacoby and self.cube.owner == CENTRED

    def away(self, player: int) -> int:
        """Points ``player`` still needs to win the match."""
        _check_player(player)
        if self.is_money:
            raise MatchStateError("a money game has no match length, so no side is 'away'")
        return self.match_length - self.score[player]


# --------------------------------------------------------------------------- rules


def may_double(state: MatchState, player: int) -> bool:
    """Whether ``player`` (the side on roll, before rolling: rule 25) may double now.

    Rules 24-25 (centred or own cube), 27 (cap 64), 30 (not in the Crawford game) and 31
    (not when winning this game at the current cube already wins the match, which also
    covers the leader post-Crawford). The same test as gnubg's ``GetDPEq``.
    """
    _check_player(player)
    if state.over or state.cube.owner not in (CENTRED, player) or 2 * state.cube.value > MAX_CUBE:
        return False
    if state.is_money:
        return True
    return not state.crawford and state.score[player] + state.cube.value < state.match_length


def may_beaver(state: MatchState, doubler: int) -> bool:
    """Whether the opponent of ``doubler`` may answer a legal double with a beaver (rule 28).

    Money play with the beavers option only, and the redoubled cube must stay within 64.
    """
    return state.is_money and state.beavers and may_double(state, doubler) and 4 * state.cube.value <= MAX_CUBE


def after_take(state: MatchState, doubler: int) -> MatchState:
    """The state after ``doubler`` doubles and the opponent takes: twice the value, taker owns (rule 26)."""
    if not may_double(state, doubler):
        raise IllegalCubeActionError(f"player {doubler} may not double in {state}")
    return replace(state, cube=CubeState(2 * state.cube.value, 1 - doubler))


def after_beaver(state: MatchState, doubler: int) -> MatchState:
    """The state after a double and a beaver: four times the value, the beaverer keeps the cube."""
    if not may_beaver(state, doubler):
        raise IllegalCubeActionError(f"player {1 - doubler} may not beaver a double by {doubler} in {state}")
    return replace(state, cube=CubeState(4 * state.cube.value, 1 - doubler))


def drop_points(state: MatchState) -> int:
    """Points a pass concedes: the cube value *before* the double, i.e. ``state``'s (rule 26)."""
    return state.cube.value


def points_for(kind: int, cube_value: int, *, jacoby: bool = False) -> int:
    """Points for a game won as ``kind`` (1 single, 2 gammon, 3 backgammon) at ``cube_value``.

    ``jacoby`` is :attr:`MatchState.jacoby_active`: then gammons and backgammons count as
    single games (rule 28).
    """
    kind = integer("result kind", kind, MatchStateError)
    if kind not in (1, 2, 3):
        raise MatchStateError(f"result kind {kind} is not 1 (single), 2 (gammon) or 3 (backgammon)")
    return (1 if jacoby else kind) * _cube_value(cube_value)


def award(state: MatchState, winner: int, points: int) -> MatchState:
    """The state for the next game after ``winner`` scores ``points`` (rules 26, 29, 30, 32).

    The cube returns to the centre. In a match the score stops at N (rule 29), and the next
    game is the Crawford game exactly when this award brings a side to N-1 for the first
    time in the match; games after it are post-Crawford.
    """
    _check_player(winner)
    points = integer("points", points, MatchStateError)
    if points < 1:
        raise IllegalCubeActionError(f"points must be positive, got {points}")
    if state.over:
        raise IllegalCubeActionError(f"the match is over at {state.score}; no more points can be awarded")
    score = list(state.score)
    score[winner] += points
    crawford = False
    n = state.match_length
    if n:
        score[winner] = min(score[winner], n)
        crawford = max(state.score) < n - 1 and score[winner] == n - 1
    return replace(state, score=(score[0], score[1]), crawford=crawford, cube=CubeState())


def match_winner(state: MatchState) -> int | None:
    """The player who has reached the match length, else ``None`` (always ``None`` for money)."""
    if not state.over:
        return None
    return 0 if state.score[0] >= state.match_length else 1


# --------------------------------------------------------------------------- Match IDs


def to_match_info(
    state: MatchState,
    *,
    on_roll: int,
    turn: int | None = None,
    dice: tuple[int, int] = (0, 0),
    double_offered: bool = False,
    resignation: int = 0,
    game_state: int | None = None,
) -> MatchInfo:
    """The :class:`~bgzero.engine.ids.MatchInfo` (hence Match ID) of ``state`` with ``on_roll`` to play.

    ``turn`` (who must act) defaults to ``on_roll``; ``game_state`` to playing, or over once
    a side has won. Beavers are not part of a Match ID.
    """
    _check_player(on_roll)
    return MatchInfo(
        cube_value=state.cube.value,
        cube_owner=state.cube.owner,
        dice_owner=on_roll,
        crawford=state.crawford,
        game_state=(GameState.OVER if state.over else GameState.PLAYING) if game_state is None else game_state,
        turn=on_roll if turn is None else turn,
        double_offered=double_offered,
        resignation=resignation,
        dice=dice,
        match_length=state.match_length,
        score=state.score,
        jacoby=state.jacoby,
    )


def from_match_info(info: MatchInfo, *, beavers: bool = False) -> MatchState:
    """The :class:`MatchState` recorded in ``info`` (who is on roll is ``info.dice_owner``)."""
    return MatchState(
        match_length=info.match_length,
        score=info.score,
        crawford=info.crawford,
        jacoby=info.jacoby,
        beavers=beavers,
        cube=CubeState(info.cube_value, info.cube_owner),
    )


def cube_access(state: MatchState, player: int) -> str:
    """``"centred"``, ``"owned"`` or ``"unavailable"``: the cube as ``player`` sees it."""
    _check_player(player)
    owner = state.cube.owner
    return CENTRED_CUBE if owner == CENTRED else OWNED_CUBE if owner == player else UNAVAILABLE_CUBE

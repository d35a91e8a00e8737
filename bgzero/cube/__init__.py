"""The doubling cube and the score: state and rules, money and match equities, decisions.

Layered inside: :mod:`~bgzero.cube.state` (cube and match state, the rules, Match IDs),
:mod:`~bgzero.cube.actions` (the action names and the choice among three equities),
:mod:`~bgzero.cube.money` (Janowski's money equities), :mod:`~bgzero.cube.met` (the match
equity table and match equities), :mod:`~bgzero.cube.decision` (money or match) and
:mod:`~bgzero.cube.cubeful` (values for a cubeful search). This package re-exports their
public names, so callers write ``from bgzero.cube import ...``.
"""

from bgzero.cube.actions import (
    BEAVER,
    DOUBLE_BEAVER,
    DOUBLE_PASS,
    DOUBLE_TAKE,
    NO_DOUBLE,
    PASS,
    TAKE,
    TOO_GOOD,
    CubeDecision,
    CubeEquities,
    decide,
)
from bgzero.cube.cubeful import (
    cube_values,
    cubeful_value,
    no_double_value,
    normalised,
    other_side,
    pass_value,
    proper_value,
)
from bgzero.cube.decision import cube_decision, take_decision
from bgzero.cube.met import (
    MET_LENGTH,
    MetError,
    cash_points,
    emg_to_mwc,
    match_cube_decision,
    match_cube_equities,
    match_cubeful_mwc,
    match_equity,
    mwc,
    mwc_to_emg,
    pass_mwc,
    take_point,
)
from bgzero.cube.money import (
    CLASSIC,
    GNUBG_SHALLOW,
    CubeEfficiency,
    InvalidProbabilitiesError,
    average_win_loss,
    check_cube_life,
    check_probs,
    cube_efficiency,
    cubeful_equity,
    dead_equity,
    gnubg_efficiency,
    janowski_points,
    live_equity,
    money_cube_decision,
    money_cube_equities,
    money_equity,
    money_take_point,
)
from bgzero.cube.state import (
    CENTRED,
    CENTRED_CUBE,
    OWNED_CUBE,
    UNAVAILABLE_CUBE,
    CubeState,
    IllegalCubeActionError,
    MatchState,
    MatchStateError,
    after_beaver,
    after_take,
    award,
    cube_access,
    drop_points,
    from_match_info,
    match_winner,
    may_beaver,
    may_double,
    points_for,
    to_match_info,
)

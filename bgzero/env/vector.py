"""N backgammon games in lockstep as one Gymnasium ``VectorEnv``: numpy arrays, one batched
:func:`generate` per ply, no Python loop over the games.

Two modes. With an ``opponent`` spec the learner is player 0 in every game and the opponent's
turns are played inside :meth:`step`, all games' at once (``random`` draws from each game's
own dice stream; any other spec is a batched :class:`~bgzero.agents.base.Agent`). With
``opponent=None`` (self-play) the action is always the side on roll's, ``infos["player"]``
says whose, and the reward is the mover's.

Each game has its own counter-based dice stream (splitmix64 of its seed and a counter), so
game ``i`` replays from ``seed + i`` (or ``seed[i]``) and the same actions, whatever the
other games do. ``autoreset_mode`` is Gymnasium's ``SAME_STEP`` (default: the step that ends a
game returns the next game's first observation, the last one in ``infos["final_obs"]``) or
``NEXT_STEP`` (the ending step returns the final observation, whose mask allows only action 0;
the next step's action is ignored and that game restarts).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit

from bgzero.agents.specs import make_agent, parse_spec
from bgzero.engine.board import START
from bgzero.engine.game import _results_kernel, game_results
from bgzero.engine.movegen import MoveBatch, generate
from bgzero.env import checker
from bgzero.env.table import PLAY_ACTIONS, check_options, illegal_penalty, observation_space
from bgzero.errors import ConfigError, IllegalMoveError, integer
from bgzero.value.encode import get_encoder

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _mix(x):
    """splitmix64's finaliser: a uniform 64-bit word from a counter."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _mix_all(xs):
    out = np.empty_like(xs)
    for i in range(xs.shape[0]):
        out[i] = _mix(xs[i])
    return out


@njit(cache=True)
def _draw(keys, counters, r):
    counters[r] += 1
    return _mix(keys[r] + np.uint64(counters[r]) * np.uint64(0x9E3779B97F4A7C15))


@njit(cache=True)
def _roll(keys, counters, rows, dice):
    """A turn's two dice for each game in ``rows`` from its own stream (bias below 1e-18)."""
    for r in rows:
        v = _draw(keys, counters, r) % np.uint64(36)
        dice[r, 0], dice[r, 1] = v // 6 + 1, v % 6 + 1


@njit(cache=True)
def _opening(keys, counters, rows, dice, player):
    """The opening roll: one of the 30 ordered pairs of different dice; the higher die's owner moves."""
    for r in rows:
        pair = np.int64(_draw(keys, counters, r) % np.uint64(30))
        first = pair // 5 + 1
        second = pair % 5 + 1
        if second >= first:
            second += 1
        dice[r, 0], dice[r, 1] = max(first, second), min(first, second)
        player[r] = 1 if second > first else 0


@njit(cache=True)
def _random_picks(keys, counters, rows, offsets, out):
    """A uniformly random result index for each game in ``rows`` (``offsets`` over ``rows``)."""
    for k in range(rows.shape[0]):
        n = offsets[k + 1] - offsets[k]
        out[k] = offsets[k] + np.int64(_draw(keys, counters, rows[k]) % np.uint64(n))


@njit(cache=True)
def _prefix_masks(offsets, done, out):
    """The play encoding's masks: row ``b`` allows actions ``0 .. count - 1``, ``count`` its number
    of legal plays (``offsets[b + 1] - offsets[b]``), or action 0 alone where ``done[b]``. Two
    memsets a row, and no (batch, 3060) temporaries."""
    for b in range(out.shape[0]):
        k = 1 if done[b] else offsets[b + 1] - offsets[b]
        out[b, :k] = 1
        out[b, k:] = 0


@njit(cache=True)
def _checker_obs(boards, left, need, only, done, mask, dice_left):
    """The checker encoding's masks (action 0 alone where ``done``) and each game's dice still to
    play, largest first."""
    checker.masks(boards, left, need, only, mask)
    for b in range(boards.shape[0]):
        if done[b]:
            mask[b, :] = 0
            mask[b, 0] = 1
        for j in range(4):  # insertion sort, descending
            d = left[b, j]
            k = j
            while k > 0 and dice_left[b, k - 1] < d:
                dice_left[b, k] = dice_left[b, k - 1]
                k -= 1
            dice_left[b, k] = d


_NO_RESULTS, _NO_OFFSETS, _NO_MASK = np.zeros((1, 2, 25), np.int8), np.zeros(2, np.int64), np.zeros((1, 1), np.int8)


@njit(cache=True)
def _move(actions, done, boards, player, dice, keys, counters, play, results, offsets, mask, left, need, only,
          money, penalty, raise_illegal, rewards, ended, illegal):
    """The learner's (or the side on roll's) actions in every game not ``done``, in one pass.

    An action outside the mask ends its game as the chooser's loss of ``penalty``; with
    ``raise_illegal`` the first such game's index is returned instead, before anything is played.
    A legal one is played: a whole play (``results[offsets[b] + a]``, sides swapped) or one checker
    step (:func:`bgzero.env.checker.step_row`; the sides swap when its turn is over). A game the play
    ends scores the mover's points (``money``) or 1; in the others the roll passes and the next
    turn's dice are drawn. Returns those games (the next side on roll, still to start its turn),
    -1 (or the offending game's index), and how many games had an illegal action and how many ended."""
    n = actions.shape[0]
    ok = np.zeros(n, np.bool_)
    for r in range(n):
        if done[r]:
            continue
        a = actions[r]
        if play:
            ok[r] = 0 <= a < offsets[r + 1] - offsets[r]
        else:
            ok[r] = 0 <= a < mask.shape[1] and mask[r, a] != 0
        if not ok[r] and raise_illegal:
            return np.zeros(0, np.int64), r, 0, 0
    going = np.empty(n, np.int64)
    g = bad = over = 0
    loss = np.zeros(1, np.int8)
    for r in range(n):
        if done[r]:
            continue
        if not ok[r]:
            illegal[r] = True
            ended[r] = True
            rewards[r] = -penalty
            bad += 1
            over += 1
            continue
        a = actions[r]
        if play:
            boards[r] = results[offsets[r] + a]
        else:
            checker.step_row(boards, left, need, only, r, a)
            if need[r] > 0:
                continue
            for c in range(25):  # the turn is over: the other side on roll
                boards[r, 0, c], boards[r, 1, c] = boards[r, 1, c], boards[r, 0, c]
        _results_kernel(boards[r:r + 1], 3, loss)  # a legal play never leaves both sides borne off
        if loss[0] != 0:
            rewards[r] = -loss[0] if money else 1
            ended[r] = True
            over += 1
            continue
        player[r] ^= 1
        v = _draw(keys, counters, r) % np.uint64(36)
        dice[r, 0], dice[r, 1] = v // 6 + 1, v % 6 + 1
        going[g] = r
        g += 1
    return going[:g], -1, bad, over


def _seed(value) -> int:
    seed = integer("seed", value, ConfigError)
    if not 0 <= seed < 2**63:
        raise ConfigError(f"seed must be in 0..2**63-1, got {value}")
    return seed


class BackgammonVectorEnv(VectorEnv):
    """``num_envs`` cubeless games; observations as the single environment's, batched."""

    def __init__(self, num_envs: int = 64, opponent: str | None = "random", encoder: str = "tesauro198",
                 reward: str = "money", action_encoding: str = "play", illegal: str = "lose",
                 autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP):
        check_options(reward, action_encoding, illegal)
        n = integer("num_envs", num_envs, ConfigError)
        if n < 1:
            raise ConfigError(f"num_envs must be at least 1, got {num_envs}")
        modes = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
        mode = next((m for m in modes if autoreset_mode in (m, m.value)), None)
        if mode is None:
            raise ConfigError(f"unknown autoreset_mode {autoreset_mode!r}; valid: {', '.join(m.value for m in modes)}")
        self.num_envs = n
        self.metadata = {"autoreset_mode": mode}
        self.encoder = get_encoder(encoder)
        self.reward, self.encoding, self.illegal = reward, action_encoding, illegal
        self.opponent = None if opponent is None else make_agent(opponent)
        self._native_random = opponent is not None and parse_spec(opponent)[0] == "random"
        self.single_observation_space = observation_space(encoder, action_encoding)
        self.single_action_space = spaces.Discrete(self.single_observation_space["action_mask"].shape[0])
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.boards = np.repeat(START[None], n, axis=0)
        self.player = np.zeros(n, np.int8)
        self.dice = np.zeros((n, 2), np.int8)
        self._keys = np.zeros(n, np.uint64)
        self._counters = np.zeros(n, np.uint64)
        self._left, self._need, self._only = np.zeros((n, 4), np.int8), np.zeros(n, np.int64), np.zeros(n, np.int8)
        self._done = np.zeros(n, bool)  # NEXT_STEP: ended last step, restarts on this one
        self._moves = None
        self._mask = None  # the checker encoding's masks (the play encoding's follow from _moves)

    # ------------------------------------------------------------------ seeding and restarts

    def reset(self, *, seed=None, options=None):
        n = self.num_envs
        if seed is None:
            seeds = np.random.SeedSequence().generate_state(n, np.uint64)
        elif np.ndim(seed) == 0:
            seeds = np.uint64(_seed(seed)) + np.arange(n, dtype=np.uint64)
        else:
            if len(seed) != n:
                raise ConfigError(f"reset got {len(seed)} seeds for {n} environments")
            seeds = np.array([_seed(s) for s in seed], np.uint64)
        with np.errstate(over="ignore"):  # the multiply wraps, as splitmix64's does
            self._keys = _mix_all(seeds.astype(np.uint64) * _GOLDEN)
        self._counters[:] = 0
        self._done[:] = False
        self._restart(np.arange(n))
        obs = self._observe()
        return obs, self._infos()

    def _restart(self, rows: np.ndarray) -> None:
        """New games in ``rows``: the opening roll, and the opponent's first turn if it won it."""
        self.boards[rows] = START
        _opening(self._keys, self._counters, rows, self.dice, self.player)
        self._begin(rows)

    def _begin(self, rows: np.ndarray) -> np.ndarray:
        """Play the opponent's turn in the ``rows`` where it is on roll, so the learner is on roll in
        all; the rows whose game the opponent ended (their boards left final). Starts the
        learner's checker turns."""
        ended = np.zeros(0, np.int64)
        if self.opponent is not None:
            turn = rows[self.player[rows] == 1]
            if turn.size:
                self.boards[turn] = self._opponent_results(turn)
                over = game_results(self.boards[turn]) != 0
                ended = turn[over]
                turn = turn[~over]
                self.player[turn] = 0
                _roll(self._keys, self._counters, turn, self.dice)
                rows = np.setdiff1d(rows, ended, assume_unique=True)
        if self.encoding == "checker":
            checker.start_turns(self.boards, self.dice, rows, self._left, self._need, self._only)
        return ended

    def _opponent_results(self, rows: np.ndarray) -> np.ndarray:
        moves = generate(self.boards[rows], self.dice[rows])
        if self._native_random:
            picks = np.empty(len(rows), np.int64)
            _random_picks(self._keys, self._counters, rows, moves.offsets, picks)
        else:
            picks = self.opponent.choose(self.boards[rows], self.dice[rows], moves)
        return moves.results[picks]

    # ------------------------------------------------------------------ stepping

    def step(self, actions):
        actions = np.asarray(actions, np.int64).reshape(-1)
        if actions.shape != (self.num_envs,):
            raise ConfigError(f"step wants {self.num_envs} actions, got {np.shape(actions)}")
        n = self.num_envs
        rewards = np.zeros(n, np.float32)
        ended = np.zeros(n, bool)
        illegal = np.zeros(n, bool)
        mover = self.player.copy()
        play = self.encoding == "play"
        going, bad, illegals, over = _move(actions, self._done, self.boards, self.player, self.dice, self._keys, self._counters,
                           play, self._moves.results if play else _NO_RESULTS,
                           self._moves.offsets if play else _NO_OFFSETS, _NO_MASK if play else self._mask,
                           self._left, self._need, self._only, self.reward == "money",
                           illegal_penalty(self.reward), self.illegal == "raise", rewards, ended, illegal)
        if bad >= 0:  # illegal="raise": nothing was played
            legal = list(range(self._moves.counts()[bad])) if play else np.flatnonzero(self._mask[bad]).tolist()
            raise IllegalMoveError(f"env {bad}: action {int(actions[bad])} is not legal there: "
                                   f"legal actions are {legal}")
        if going.size and self.opponent is not None:
            lost = self._begin(going)
            if lost.size:  # the opponent's reply ended the game: the learner's loss
                ended[lost] = True
                loss = -game_results(self.boards[lost])
                rewards[lost] = -(loss if self.reward == "money" else 1)
                over += lost.size
        elif going.size and not play:  # self-play: _begin's one job, the next side's checker turns
            checker.start_turns(self.boards, self.dice, going, self._left, self._need, self._only)
        infos = {}
        if self.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP:
            if over:
                final = np.flatnonzero(ended)
                infos["final_obs"] = self._final_obs(final)
                infos["_final_obs"] = ended.copy()
                self._restart(final)
        else:
            restarting = np.flatnonzero(self._done)  # the games that ended last step (_move skipped them)
            if restarting.size:
                self._restart(restarting)
            self._done = ended
        obs = self._observe()
        infos.update(self._infos())
        infos["mover"] = mover
        if illegals:
            infos["illegal_action"], infos["_illegal_action"] = illegal, illegal.copy()
        return obs, rewards, ended, np.zeros(n, bool), infos

    # ------------------------------------------------------------------ observations

    def _observe(self) -> dict:
        """Every game's observation from the side on roll, masks made for the next actions."""
        n = self.num_envs
        if self.encoding == "play":  # the env keeps no mask: step checks actions against the counts
            self._moves = generate(self.boards, self.dice)
            mask = np.empty((n, PLAY_ACTIONS), np.int8)
            _prefix_masks(self._moves.offsets, self._done, mask)
        else:
            self._mask = np.empty((n, checker.CHECKER_ACTIONS), np.int8)
            dice_left = np.empty((n, 4), np.int8)
            _checker_obs(self.boards, self._left, self._need, self._only, self._done, self._mask, dice_left)
            mask = self._mask.copy()
        features = np.empty((n, self.encoder.num_inputs), np.float32)
        self.encoder.fn(self.boards, features)  # the boards are always C-ordered int8
        obs = {"observation": features, "dice": self.dice.copy(), "action_mask": mask}
        if self.encoding == "checker":
            obs["dice_left"] = dice_left
        return obs

    def _final_obs(self, rows: np.ndarray) -> dict:
        """The ended games' last observations (nothing legal in them), zeros in the other rows."""
        space = self.observation_space
        obs = {k: np.zeros(space[k].shape, space[k].dtype) for k in space}
        obs["observation"][rows] = self.encoder(self.boards[rows])
        obs["dice"][rows] = self.dice[rows]
        return obs

    def _infos(self) -> dict:
        return {"player": self.player.copy()} if self.opponent is None else {}

    @property
    def moves(self) -> MoveBatch:
        """The play encoding's legal plays: game ``b``'s action ``i`` is ``moves.results[moves.offsets[b] + i]``;
        what an :class:`~bgzero.agents.base.Agent`'s ``choose(env.boards, env.dice, env.moves)`` takes."""
        if self.encoding != "play":
            raise ConfigError("moves needs action_encoding='play'")
        return self._moves

    def afterstates(self) -> tuple[np.ndarray, np.ndarray]:
        """Every game's legal plays' results and their offsets (play encoding): what value-based agents score."""
        if self.encoding != "play":
            raise ConfigError("afterstates() needs action_encoding='play'")
        return self._moves.results, self._moves.offsets

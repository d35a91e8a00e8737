"""The options of training, declared once (:mod:`bgzero.schema`): ``bgzero-train``'s (:class:`Train`)
and ``bgzero-iterate``'s (:class:`Iterate`).

They are the base config Hydra composes its groups onto (``configs/train.yaml``: ``experiment=``,
``net=``; ``configs/iterate.yaml``: ``recipe=``), and what :func:`bgzero.learn.train.train` and
:func:`bgzero.learn.iterate.iterate` check a config against, from the command line or from code.
A class's docstring is the head of its ``--help``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bgzero.config_check import (
    GAMES,
    PLY,
    SEED,
    WORKERS,
    agent_list,
    choice,
    device,
    duration,
    number,
    output_dir,
    plies,
    processes,
    run_name,
    subset,
    text,
    whole,
    widths,
)
from bgzero.schema import option, section


@dataclass
class Loop:
    games: int = option(20000, "self-play games to train for (counting resumed ones); a run stops at the first "
                        "chunk past this", GAMES)
    checkpoint_every: int = option(2000, "games between checkpoints (OUT_DIR/checkpoints/), named by the games done",
                                   whole(1))
    out_dir: str = option("runs/${name}", "the run folder", output_dir())
    resume: str | None = option(None, "a checkpoint of this run to continue from")
    overwrite: bool = option(False, "without resume, a folder that already holds a run is refused; true replaces it")
    progress: bool = option(True, "live progress bar")


@dataclass
class RaceNet:
    hidden: list[int] = option(doc="the race network's hidden widths (net.race=null: the contact net everywhere)",
                               rule=widths(), factory=lambda: [64])
    activation: str = option("relu", "the race network's hidden activation: relu, sigmoid, tanh or elu")


@dataclass
class Net:
    hidden: list[int] = option(doc="hidden widths, like [128] (gnubg's contact net) or [256,64]", rule=widths(),
                               factory=lambda: [128])
    activation: str = option("relu", "hidden activation: relu, sigmoid (TD-Gammon), tanh or elu")
    race: RaceNet | None = section(RaceNet)
    exact_bearoff: bool = option(True, "bear-offs scored from the bear-off databases, not by a network")


@dataclass
class Encoder:
    name: str = option("contact", "the inputs: contact (250, gnubg-like hand-made features) or tesauro198 "
                       "(TD-Gammon's)", choice("contact", "tesauro198"))


@dataclass
class SelfPlayRay:
    address: str | None = option(None, "null: this machine's Ray, started if none; auto: the cluster `ray start` "
                                 "joined; ray://head:10001")
    cpus_per_worker: float = option(1, "CPUs Ray reserves for each actor (workers=auto: cluster CPUs / this)",
                                    number(0.125, why="workers=auto starts the cluster's CPUs over this many actors: "
                                                      "below 1/8, more than 8 a core"))
    in_flight: int = option(2, "chunk requests queued on each actor, so it never waits for the learner", whole(1))
    max_restarts: int = option(100, "crashed actors replaced over the run before it gives up", whole(0))


@dataclass
class SelfPlay:
    workers: int | str = option("auto", "self-play processes (or Ray actors); auto = one per core, 0 = in the "
                                "learner's process", WORKERS)
    parallel_games: int = option(64, "games each worker advances in lockstep",
                                 whole(1, 100_000, why="games in lockstep, each holding its boards"))
    games_per_chunk: int = option(32, "games a worker finishes before shipping them and fetching new weights",
                                  whole(1, 100_000, why="a chunk is played whole before the net learns from it"))
    epsilon: float = option(0.0, "chance of an exploratory move; its position learns the greedy move's value",
                            number(0, 1))
    explore_top: int = option(0, "an exploratory move is one of the k best other moves by 0-ply equity; 0 = any",
                              whole(0))
    backend: str = option("local", "local processes, or ray actors (pip install -e \".[distributed]\")",
                          choice("local", "ray"))
    ray: SelfPlayRay = section(SelfPlayRay)


@dataclass
class TD:
    lam: float = option(0.7, "lambda of TD(lambda); 0 = one-step TD, 1 = Monte Carlo", number(0, 1))
    optimizer: str = option("adam", "adam or sgd", choice("adam", "sgd"))
    lr: float = option(0.001, "learning rate", number(above=0, most=10, why="TD updates diverge far below it"))
    lr_schedule: str = option("cosine", "from lr to lr_final over train.games: constant, linear or cosine",
                              choice("constant", "linear", "cosine"))
    lr_final: float = option(0.0001, "the learning rate at the end of the schedule", number(0))
    batch_size: int = option(128, "positions per update", whole(1))
    epochs: int = option(1, "passes over each chunk of games", whole(1))


@dataclass
class Evaluation:
    every_games: int = option(5000, "evaluate against pubeval every this many games (0 = only at the end)", whole(0))
    games: int = option(1000, "games per periodic evaluation (duplicate dice pairs)", whole(1))
    final_games: int = option(2000, "games of the final evaluation", whole(1))
    seed: int = option(12345, "dice of the evaluation games", SEED)


@dataclass
class Train:
    """TD(lambda) self-play: a network learns from its own games, and the run ends with a match
    against pubeval.
      bgzero-train td.lam=0.7 selfplay.workers=2 train.games=50000
      bgzero-train experiment=strong                     # a config group: experiment=reference|strong|tiny, net=mlp80
      bgzero-train -m td.lam=0.5,0.9                     # a Hydra sweep: one run folder a job"""

    seed: int = option(0, "every random choice of the run flows from this", SEED)
    name: str = option("default", "run name: outputs go to runs/NAME", run_name())
    device: str = option("cpu", "the learner's device: cpu or cuda (cpu, with a warning, without a GPU)", device())
    train: Loop = section(Loop)
    net: Net = section(Net)
    encoder: Encoder = section(Encoder)
    selfplay: SelfPlay = section(SelfPlay)
    td: TD = section(TD)
    eval: Evaluation = section(Evaluation)


@dataclass
class Candidates:
    positions: int = option(3_000_000, "candidates per generation, from the champion's 0-ply self-play", whole(1))
    parallel_games: int = option(256, "self-play games played in lockstep", whole(1, 100_000))
    top: int = option(8, "best plays kept per turn, by the champion's 0-ply equity", whole(2))
    explore: float = option(0.1, "chance a self-play turn takes a random one of its best plays instead", number(0, 1))
    classes: list[str] = option(doc="which nets learn: contact, race", rule=subset("contact", "race"),
                                factory=lambda: ["contact", "race"])


@dataclass
class Rollouts:
    turns: int | None = option(0, "qualifying turns rolled out in place of their labels, the first in the candidates' "
                               "order; 0: none; null: all", whole(0, null=True))
    close: float | None = option(0.02, "a turn qualifies when its best two labels are this close in equity; null: "
                                 "every turn", number(0, null=True))
    classes: list[str] = option(doc="... and its best candidate is of one of these classes",
                                rule=subset("contact", "race"), factory=lambda: ["contact", "race"])
    top: int = option(3, "the turn's best candidates (by the labels) rolled out", whole(2))
    trials: int = option(144, "variance-reduced trials per candidate, the same dice for a turn's candidates", whole(1))
    truncate: int = option(11, "plies after which a trial stops and the player's net judges", whole(1))
    player: str | None = option(None, "checkpoint that plays the rollouts at 0 ply; null: the teacher")


@dataclass
class LabellingRay:
    address: str | None = option(None, "a Ray cluster to join (ray://host:10001, auto); null: this machine")


@dataclass
class Labelling:
    teacher: str | None = option(None, "checkpoint whose search labels; null: the champion")
    ply: int = option(2, "search depth of the labels", PLY)
    labels: int | None = option(None, "candidates to label before fine-tuning (a prefix); null: all",
                                whole(1, null=True))
    chunk: int = option(10000, "candidates per saved chunk: what a kill can lose", whole(96))
    processes: int = option(2, "local worker processes, or Ray actors", processes())
    rollout: Rollouts = section(Rollouts)
    backend: str = option("local", "local or ray", choice("local", "ray"))
    ray: LabellingRay = section(LabellingRay)
    archive: str | None = option(None, "a folder keeping each generation's finished labels and rollouts (a few MB, "
                                 "gen-NNN.labels.tar.xz), also those of a step the budget stopped, restored into a "
                                 "run folder that lacks them; null: none",
                                 output_dir(null=True))


@dataclass
class Finetune:
    epochs: int = option(3, "passes over the labelled turns", whole(1))
    lr: float = option(0.0001, "Adam's learning rate", number(above=0, most=1))
    anchor: float = option(0.1, "pull toward the champion's own outputs (keeps gammons and the cube in place)",
                           number(0))
    calibrate: float = option(0.0, "pull toward the labels' own probabilities (the absolute level: the cube, 1-ply)",
                              number(0))
    earlier: int = option(0, "also learn the labels of this many generations before (made again if gone)", whole(0))
    widen: int = option(0, "hidden units added to the contact net first", whole(0))
    race: bool = option(True, "also teach the race net its labelled race candidates")
    prune_positions: int = option(300_000, "self-play candidates for the student's pruning net", whole(1000))


@dataclass
class Gate:
    games: int = option(10000, "duplicate games against each opponent (the champion first)", whole(2))
    chunk: int = option(1000, "games per saved chunk, each on its own seeded dice", whole(2))
    ply: int = option(0, "the ply both sides play at", PLY)
    opponents: list[str] = option(doc="further opponents (agent specs), measured but not deciding",
                                  rule=agent_list(), factory=lambda: ["gnubg@0"])
    move_errors: bool = option(True, "the student's 0-ply move errors on the gnubg-2-ply judge")
    cube: list[int] = option(doc="plies at which the student's cube decisions meet gnubg 2-ply's (bgzero-bench "
                             "cube's 600); [] none", rule=plies(empty=True), factory=lambda: [0, 1])
    margin: float = option(0.0, "promote when ppg against the champion is above this", number())
    processes: int = option(2, "processes per duplicate match", processes())


@dataclass
class Iterate:
    """generations of search-labelled self-play, each gated against the one before: candidates from
    the champion's play, labels from search (and rollouts), a fine-tuned student, a gate.
      bgzero-iterate budget=2h                      # resume the default run for two hours
      bgzero-iterate recipe=tiny out_dir=runs/try    # a config group: recipe=strong|tiny
    Every step resumes from out_dir; run the same command again after a stop, a kill or the budget."""

    seed: int = option(0, "generation g's k-th step draws from seed + 1000 g + k", SEED)
    start: str = option("checkpoints/strong.pt", "generation 0, the first champion", text())
    out_dir: str = option("runs/iterate", "the run folder: state.json, tb/, gen-001/, gen-002/, ...", output_dir())
    generations: int = option(1, "generations to decide in this run (counting those done)", whole(1))
    budget: float | str | None = option(None, "wall-clock limit of this invocation (2h, 90m, 600); null: none",
                                        duration())
    progress: bool = option(True, "live progress bars")
    candidates: Candidates = section(Candidates)
    labelling: Labelling = section(Labelling)
    finetune: Finetune = section(Finetune)
    gate: Gate = section(Gate)

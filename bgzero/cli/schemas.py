"""Every command's options, declared once (:mod:`bgzero.cli.options`): what ``--help`` lists, what
the command reads and what it refuses. ``bgzero-train`` and ``bgzero-iterate``'s are in
:mod:`bgzero.learn.schemas`, beside the code that reads them, as Hydra's base for their config
groups; every other command's are here.

A class's docstring is the head of its ``--help``: what the command does, then examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bgzero.config_check import (
    AGENT,
    MATCH_LENGTH,
    PLY,
    PROCESSES,
    SEED,
    TRIALS,
    WIDTHS_MOST,
    WORKERS,
    agent_list,
    choice,
    number,
    output_dir,
    output_file,
    plies,
    processes,
    text,
    whole,
)
from bgzero.schema import option, section

REFERENCE_SIZE = whole(1, 10**6, why="a gnubg reference of a million positions is weeks of gnubg")


@dataclass
class Hint:
    """every legal move of a position and roll, ranked; without dice, the position's evaluation,
    and with a Match ID also the cube action.
      bgzero-hint 4HPwATDgc/ABMA 31 agent=strong@1
      bgzero-hint position=4HPwATDgc/ABMA match=cAkAAAAAAAAA
      bgzero-hint position=4HPwATDgc/ABMA dice=31 rollout=1296      # rollout columns for the best 5 plays
      bgzero-hint position=XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10
    Agent grammar: strong[@PLY], checkpoint:PATH[@PLY]  (PLY 0-2, the search depth)."""

    position: str | None = option(None, "gnubg Position ID (side on roll's view), POSITION:MATCH, or an XGID")
    dice: Any = option(None, "31, 3-1 or [3,1]; none = evaluate the position (the Match ID's dice if it has rolled)")
    match: str | None = option(None, "gnubg Match ID: score, cube and who is on roll; none = money, cube centred")
    agent: str = option("strong", "the network and its search depth", AGENT)
    rollout: int | None = option(None, "trials: add cubeless rollouts (variance-reduced, by the agent) of the best "
                                 "plays or the position", whole(1, 10**9, null=True, why="a billion trials a play is days of work"))
    rollout_top: int = option(5, "plays rolled out when rollout is set", whole(1))
    rollout_seed: int = option(0, "the rollouts' dice", SEED)


@dataclass
class Analyze:
    """a match's every decision judged, as gnubg's `analyse match` + `show statistics match`; or the
    best move for each line 'POSITION-ID DICE' of a file, one JSON line each.
      bgzero-analyze runs/match/m3/match_0001.mat html=report.html      # .mat or .sgf; agent=strong@2 for 2-ply
      bgzero-analyze match=runs/match/m3 player=strong                 # a folder: one player's totals over all
      bgzero-analyze input=positions.txt output=moves.jsonl agent=strong@1
    input=: blank lines and '#' comments are ignored; dice as 31, 3-1 or 3,1. Each output line is
    {"line", "position", "dice", "move", "equity", "probs", "result"} (for the mover, cubeless) or
    {"line", "error"}. Files appear under their names only once complete."""

    match: str | None = option(None, "a .mat or .sgf file, or a folder of them: judge every decision, rate each player",
                               text(null=True))
    input: str | None = option(None, "a file of 'POSITION-ID DICE' lines: the best move of each")
    output: str | None = option(None, "none = the input's name with .jsonl; for match=, FILE.analysis.json "
                                "(folder/analysis.json)", output_file(null=True))
    html: str | None = option(None, "match= only: a self-contained HTML report with the board at every error",
                              output_file(null=True))
    player: str | None = option(None, "match= on a folder: only this player's totals over the matches")
    jacoby: bool = option(False, "match= only: a money .mat's Jacoby rule (the .mat format does not record it)")
    progress: bool = option(True, "match= only: progress bars")
    luck_ply: int = option(0, "match= only: the ply luck is judged at (gnubg 1.07's default, 0)", PLY)
    rollout: int | None = option(None, "match= on one file: roll out the worst checker plays with this many trials each",
                                 whole(1, null=True))
    rollout_worst: int = option(5, "how many of the worst checker plays to roll out (played and best play)", whole(1))
    rollout_seed: int = option(0, "the rollouts' dice", SEED)
    agent: str = option("strong", "the judge: strong[@PLY] or checkpoint:PATH[@PLY], PLY 0-2", AGENT)
    on_error: str = option("skip", "input= only: skip reports a bad line and goes on; stop exits 1 and writes no file",
                           choice("skip", "stop"))
    batch_size: int = option(256, "positions per move generation and batched search", whole(1))


@dataclass
class Evaluate:
    """agent A vs agent B, cubeless money, duplicate dice.
      bgzero-eval a=strong@1 b=pubeval games=10000
      bgzero-eval a=gnubg@0 b=pubeval
      bgzero-eval a=strong@0 b=gnubg games=10000 seed=2026 report=checkpoints/strong.report.json
    Agent grammar: random[:SEED], pubeval, checkpoint:PATH[@PLY], gnubg[@PLY], strong[@PLY]  (PLY 0-2).
    """

    a: str = option("strong", "agent A", AGENT)
    b: str = option("pubeval", "agent B", AGENT)
    games: int = option(1000, "rounded up to an even number: each dice sequence is played twice",
                        whole(1, 10**10, why="ten billion games is years of play"))
    seed: int = option(0, "the dice", SEED)
    processes: int | str = option("auto", "worker processes; auto = one per CPU core", PROCESSES)
    out: str = option("runs/eval/${now:%Y%m%d-%H%M%S}", "result.json and TensorBoard logs go here", output_dir())
    report: str | None = option(None, "a strength report (JSON) this match's row is appended to, as "
                                "checkpoints/*.report.json; none = no report", output_file(null=True))
    progress: bool = option(True, "a progress bar")


@dataclass
class Match:
    """agent A (player 0) vs agent B (player 1) with the doubling cube; every match is written as a
    .mat transcript that GNU Backgammon imports (`import mat FILE`).
      bgzero-match a=strong@0 b=gnubg@0 length=7 matches=100
      bgzero-match a=gnubg@0 b=pubeval length=0 games=500 matches=1    # one money session
    pubeval and random never double and always take.
    Agent grammar: random[:SEED], pubeval, checkpoint:PATH[@PLY], gnubg[@PLY], strong[@PLY]  (PLY 0-2).
    """

    a: str = option("strong", "agent A, player 0", AGENT)
    b: str = option("gnubg", "agent B, player 1", AGENT)
    length: int = option(7, "match length in points; 0 = money sessions of `games` games", MATCH_LENGTH)
    games: int = option(100, "games per money session (length=0 only)", whole(1))
    jacoby: bool = option(False, "money only: gammons count single while the cube is centred")
    matches: int = option(100, "matches (or money sessions) to play", whole(1))
    seed: int = option(0, "draws one dice seed per match", SEED)
    shard: int = option(8, "matches per job; results depend on seed and shard, not on processes", whole(1))
    processes: int | str = option("auto", "worker processes; auto = one per CPU core", PROCESSES)
    format: str = option("mat", "transcripts: mat (JellyFish, `import mat`), sgf (gnubg's own, `load match`) or both",
                         choice("mat", "sgf", "both"))
    out: str = option("runs/match/${now:%Y%m%d-%H%M%S}", "match_0001.mat (or .sgf) ... and result.json go here",
                      output_dir())
    overwrite: bool = option(False, "an out= holding an earlier run is refused; true removes that run's "
                             "match_NNNN.mat/.sgf and result.json first")
    progress: bool = option(True, "a progress bar")
    show: bool = option(False, "print every move of every match with the board, each shard's as soon as it is played")
    pace: float = option(0.0, "seconds between moves when showing", number(0))


@dataclass
class Play:
    """you against an agent in the terminal, with the cube; moves in gnubg notation.
      bgzero-play bot=strong@1 length=7
      bgzero-play bot=gnubg@0 length=0 games=10 save=money.mat      # a money session
      bgzero-play bot=pubeval hint=strong board=ascii
      bgzero-play seed=7 < moves.txt                                # scripted from standard input
    Type help at any prompt for the commands (moves, hint, double, take, pass, undo, resign, save).
    Agent grammar: random[:SEED], pubeval, checkpoint:PATH[@PLY], gnubg[@PLY], strong[@PLY]  (PLY 0-2).
    """

    bot: str = option("strong", "your opponent", AGENT)
    name: str = option("you", "your name in the transcript (letters, digits, _.@+- only)")
    length: int = option(5, "match length in points; 0 = a money session", MATCH_LENGTH)
    games: int = option(0, "money only: games to play, 0 = until you quit", whole(0))
    jacoby: bool = option(False, "money only: gammons count single while the cube is centred")
    seed: int | None = option(None, "dice seed; none = a fresh one, printed so the session can be replayed",
                              whole(0, null=True))
    hint: str | None = option(None, "network for `hint`: checkpoint:PATH[@PLY]; none = the bot's if it is a "
                              "checkpoint, else pubeval's ranking")
    hint_moves: int = option(8, "moves listed by `hint`", whole(1))
    confirm: bool = option(True, "ask to confirm each move (Enter) or take it back (undo)")
    board: str = option("unicode", "unicode or ascii", choice("unicode", "ascii"))
    colour: bool | str = option("auto", "auto (when writing to a terminal), true or false", choice("auto", True, False))
    save: str | None = option(None, ".mat or .sgf file written after every game; `save FILE` saves at any prompt",
                              output_file(null=True))


@dataclass
class Replay:
    """watch a match file action by action, on the board.
      bgzero-replay runs/match/m3/match_0001.mat pace=0.2
      bgzero-replay game.sgf pace=enter board=ascii
    """

    file: str | None = option(None, "a .mat or .sgf match file (gnubg's 'save match' or 'export match mat', "
                              "bgzero-match, bgzero-play)")
    pace: float | str = option(0.5, "seconds between actions, or enter: wait for Enter",
                               number(0, 3600, word="enter"))
    board: str = option("unicode", "unicode or ascii", choice("unicode", "ascii"))
    colour: bool | str = option("auto", "auto (when writing to a terminal), true or false", choice("auto", True, False))
    jacoby: bool = option(False, "a money .mat's Jacoby rule (the .mat format does not record it)")


@dataclass
class Rollout:
    """what a position is worth, by playing it out many times in lockstep.
      bgzero-rollout position=4HPwATDgc/ABMA trials=1296 output=opening.json
      bgzero-rollout position=4HPwATDgc/ABMA dice=31 top=4 agent=strong@1 trials=648
      bgzero-rollout position=4HPwATDgc/ABMA match=cAkAAAAAAAAA cubeful=true truncate=11 processes=2
    The judge values each roll for variance reduction and the truncated positions. Output JSON: probs,
    probs_se, equity, equity_se, trials (and cubeful_equity, cubeful_se when cubeful) for the position
    before it rolls; with dice also "moves": one such entry per play, with "move".
    Agent grammar: random[:SEED], pubeval, checkpoint:PATH[@PLY], gnubg[@PLY], strong[@PLY]  (PLY 0-2).
    """

    position: str | None = option(None, "gnubg Position ID, side on roll before it rolls; POSITION:MATCH or an "
                                  "XGID bring their match")
    match: str | None = option(None, "gnubg Match ID (score, cube, player on roll); none = money, cube centred")
    dice: Any = option(None, "31, 3-1 or [3,1]: also roll out the best plays of this roll")
    top: int = option(5, "plays rolled out (the best by the judge at 0 ply)", whole(1))
    agent: str = option("strong", "who plays the trials", AGENT)
    judge: str | None = option(None, "checkpoint:PATH or gnubg; none = the agent's own net")
    trials: int = option(1296, "per position (a multiple of 1296 stratifies the first two rolls fully)", TRIALS)
    truncate: int | None = option(None, "plies, or null to play every game out", whole(1, null=True))
    cubeful: bool = option(False, "play with the cube (the agent's own cube decisions); money, or the match's MET")
    vr: bool = option(True, "variance reduction: subtract each roll's luck")
    seed: int = option(0, "the trials' dice", SEED)
    se: float | None = option(None, "stop once every equity standard error is at most this", number(above=0, null=True))
    seconds: float | None = option(None, "stop after this many seconds, checked as each batch of trials ends",
                                   number(above=0, null=True))
    processes: int = option(1, "worker processes (the numbers do not depend on it)", processes())
    backend: str = option("local", "local or ray", choice("local", "ray"))
    ray_address: str | None = option(None, "with backend=ray: auto, or a cluster address; none starts Ray here")
    batch: int = option(2592, "trials advanced together: the unit of work (other sizes move results only by "
                        "float rounding)", whole(1))
    prune: bool = option(True, "a checkpoint at 0 ply ranks its plays with its pruning net, the contact net "
                         "scoring the best 5; false scores every play with the contact net, as gnubg's 0-ply")
    database: bool = option(True, "end trials at exact two-sided bear-off positions; false keeps the databases out")
    output: str | None = option(None, "JSON file (written atomically); none = print only", output_file(null=True))
    progress: bool = option(True, "a progress bar")


@dataclass
class Referee:
    """A match refereed by the gnubg program, then exit."""

    match: int | None = option(None, "N: have the gnubg program referee an N-point match against gnubg, then exit",
                               whole(1, 64, null=True))
    ply: int = option(0, "gnubg's ply (checker play and cube) in that match", PLY)
    seed: int | None = option(None, "gnubg's dice seed; null: gnubg's own", whole(0, null=True))
    sgf: str = option("gnubg_match.sgf", "where gnubg saves the match", output_file())
    gnubg: str = option("/usr/games/gnubg", "the gnubg program")
    timeout: float = option(3600, "seconds", number(above=0))


@dataclass
class Serve:
    """a bgzero agent as GNU Backgammon's external player (FIBS board protocol).
      bgzero-serve agent=strong@1 port=4321
    then in gnubg:  set player 1 external localhost:4321   and   new match 7
    A gnubg-refereed match instead (the Debian gnubg program plays gnubg's side and keeps score):
      bgzero-serve agent=strong@1 referee.match=7 referee.ply=0
    Agent grammar: random[:SEED], pubeval, checkpoint:PATH[@PLY], gnubg[@PLY], strong[@PLY]  (PLY 0-2).
    """

    agent: str = option("strong", "the agent gnubg plays against", AGENT)
    host: str = option("127.0.0.1", "this machine only; 0.0.0.0 accepts connections from anywhere")
    port: int = option(4321, "the port gnubg connects to", whole(0, 65535))
    connections: int | None = option(None, "stop after serving this many connections; null: until stopped (Ctrl-C)",
                                     whole(1, null=True))
    idle_timeout: float = option(300, "seconds: a connection that sends nothing this long is closed", number(above=0))
    gnubg_scores: bool = option(True, "read the score fields as gnubg 1.07 fills them; false: as the FIBS spec says")
    log_level: str = option("INFO", "INFO logs every decision; DEBUG also every line received",
                            choice("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL", fold_case=True))
    referee: Referee = section(Referee)


@dataclass
class Web:
    """play, analyse and watch in the browser, and an HTTP JSON engine for other programs.
      bgzero-web                      then open http://127.0.0.1:8000/  (API docs at /docs)
      bgzero-web port=8080 workers=2 agents=[strong,strong@1,pubeval]
    Requests may name only the agents listed here, so no request can make the server read a file.
    Agent grammar: random[:SEED], pubeval, checkpoint:PATH[@PLY], gnubg[@PLY], strong[@PLY]  (PLY 0-2).
    """

    host: str = option("127.0.0.1", "this machine only; 0.0.0.0 accepts connections from anywhere")
    port: int = option(8000, "the port to listen on", whole(0, 65535))
    agents: list[str] = option(doc="the agents requests may name", rule=agent_list(), factory=lambda: [
        "strong", "strong@1", "strong@2", "strong_td", "reference", "pubeval", "random"])
    default_agent: str = option("strong", "the bot and the analysis when a request names none", AGENT)
    hint_agent: str | None = option(None, "the network behind the play page's hints; null: default_agent")
    workers: int = option(2, "threads evaluating requests (the nets' numba kernels release the GIL)", processes())
    queue: int = option(256, "requests that may wait for a worker; more are answered 503 at once", whole(1))
    long_workers: int = option(1, "threads for long work (rollouts, watched matches, uploads analysed)", processes())
    long_queue: int = option(4, "long work that may wait for one of them; more is answered 503 at once", whole(1))
    sessions: int = option(64, "games held at once; beyond it a new game is refused (503)", whole(1))
    games_per_client: int = option(4, "games one browser (its cookie) holds; a new one drops its least recently used",
                                   whole(1))
    idle_minutes: float = option(60, "a game left alone this long expires", number(above=0))
    upload_bytes: int = option(1_000_000, "the largest request body (an uploaded .mat or .sgf file)", whole(1))
    connections: int = option(1000, "open connections at most; more are answered 503 by the server", whole(1))
    log_level: str = option("warning", "uvicorn's: info logs every request",
                            choice("critical", "error", "warning", "info", "debug", "trace", fold_case=True))


@dataclass
class League:
    """a run's checkpoints against pubeval and each other (cubeless, duplicate dice).
      bgzero-league run=runs/reference limit=8 games_vs_pubeval=2000 games_per_pair=400
    """

    run: str = option("runs/reference", "the training run whose checkpoints/ are rated")
    limit: int = option(8, "at most this many checkpoints, evenly spread, always the last", whole(1))
    games_vs_pubeval: int = option(1000, "games of each checkpoint against pubeval", whole(1))
    games_per_pair: int = option(400, "games of each pair of checkpoints", whole(1))
    ply: int = option(0, "the checkpoints' search depth", PLY)
    seed: int = option(0, "the dice", SEED)
    processes: int | str = option("auto", "worker processes; auto = one per CPU core", PROCESSES)
    out: str = option("${run}/league", "league.csv, league.json and league.png go here", output_dir())


@dataclass
class Prune:
    """distil a pruning net from a checkpoint's contact net and store it in the checkpoint, so 1- and
    2-ply search rank replies cheaply (bgzero/value/pruning.py).
      bgzero-prune checkpoint=checkpoints/strong.pt
      bgzero-prune checkpoint=runs/default/last.pt out=runs/default/pruned.pt positions=100000
    """

    checkpoint: str | None = option(None, "the checkpoint to distil from")
    out: str | None = option(None, "where to write the checkpoint with its pruning net; none = replace "
                             "`checkpoint` (atomically)", output_file(null=True))
    positions: int = option(300_000, "contact candidates from 0-ply self-play to fit on",
                            whole(1, 10**8, why="a hundred million positions fill memory"))
    hidden: int = option(16, "hidden units of the 198-hidden-5 pruning net",
                         whole(1, WIDTHS_MOST, why="the width of a layer"))
    seed: int = option(0, "the self-play's dice and the fit's initial weights", SEED)


@dataclass
class Export:
    """write a training checkpoint's play file (.safetensors), which plays without torch: its nets
    and plain fields, without the optimizer (bgzero/value/playfile.py). With mover=, another
    checkpoint's nets choose the checker plays at 0 ply (the role split, checkpoints/strong.md).
      bgzero-export checkpoint=runs/default/last.pt
      bgzero-export checkpoint=runs/default/last.pt out=agents/mine.safetensors
      bgzero-export checkpoint=checkpoints/strong.pt mover=checkpoints/iterate/gen-010.pt out=agents/pair.safetensors
    """

    checkpoint: str | None = option(None, "the training checkpoint (.pt) to export")
    out: str | None = option(None, "the file to write: a play file (.safetensors), or with mover= also a training "
                             "checkpoint (.pt); none = beside `checkpoint`, same name, .safetensors",
                             output_file(null=True))
    mover: str | None = option(None, "a checkpoint whose contact and race nets choose checker plays at 0 ply; "
                               "`checkpoint`'s keep the cube, position values and 1-2 ply searches")


@dataclass
class BenchErrors:
    """move errors, the mean equity loss x1000 per move, judged by gnubg n-ply or by rollouts.
      bgzero-bench errors agent=[checkpoint:checkpoints/reference.pt@0] positions=1000 seed=0
      bgzero-bench errors agent=[strong@0,strong@1] worst=50
      bgzero-bench errors judge=rollout agent=strong@0
    gnubg 0-ply, gnubg 1-ply and pubeval are always shown as yardsticks (a dash where gnubg-nn is absent).
    Cells: mean loss x1000 +- 95% interval, overall and per class; best move: share of the judge's best played.
    """

    agent: str | list[str] = option(doc="agent specs to measure: one spec or a list", rule=agent_list(one=True),
                                    factory=list)
    positions: int = option(1000, "judge=gnubg: positions from gnubg 0-ply self-play (1000 at seed 0 and 2 ply "
                            "is shipped)", REFERENCE_SIZE)
    seed: int = option(0, "judge=gnubg: the self-play games' dice", SEED)
    judge: str = option("gnubg", "gnubg (its ref_plies-ply equity of every play) or rollout (the shipped rollout "
                        "judge, or judge_file)", choice("gnubg", "rollout"))
    judge_file: str | None = option(None, "judge=rollout: a judge built by scripts/build_rollout_judge.py instead")
    ref_plies: int = option(2, "judge=gnubg: gnubg's ply for the reference (0-2)", PLY)
    cache: str | None = option(None, "where a freshly built gnubg reference is saved; none = ~/.cache/bgzero",
                               output_dir(null=True))
    workers: int | str = option("auto", "processes that build a gnubg reference; auto (or 0) = one per CPU core",
                                WORKERS)
    worst: int = option(0, "also print each agent's share of its loss in its N worst positions", whole(0))


@dataclass
class BenchCube:
    """the neural agent's cube decisions against GNU Backgammon's 2-ply hint.
      bgzero-bench cube checkpoint=checkpoints/strong.pt positions=600 seed=1 ply=[0,1]
      bgzero-bench cube checkpoint=checkpoints/reference.pt positions=300 seed=0 misses=true
    Money and match contexts where the side on roll may double; gnubg's verdicts are cached as JSON: the
    package ships 600 positions of seed 1 and 300 of seed 0 (no gnubg needed), other sizes are built with
    gnubg. Rows: bgzero at each ply, the same probabilities through the 0-ply cube, a naive rule, gnubg
    0- and 1-ply.
    """

    checkpoint: str = option("strong", "the network: a play file or training checkpoint (PATH), or a shipped one "
                             "by name (strong, strong_td, reference)")
    positions: int = option(600, "positions in the reference", REFERENCE_SIZE)
    seed: int = option(1, "the reference's self-play dice and contexts", SEED)
    ply: int | list[int] = option(0, "bgzero's evaluation depths for the cube: one ply or a list like [0,1,2]",
                                  plies())
    reference: str | None = option(None, "reference JSON; none = the shipped cube_reference_n{positions}_seed{seed}"
                                   ".json, else built into ~/.cache/bgzero")
    misses: bool = option(False, "list bgzero's disagreements with gnubg at each ply")
    gnubg_probs: bool = option(False, "also run bgzero's search on gnubg's 0-ply probabilities (needs gnubg-nn)")


COMMANDS: dict[str, tuple[str, type]] = {
    "analyze": ("bgzero-analyze", Analyze), "eval": ("bgzero-eval", Evaluate), "export": ("bgzero-export", Export),
    "hint": ("bgzero-hint", Hint), "league": ("bgzero-league", League), "match": ("bgzero-match", Match),
    "play": ("bgzero-play", Play), "prune": ("bgzero-prune", Prune), "replay": ("bgzero-replay", Replay),
    "rollout": ("bgzero-rollout", Rollout), "serve": ("bgzero-serve", Serve), "web": ("bgzero-web", Web),
    "bench errors": ("bgzero-bench errors", BenchErrors), "bench cube": ("bgzero-bench cube", BenchCube),
}
"""Each command's name, its program's and its options."""

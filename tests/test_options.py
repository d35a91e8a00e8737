"""A command's options, declared once: read by their type, checked by their rule, refused in one line."""

import pytest
from omegaconf.errors import ConfigAttributeError

from bgzero.cli.options import compose
from bgzero.cli.schemas import COMMANDS, Analyze, BenchCube, BenchErrors, Evaluate, Hint, Play, Replay, Serve, Web
from bgzero.errors import ConfigError
from bgzero.schema import fields


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_has_a_rule_unless_its_command_reads_any_value(name):
    """An option without a rule takes anything: only ``dice`` does, and its reader words its own errors."""
    unchecked = [f.key for f in fields(COMMANDS[name][1]) if f.rule is None]
    assert unchecked in ([], ["dice"]), unchecked


def test_each_command_reads_its_defaults_unchanged():
    from omegaconf import OmegaConf

    for _, schema in COMMANDS.values():
        cfg = compose(schema, [])
        for f in fields(schema):
            if "${" not in str(f.default):  # out=runs/eval/${now:...}: below
                assert OmegaConf.select(cfg, f.key) == f.default


@pytest.mark.parametrize("schema,arg,key,value", [
    (Play, "name=123", "name", "123"),                  # a name is text, whatever it looks like
    (Hint, "position=12345", "position", "12345"),
    (Hint, "position=1e345", "position", "1e345"),     # Hydra read this as a float
    (Hint, "dice=31", "dice", 31), (Hint, "dice=3-1", "dice", "3-1"), (Hint, "dice=[3,1]", "dice", [3, 1]),
    (Hint, "dice=3,1", "dice", "3,1"),                  # Hydra's grammar made this a sweep
    (Hint, "match=null", "match", None), (Hint, "agent='strong@1'", "agent", "strong@1"),
    (BenchCube, "ply=[0,1]", "ply", [0, 1]), (BenchCube, "ply=2", "ply", 2),
    (BenchErrors, "agent=strong@0", "agent", "strong@0"),
    (BenchErrors, "agent=[strong@0,gnubg@0]", "agent", ["strong@0", "gnubg@0"]),
    (Evaluate, "processes=auto", "processes", "auto"), (Evaluate, "processes=2", "processes", 2),
    (Replay, "pace=0", "pace", 0.0), (Replay, "pace=enter", "pace", "enter"),
    (Play, "colour=false", "colour", False), (Play, "colour=auto", "colour", "auto"),
    (Serve, "referee.match=7", "referee.match", 7), (Serve, "idle_timeout=5", "idle_timeout", 5.0),
    (Web, "agents=[]", "agents", []), (Analyze, "++rollout_seed=3", "rollout_seed", 3),
])
def test_a_value_is_read_as_its_options_type(schema, arg, key, value):
    from omegaconf import OmegaConf

    got = OmegaConf.to_container(compose(schema, [arg]))
    for part in key.split("."):
        got = got[part]
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("schema,args,words", [
    (Web, ["port=abc"], "port='abc' is not allowed: a whole number >= 0 and <= 65535"),
    (Web, ["prot=80"], "no option 'prot' (nearest: port); the options are host, port,"),
    (Serve, ["referee=7"], "referee is a group of options, not one; set referee.match, referee.ply,"),
    (Serve, ["referee.mach=7"], "no option 'referee.mach' (nearest: referee.match); the options under referee are"),
    (Play, ["jacoby=yes"], "jacoby='yes' is not allowed: true or false"),
    (Play, ["seed=1.5"], "seed=1.5 is not allowed: a whole number >= 0, or null"),
    (Hint, ["4HPwATDgc/ABMA", "31", "11"], "'11': not key=value; the options are position, dice,"),
    (Hint, ["--cfg", "job"], "'--cfg': options are key=value (--help lists them)"),
    (Hint, ["dice=${nope}"], "Interpolation key 'nope' not found"),
    (Evaluate, ["games=0"], "games=0 is not allowed: a whole number >= 1"),
])
def test_a_mistake_is_one_line_naming_it(schema, args, words):
    with pytest.raises(ConfigError) as refused:
        compose(schema, args, ("position", "dice") if schema is Hint else ())
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_an_option_the_command_lacks_cannot_be_read_by_mistake():
    cfg = compose(Hint, [])
    with pytest.raises(ConfigAttributeError):
        cfg.dicee  # noqa: B018 - struct mode: a misspelt read is an error, not a None


def test_defaults_with_a_reference_follow_what_they_refer_to(tmp_path):
    from bgzero.cli.schemas import League

    assert compose(League, [f"run={tmp_path}"]).out == f"{tmp_path}/league"
    first = compose(Evaluate, []).out
    assert first.startswith("runs/eval/2") and compose(Evaluate, [f"out={tmp_path}"]).out == str(tmp_path)

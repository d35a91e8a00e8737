"""The walls of the house: every import in bgzero/ goes down the layers, and none goes round in a circle.

Layers follow the data flow. ``BELOW`` names the layers each one stands on; a module may
import its own layer and any it stands on, directly or through others, and nothing else: not
a layer above it, and not a sibling (``cube`` and ``value`` both stand on the engine, and
neither imports the other). Function-level imports count the same as module-level ones, so a
lazy import cannot hide a cycle or a reach upwards. The engine must load without torch.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bgzero"

# "" is the package's own foundation: errors, atomic writes, its file locations, the kernel cache.
BELOW = {
    "": [],
    "engine": [""],             # rules, positions, move generation
    "cube": ["engine"],         # cube arithmetic and match equity, from probabilities
    "value": ["engine"],        # nets and checkpoints: a sibling of cube
    "agents": ["cube", "value"],
    "match": ["agents"],        # match records, the match runner, .mat and SGF files
    "rollout": ["agents"],      # a sibling of match
    "analysis": ["match", "rollout"],  # a position's plays and cube, a whole match's decisions
    "arena": ["rollout"],       # duplicate games and the league: a sibling of analysis
    "judge": ["rollout"],       # move errors against gnubg's search or rollouts: a sibling of arena and analysis
    "selfplay": ["agents"],     # a sibling of match, rollout and env
    "learn": ["arena", "judge", "selfplay"],
    "gnubg": ["match"],         # GNU Backgammon's formats and program: a sibling of rollout, selfplay and learn
    "env": ["agents"],          # the RL environments: a sibling of match, rollout, selfplay
    "ui": ["analysis"],
    "web": ["ui"],
    "cli": ["learn", "gnubg", "env", "web"],
}


def _reaches(name: str) -> set[str]:
    return {name}.union(*(_reaches(below) for below in BELOW[name]))


REACHES = {name: _reaches(name) for name in BELOW}
"""Each layer and every layer it stands on: what its modules may import."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else ""


def is_module(name: str) -> bool:
    path = ROOT / name.replace(".", "/")
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports(path: Path) -> set[str]:
    """Every bgzero module ``path`` imports, anywhere in the file (``from X import name`` may name a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("bgzero")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bgzero"):
            submodules = {f"{node.module}.{a.name}" for a in node.names if is_module(f"{node.module}.{a.name}")}
            found |= submodules or {node.module}
            if len(submodules) < len(node.names):
                found.add(node.module)
    return found


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}
GRAPH = {name: {m for m in imports(path) if m in MODULES and m != name} for name, path in MODULES.items()}


def test_every_module_has_a_layer():
    assert {layer(m) for m in MODULES} <= set(BELOW)


def crossings(graph: dict[str, set[str]]) -> list[str]:
    """The imports that go up a layer or sideways to a sibling."""
    return [f"{m} imports {dep}" for m, deps in sorted(graph.items()) if m != "bgzero" for dep in sorted(deps)
            if layer(dep) not in REACHES[layer(m)]]


def test_no_import_goes_up_a_layer_or_sideways():
    assert crossings(GRAPH) == []


def test_a_sideways_import_is_caught():
    """``value`` importing ``cube``: neither is above the other, so an order of layers allowed it."""
    assert crossings({"bgzero.value.net": {"bgzero.cube.money"}}) == ["bgzero.value.net imports bgzero.cube.money"]
    assert crossings({"bgzero.selfplay.games": {"bgzero.arena.duplicate"}, "bgzero.learn.train": {"bgzero.arena.duplicate"}}) \
        == ["bgzero.selfplay.games imports bgzero.arena.duplicate"]
    assert crossings({"bgzero.analysis.match": {"bgzero.arena.duplicate"}, "bgzero.arena.league": {"bgzero.match.runner"}}) \
        == ["bgzero.analysis.match imports bgzero.arena.duplicate", "bgzero.arena.league imports bgzero.match.runner"]


def test_no_module_imports_its_own_package_facade():
    """``from bgzero.cube import X`` inside bgzero/cube/ would run the facade half-built."""
    facades = {p for p, deps in GRAPH.items() if MODULES[p].name == "__init__.py" and any(d.startswith(p + ".") for d in deps)}
    inward = [f"{m} imports {dep}" for m, deps in GRAPH.items() for dep in deps & facades if m.startswith(dep + ".")]
    assert inward == []


def test_no_import_cycles():
    """Depth-first search over the module graph, facades of the root package excepted (they only re-export)."""
    graph = {m: deps - {"bgzero"} for m, deps in GRAPH.items() if m != "bgzero"}
    state, cycles = {}, []

    def visit(node, trail):
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                cycles.append(" -> ".join(trail[trail.index(dep):] + [dep]))
            elif dep not in state:
                visit(dep, trail + [dep])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_wheel_lists_every_subpackage():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    assert packages <= set(config["packages"])
    assert config["package-dir"] == {"bgzero.configs": "configs", "bgzero.checkpoints": "checkpoints"}


@pytest.mark.parametrize("code", [
    "from bgzero import Position, generate; import numpy as np; "
    "assert len(Position.start().legal_moves((3, 1))) == 16; "
    "assert len(generate(np.array([Position.start().board]), np.array([[3, 1]])).results) == 16",
])
def test_the_engine_loads_no_torch(code):
    check = f"{code}; import sys; assert 'torch' not in sys.modules, 'torch was imported'"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr

"""The Debian ``gnubg`` program for tests: found once, run with commands on stdin, skipped when absent."""

import functools
import shutil
import subprocess

import pytest


@functools.cache
def _find() -> str | None:
    program = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")
    if program:
        try:
            subprocess.run([program, "-t", "-q", "-r"], input="quit\n", text=True, capture_output=True, timeout=60,
                           check=True)
            return program
        except (OSError, subprocess.SubprocessError):
            pass
    return None


def gnubg_program() -> str:
    """The program's path, or skip the test with the reason."""
    program = _find()
    if program is None:
        pytest.skip("the gnubg program (Debian package gnubg) does not run here")
    return program


def run_gnubg(commands: list[str], timeout: float = 300) -> str:
    """gnubg's text output, standard error interleaved, for ``commands`` (``quit`` appended), run headless."""
    return subprocess.run([gnubg_program(), "-t", "-q", "-r"], input="\n".join([*commands, "quit", ""]),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout).stdout

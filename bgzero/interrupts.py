"""Ctrl-C in worker processes: a terminal sends SIGINT to the whole process group.

Each worker would print its own ``KeyboardInterrupt`` traceback and die mid-task; instead a
worker ignores SIGINT and the main process, which gets it too, decides what is kept and
stops the workers (a pool's ``terminate``, the self-play workers' stop event).
"""

import signal


def leave_interrupts_to_the_main_process(*_) -> None:
    """A pool's ``initializer`` (any arguments are ignored): SIGINT no longer interrupts this process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

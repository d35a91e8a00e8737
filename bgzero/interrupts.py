"""Worker processes follow their main process: its Ctrl-C and its death.

A terminal sends SIGINT to the whole process group: each worker would print its own
``KeyboardInterrupt`` traceback and die mid-task; instead a worker ignores SIGINT and the main
process, which gets it too, decides what is kept and stops the workers (a pool's
``terminate``, the self-play workers' stop event). A main process killed outright (``kill -9``,
the out-of-memory killer) stops no one, so each worker watches for it and exits.
"""

import multiprocessing
import os
import signal
import threading
import time

PARENT_POLL_SECONDS = 0.2
"""How often a worker looks whether its main process is still there: it then exits within this."""


def follow_the_main_process(*_) -> None:
    """A pool's ``initializer`` (any arguments are ignored): SIGINT no longer interrupts this
    process, and it exits once the process that started it is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    parent_pid = parent.pid if parent is not None else os.getppid()  # the starter, even if already gone

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="bgzero-main-process-watch", daemon=True).start()

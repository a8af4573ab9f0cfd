"""Named crash points, for the crash tests: a process dies exactly where a test asks it to.

``fault_point("name")`` does nothing unless the environment variable ``CASINO_FAULT_POINTS``
(comma-separated) names that point when the process starts; then the process kills itself
there with SIGKILL, as a power cut would: no exception handler, ``finally`` or commit runs.

When ``CASINO_FAULT_MARKS`` names a folder, an armed point strikes only if it can create the
file of its name there, so it strikes once and then stays quiet (a restarted server or a
redelivered task goes on past it) until a test removes the file to let it strike again.

Off, as in production, a fault point costs one look-up in an empty set.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

_ARMED = frozenset(filter(None, os.environ.get("CASINO_FAULT_POINTS", "").split(",")))
_MARKS = os.environ.get("CASINO_FAULT_MARKS", "")


def fault_point(name: str) -> None:
    if name not in _ARMED:
        return
    if _MARKS:
        try:
            os.close(os.open(Path(_MARKS) / name, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return  # struck already; the test has not re-armed it
    os.kill(os.getpid(), signal.SIGKILL)

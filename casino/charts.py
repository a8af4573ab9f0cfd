"""PNG charts for the staff screens, drawn by matplotlib without a display."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def figure(width: float, height: float) -> Figure:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100)


def png(chart: Figure) -> bytes:
    chart.tight_layout()
    buffer = io.BytesIO()
    chart.savefig(buffer, format="png")
    return buffer.getvalue()

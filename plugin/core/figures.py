"""What every figure of the report and of compare shares (matplotlib, Agg): a bare Figure, the
forest-plot drawing and the colours. The benchmarks' own figures (plugin/<benchmark>/figures.py) and
plugin/runs/plots.py build on these.

The drawn arrays carry a gid (`heatmap`, `ci`, `points`, `significant`; each bar of a bar chart:
`bars`, `gold`): tests find them on the figure, and the SVG files keep them as element ids.
Figures are bare `Figure`s (no pyplot state): PNG renders with Agg. matplotlib is imported inside
the functions, so importing this module costs nothing at CLI start.
"""

from __future__ import annotations

SIGNIFICANCE = 0.05
SIGNIFICANT_COLOR, PLAIN_COLOR, CI_COLOR = "#b2182b", "#4d4d4d", "#878787"


def figure(width: float, height: float):
    """(a bare Figure with constrained layout, its one Axes)."""
    from matplotlib.figure import Figure  # a bare Figure: no pyplot state, renders with Agg

    drawing = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return drawing, drawing.add_subplot()


def row_height(n_rows: int) -> float:
    """A figure's height for `n_rows` labelled rows."""
    return max(2.5, 0.9 + 0.28 * n_rows)


def forest(ax, names: list[str], values: list[float], cis: list, significant: list[bool]) -> None:
    """Points with CI segments, one row per name (bottom to top); significant ones filled red."""
    import numpy as np

    y = np.arange(len(names), dtype=float)
    with_ci = [k for k, ci in enumerate(cis) if ci and ci[0] is not None and ci[1] is not None]
    segments = ax.hlines(
        y[with_ci], [cis[k][0] for k in with_ci], [cis[k][1] for k in with_ci], color=CI_COLOR
    )
    segments.set_gid("ci")
    values = np.array(values, dtype=float)
    flags = np.array(significant, dtype=bool)
    plain = ax.scatter(
        values[~flags], y[~flags], facecolors="white", edgecolors=PLAIN_COLOR, zorder=3
    )
    plain.set_gid("points")
    marked = ax.scatter(values[flags], y[flags], color=SIGNIFICANT_COLOR, zorder=3)
    marked.set_gid("significant")
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(y, names, fontsize=8)
    ax.set_ylim(-0.7, len(names) - 0.3)


def nan_for_none(value) -> float:
    return float("nan") if value is None else float(value)

"""The report's charts: PNG files drawn with matplotlib (the ``report`` extra), referenced by the document."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from food_tasks.report.cells import fmt, is_nan, number
from food_tasks.report.spec import MISSING, UNDEFINED

if TYPE_CHECKING:  # matplotlib loads only when a chart is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class Charts:
    """PNG charts with matplotlib (the ``report`` extra); disabled with a note when it is missing."""

    def __init__(self, out_dir: Path, enabled: bool = True) -> None:
        """``enabled=False`` (``food-tasks report --no-charts``): no chart is drawn, as without matplotlib."""
        self.out_dir = out_dir
        self.files: list[Path] = []
        self.plt: Any = None
        if not enabled:
            return
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            self.plt = plt
        except ImportError:
            self.plt = None

    def _save(self, fig: Figure, name: str) -> str:
        """Writes the chart; a bar chart whose bars all have zero length says so (:func:`all_zero_note`), whoever
        drew it."""
        from matplotlib.container import BarContainer

        for ax in fig.axes:
            bars = [c for c in ax.containers if isinstance(c, BarContainer)]
            if bars and not any(t.get_text() in ZERO_NOTES for t in ax.texts):
                all_zero_note(ax, [float(v) for c in bars for v in (c.datavalues if c.datavalues is not None else [])])
        path = self.out_dir / "charts" / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".png")
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110, bbox_inches="tight")
        self.plt.close(fig)
        self.files.append(path)
        return f"charts/{path.name}"

    def language_bars(
        self,
        series: Mapping[str, Mapping[str, float]],
        title: str,
        name: str,
        errors: Mapping[str, Mapping[str, tuple[float, float] | None]] | None = None,
    ) -> str | None:
        """Horizontal grouped bars: one group per language (or slice value), one bar per run; ``errors``: the
        95% interval (low, high) of each bar (Wilson, drawn around the bar; the title says how it was computed)."""
        if self.plt is None or not series:
            return None
        groups = sorted({g for s in series.values() for g in s})
        n = len(series)
        height = 0.8 / n
        fig, ax = self.plt.subplots(figsize=(7, max(2.0, 0.28 * len(groups) * max(1, n**0.5) + 1)))
        for i, (label, values) in enumerate(series.items()):
            ys = [j + i * height for j in range(len(groups))]
            shown = [number(values.get(g)) for g in groups]
            bounds = [(errors or {}).get(label, {}).get(g) for g in groups]
            xerr = None
            if any(b is not None for b in bounds):  # asymmetric: [value - low], [high - value]
                xerr = [
                    [max(0.0, (v or 0.0) - b[0]) if b else 0.0 for v, b in zip(shown, bounds)],
                    [max(0.0, b[1] - (v or 0.0)) if b else 0.0 for v, b in zip(shown, bounds)],
                ]
            bars = ax.barh(
                ys,
                [v or 0.0 for v in shown],
                height=height,
                label=label,
                xerr=xerr,
                error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333"},
            )
            # Every bar says its value: a zero-length bar (or a missing value) is not an empty axis. The label sits at
            # the bar's end, over its error bar (bar_label puts it past the error bar: a 0 read as the bound, 25).
            for bar, v in zip(bars, shown):
                ax.annotate(
                    MISSING if v is None else fmt(v, 1),
                    (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                    xytext=(2, 0),
                    textcoords="offset points",
                    va="center",
                    fontsize="x-small",
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.3, "alpha": 0.8},
                )
        ax.set_yticks([j + height * (n - 1) / 2 for j in range(len(groups))], groups)
        ax.invert_yaxis()
        ax.set_xlim(0, 105)
        ax.set_title(f"{title} (%)" + ("\nbars: 95% Wilson intervals within each group" if errors else ""))
        all_zero_note(ax, [v for values in series.values() for v in values.values()])
        ax.grid(axis="x", alpha=0.3)
        if n > 1:  # below the tick labels (about 0.3 inch), whatever the figure height
            offset = 0.3 / (ax.get_position().height * fig.get_figheight())
            ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -offset), ncol=min(n, 3))
        return self._save(fig, name)

    def radar(self, series: Mapping[str, Mapping[str, float | None]], title: str, name: str) -> str | None:
        """One polygon per run over the conditions (or any groups; three at least)."""
        if self.plt is None or not series:
            return None
        axes = sorted({c for s in series.values() for c in s})
        if len(axes) < 3:
            return None
        angles = [2 * math.pi * i / len(axes) for i in range(len(axes))]
        fig = self.plt.figure(figsize=(6.5, 6.5))
        ax = fig.add_subplot(projection="polar")
        for label, values in series.items():
            vals = [values.get(a) or 0.0 for a in axes]
            ax.plot(angles + angles[:1], vals + vals[:1], linewidth=1.5, label=label)
            ax.fill(angles + angles[:1], vals + vals[:1], alpha=0.1)
        ax.set_xticks(angles, [a.replace("_", " ") for a in axes], fontsize="small")
        ax.set_ylim(0, 100)
        ax.set_title(title, pad=24)
        all_zero_note(ax, [v for values in series.values() for v in values.values()])
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=min(len(series), 3))
        return self._save(fig, name)

    def curve(
        self,
        series: Mapping[str, Sequence[Any]],
        xs: Sequence[str],
        title: str,
        x_label: str,
        y_label: str,
        name: str,
        errors: Mapping[str, Sequence[tuple[float, float] | None]] | None = None,
    ) -> str | None:
        """One line per run over ordered x values (missing points are gaps); ``errors``: each point's 95% interval
        (low, high), as the table writes it (:func:`food_tasks.report.cells.interval_of`: within 0-100 % for a
        proportion), drawn asymmetric around the point."""
        if self.plt is None or not series:
            return None
        fig, ax = self.plt.subplots(figsize=(6, 3.6))
        for label, ys in series.items():
            values = [y if isinstance(y, (int, float)) else float("nan") for y in ys]
            bounds = list((errors or {}).get(label, []))
            widths = [
                [max(0.0, v - b[0]) if b and math.isfinite(v) else 0.0 for v, b in zip(values, bounds)],
                [max(0.0, b[1] - v) if b and math.isfinite(v) else 0.0 for v, b in zip(values, bounds)],
            ]
            if any(widths[0]) or any(widths[1]):
                ax.errorbar(range(len(xs)), values, yerr=widths, marker="o", capsize=3, label=label)
            else:
                ax.plot(range(len(xs)), values, marker="o", label=label)
        ax.set_xticks(range(len(xs)), xs)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        return self._save(fig, name)

    def heatmap(
        self,
        rows: Sequence[str],
        cols: Sequence[str],
        matrix: Sequence[Sequence[Any]],
        name: str,
        lower_is_better: Sequence[bool] = (),
    ) -> str | None:
        """Colour per column (min-max over runs, reversed for error scores), raw values written in the cells."""
        if self.plt is None:
            return None
        fig, ax = self.plt.subplots(figsize=(1.3 * len(cols) + 2.5, 0.55 * len(rows) + 1.8))
        norm = []
        for j in range(len(cols)):
            col = [row[j] for row in matrix if isinstance(row[j], (int, float)) and not math.isnan(row[j])]
            lo, hi = (min(col), max(col)) if col else (0.0, 1.0)
            norm.append(
                [
                    ((row[j] - lo) / (hi - lo) if hi > lo else 0.5)
                    if isinstance(row[j], (int, float)) and not math.isnan(row[j])
                    else float("nan")
                    for row in matrix
                ]
            )
            if j < len(lower_is_better) and lower_is_better[j]:
                norm[-1] = [1.0 - v for v in norm[-1]]
        data = [[norm[j][i] for j in range(len(cols))] for i in range(len(rows))]
        ax.imshow(data, cmap="viridis", aspect="auto", vmin=0, vmax=1)
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                text = (
                    MISSING
                    if value is None
                    else UNDEFINED
                    if is_nan(value)
                    else (f"{value:.3f}" if isinstance(value, float) and abs(value) <= 1 else fmt(value, 1))
                )
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    color="white" if (data[i][j] or 0) < 0.6 else "black",
                    fontsize="small",
                )
        ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right", fontsize="small")
        ax.set_yticks(range(len(rows)), rows)
        ax.set_title(
            "Headline numbers (colour: position between the column's worst and best run"
            + ("; lower is better for MAPE/MAE/RMSE)" if any(lower_is_better) else ")")
        )
        return self._save(fig, name)


ZERO_NOTES = ("all values 0", "no values")  # what :func:`all_zero_note` writes


def all_zero_note(ax: Axes, values: Iterable[Any]) -> None:
    """Say so on a chart whose values are all 0 (or missing): its bars or polygons have no area."""
    numbers = [v for v in map(number, values) if v is not None and not math.isnan(v)]
    if any(numbers):
        return
    ax.text(
        0.5,
        0.5,
        ZERO_NOTES[0] if numbers else ZERO_NOTES[1],
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize="large",
        color="#555",
        bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "#bbb"},
    )

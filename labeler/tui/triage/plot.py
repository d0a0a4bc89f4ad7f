"""The frontier in the terminal: recall against chunk count and against duplicate pressure.

The points are `evaluator.runs.frontier.frontier_points`, the same numbers frontier.svg in the
run folder draws. Each candidate is a letter (`B` the baseline, `1`, `2`… the others) so
the plots read without colour; a dotted line joins the Pareto front (more recall for
less); ticks and the legend print values in the registry's formats.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.color import Color
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static
from textual_plotext import PlotextPlot

from evaluator.metrics.registry import CHUNK_COUNT, DUPLICATES, RECALL, shown
from evaluator.runs.frontier import FrontierPoint, frontier_points
from labeler.core.display import shown as safe
from labeler.tui.triage.model import RunView

PANELS = (("chunk_count", CHUNK_COUNT, "recall@k vs chunks"),
          ("duplicate_pairs", DUPLICATES, "recall@k vs dup pairs@k"))  # fmt: skip
"""The x value, its registry name (for the tick format) and the title of each plot."""
TICKS = (0.1, 0.37, 0.63, 0.9)
"""Where the ticks sit across an axis: inside it, so no label runs past the frame."""


def pareto(points: Sequence[FrontierPoint], x_of: str) -> list[FrontierPoint]:
    """The points no other beats on both counts (more recall, smaller x), by x: the line
    a reviewer reads a trade-off along."""
    front: list[FrontierPoint] = []
    for p in sorted(points, key=lambda p: (float(getattr(p, x_of)), -p.recall)):
        if not front or p.recall > front[-1].recall:
            front.append(p)
    return front


def staircase(front: Sequence[FrontierPoint], x_of: str) -> tuple[list[float], list[float]]:
    """The front as steps: right at a point's recall, then up to the next point, so the
    line meets every point however coarse the terminal's rows."""
    xs: list[float] = []
    ys: list[float] = []
    for p in front:
        x = float(getattr(p, x_of))
        if ys:
            xs.append(x)
            ys.append(ys[-1])
        xs.append(x)
        ys.append(p.recall)
    return xs, ys


def ticks(low: float, high: float, name: str) -> tuple[list[float], list[str]]:
    """Tick positions across [low, high], labelled in the registry's format for `name`."""
    values = [low + (high - low) * f for f in TICKS]
    return values, [shown(name).text(v) for v in values]


def markers(points: Sequence[FrontierPoint]) -> list[str]:
    """`B` for the baseline, then 1, 2, 3… in run order."""
    out, n = [], 0
    for p in points:
        if p.baseline:
            out.append("B")
        else:
            n += 1
            out.append(str(n) if n < 10 else chr(ord("a") + n - 10))
    return out


def limits(values: Sequence[float], floor: float | None = None) -> tuple[float, float]:
    """A range around the values with a margin, so no point sits on the frame."""
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.15 or max(abs(hi) * 0.1, 0.05)
    low = lo - pad if floor is None else max(floor, lo - pad)
    return low, hi + pad


class FrontierView(Vertical):
    """Two scatter plots side by side and a legend with the plotted values."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="frontier-plots"):
            for x_of, _, _ in PANELS:
                yield PlotextPlot(id=f"plot-{x_of.replace('_', '-')}")
        yield Static(id="frontier-legend")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _: self._draw())

    def show(self, run: RunView, chosen: str | None) -> None:
        self._points = frontier_points(run.file)
        self._chosen = chosen
        self._draw()

    def _colour(self, point: FrontierPoint) -> tuple[int, int, int]:
        return Color.parse(self.app.theme_variables.get(self._role(point), "white")).rgb

    def _muted(self) -> tuple[int, int, int]:
        # `$text-muted` is `auto 60%`, no colour by itself; the panel border's is one.
        return Color.parse(self.app.theme_variables.get("secondary", "grey")).rgb

    def _role(self, point: FrontierPoint) -> str:
        """The baseline and the chosen candidate in the boundary view's two roles."""
        if point.baseline:
            return "boundary-baseline"
        return "boundary-candidate" if point.name == self._chosen else "foreground"

    def _draw(self) -> None:
        points = getattr(self, "_points", [])
        if not points:
            return
        marks = markers(points)
        recalls = limits([p.recall for p in points], floor=0.0)
        for x_of, name, title in PANELS:
            plot = self.query_one(f"#plot-{x_of.replace('_', '-')}", PlotextPlot)
            plt = plot.plt
            plt.clear_data()
            plt.clear_figure()
            plt.title(title)
            xs = [float(getattr(p, x_of)) for p in points]
            front = pareto(points, x_of)
            if len(front) > 1:
                plt.plot(*staircase(front, x_of), marker="dot", color=self._muted())
            for p, x, mark in zip(points, xs, marks, strict=True):
                plt.scatter([x], [p.recall], marker=mark, color=self._colour(p))
            plt.xlim(*limits(xs, floor=0.0))
            plt.ylim(*recalls)
            plt.xticks(*ticks(*limits(xs, floor=0.0), name))
            plt.yticks(*ticks(*recalls, RECALL))
            plot.refresh()
        self.query_one("#frontier-legend", Static).update(self._legend(points, marks))

    def _legend(self, points: Sequence[FrontierPoint], marks: Sequence[str]) -> Content:
        rows = [Content.styled(f"   {'candidate':<18}{'recall@k':>9}{'chunks':>8}{'dup@k':>7}",
                               "$text-muted")]  # fmt: skip
        for p, mark in zip(points, marks, strict=True):
            role = self._role(p)
            style = "bold" if role == "foreground" else f"bold ${role}"
            rows.append(Content.assemble(
                (f" {mark} ", style),
                f"{safe(p.name, lines=False)[:18]:<18}{shown(RECALL).text(p.recall):>9}"
                f"{shown(CHUNK_COUNT).text(p.chunk_count):>8}"
                f"{shown(DUPLICATES).text(p.duplicate_pairs):>7}",
            ))  # fmt: skip
        return Content("\n").join(rows)

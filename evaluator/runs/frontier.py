"""The frontier: recall against index size and against duplicate pressure, per candidate.

Points come from the RunFile so the SVG in the run folder and the triage screen's plot are
drawn from the same numbers. The SVG is written by hand: no plotting stack to install.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from evaluator.metrics.registry import CHUNK_COUNT, DUPLICATES, RECALL
from evaluator.runs.model import RunFile


@dataclass(frozen=True)
class FrontierPoint:
    name: str
    """Candidate."""
    recall: float
    """evidence_recall@k."""
    chunk_count: int
    """Chunks in its index."""
    duplicate_pairs: float
    """Mean duplicate pairs in the top k."""
    baseline: bool
    """Whether it is the baseline."""


def frontier_points(run: RunFile) -> list[FrontierPoint]:
    """One point per candidate, in run order; an undefined figure plots as 0."""
    return [
        FrontierPoint(
            c.name,
            float(c.metric(RECALL) or 0.0),
            int(c.metric(CHUNK_COUNT) or 0),
            float(c.metric(DUPLICATES) or 0.0),
            c.baseline,
        )
        for c in run.candidates
    ]


width, height, pad = 300.0, 220.0, 40.0
"""A panel's size and the margin of its axes, in SVG units."""


def _frame(title: str, left: float, low: str, high: str) -> list[str]:
    """A panel's group opened at `left`: its title, both axes and the x axis's two ends."""
    return [
        f'<g transform="translate({left},20)">',
        f'<text x="{width / 2}" y="0" text-anchor="middle" font-size="13">{escape(title)}</text>',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width}" y2="{height - pad}" stroke="#444"/>',
        f'<line x1="{pad}" y1="10" x2="{pad}" y2="{height - pad}" stroke="#444"/>',
        f'<text x="{pad}" y="{height - pad + 14}" font-size="10">{escape(low)}</text>',
        f'<text x="{width}" y="{height - pad + 14}" font-size="10" text-anchor="end">'
        f"{escape(high)}</text>",
    ]


def _panel(points: Sequence[FrontierPoint], x_of: str, title: str, left: float) -> list[str]:
    xs = [float(getattr(p, x_of)) for p in points]
    lo, hi = min(xs, default=0.0), max(xs, default=1.0)
    span = (hi - lo) or 1.0
    out = _frame(title, left, f"{lo:g}", f"{hi:g}")
    out.append(
        f'<text x="12" y="{height / 2}" font-size="11" transform="rotate(-90 12 {height / 2})">'
        "recall@k</text>"
    )
    for p, x in zip(points, xs, strict=True):
        cx = pad + (x - lo) / span * (width - pad - 20) + 10
        cy = (height - pad) - p.recall * (height - pad - 20)
        colour = "#d62728" if p.baseline else "#1f77b4"
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{colour}"/>')
        out.append(
            f'<text x="{cx + 6:.1f}" y="{cy - 4:.1f}" font-size="10">{escape(p.name)}</text>'
        )
    out.append("</g>")
    return out


COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2")
"""Line colours of the recall–budget panel, by candidate in run order (the baseline red)."""


def budget_curves(run: RunFile) -> list[tuple[str, list[int], list[float]]]:
    """(candidate, budgets, recall at each) for every candidate the run holds a curve of."""
    return [
        (c.name, list(c.curve["budgets"]), [float(r or 0.0) for r in c.curve["recall"]])
        for c in run.candidates
        if c.curve.get("budgets")
    ]


def _curve_panel(curves: Sequence[tuple[str, list[int], list[float]]], left: float) -> list[str]:
    """Recall against the budget (log₂ axis), one line per candidate (§17)."""
    budgets = sorted({b for _, bs, _ in curves for b in bs})
    lo, hi = math.log2(budgets[0]), math.log2(budgets[-1])
    span = (hi - lo) or 1.0
    out = _frame("recall vs budget", left, f"{budgets[0]}", f"{budgets[-1]} tokens")
    for n, (name, bs, recall) in enumerate(curves):
        xy = [
            (
                pad + (math.log2(b) - lo) / span * (width - pad - 20) + 10,
                (height - pad) - r * (height - pad - 20),
            )
            for b, r in zip(bs, recall, strict=True)
        ]
        colour = COLOURS[n % len(COLOURS)]
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}"/>')
        out.append(
            f'<text x="{pad + 6}" y="{14 + 12 * n}" font-size="10" fill="{colour}">'
            f"{escape(name)}</text>"
        )
    out.append("</g>")
    return out  # fmt: skip


def frontier_svg(
    points: Sequence[FrontierPoint],
    curves: Sequence[tuple[str, list[int], list[float]]] = (),
) -> str:
    """Recall against chunk count and duplicate pressure; with `curves`, against the budget."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{1020 if curves else 680}" '
        'height="260" font-family="sans-serif">',
        '<rect width="100%" height="100%" fill="white"/>',
        *_panel(points, "chunk_count", "recall vs chunk count", 10),
        *_panel(points, "duplicate_pairs", "recall vs duplicate pairs@k", 350),
        *(_curve_panel(curves, 690) if curves else []),
        "</svg>",
    ]
    return "\n".join(parts) + "\n"

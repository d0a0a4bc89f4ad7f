"""What a run keeps of its answers in run.json (§9, §23): the generator and its decoding,
what asking did (asked, cached, refused, failed), each candidate's checks, and each
candidate's comparison with the baseline; per-query records live in generation.jsonl.

Plain values with `to_json`; `evaluator.runs.model_generation` reads them back, since the
run.json reader is the runs wing's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.generation.compare import AnswerComparison, CandidateAnswers, CheckComparison


@dataclass(frozen=True)
class Asking:
    """The generator and what asking it did, for the manifest and every header."""

    model: str
    url: str
    """Redacted (no key in a URL is kept)."""
    template: str
    template_sha256: str
    decoding: str
    """`temperature=0;seed=…;max_tokens=…`."""
    abstention: str
    send: str
    """`hit` or `all`."""
    asked: int
    """Prompts the server answered this run (the cache did not hold them)."""
    cached: int
    """Prompts the answer cache held: the server was not asked."""
    refused: int
    failed: Mapping[str, int]
    """Failure kind -> prompts (`not asked` included)."""
    seconds: float
    """Wall time of the stage."""

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model, "url": self.url, "template": self.template,
            "template_sha256": self.template_sha256, "decoding": self.decoding,
            "abstention": self.abstention, "send": self.send, "asked": self.asked,
            "cached": self.cached, "refused": self.refused, "failed": dict(self.failed),
            "seconds": round(self.seconds, 3),
        }  # fmt: skip

    def line(self) -> str:
        """`answers: 12 asked, 30 from the cache, 1 refused, 2 failed (timeout 2)`."""
        failed = sum(self.failed.values())
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.failed.items()))
        tail = f", {failed:,} failed ({kinds})" if failed else ""
        rate = f"; {self.asked / self.seconds:.1f} answers/s" if self.asked and self.seconds else ""
        return (f"answers: {self.asked:,} asked, {self.cached:,} from the cache, "
                f"{self.refused:,} refused{tail}{rate}")  # fmt: skip


@dataclass(frozen=True)
class GenerationSummary:
    """run.json's `generation`: the generator and what asking did, each candidate's checks,
    each candidate's answers against the baseline's, and the answers file's digest."""

    asking: Asking
    """Model, redacted URL, template and its sha256, decoding, abstention phrase, `send`,
    and the counts: asked, cached, refused, failed by kind, seconds."""
    candidates: tuple[CandidateAnswers, ...]
    """Baseline first, in run order."""
    comparisons: Mapping[str, AnswerComparison]
    """Candidate -> against the baseline."""
    answers_sha256: str = ""
    """`sha256:` of generation.jsonl beside run.json (empty until written)."""

    def candidate(self, name: str) -> CandidateAnswers | None:
        return next((c for c in self.candidates if c.name == name), None)

    def to_json(self) -> dict[str, Any]:
        a = self.asking
        return {
            "asking": a.to_json(),
            "candidates": {c.name: c.to_json() for c in self.candidates},
            "comparisons": {n: comparison_json(c) for n, c in self.comparisons.items()},
            "answers": {"file": "generation.jsonl", "sha256": self.answers_sha256},
        }


def check_json(c: CheckComparison) -> dict[str, Any]:
    i = c.interval
    return {
        "baseline": c.baseline, "candidate": c.candidate, "gained": list(c.gained),
        "lost": list(c.lost), "pairs": c.pairs, "mcnemar_p": c.mcnemar_p,
        "interval": None if i is None else {"mean_difference": i.mean_difference, "low": i.low,
                                            "high": i.high, "resamples": i.resamples,
                                            "seed": i.seed},
    }  # fmt: skip


def comparison_json(c: AnswerComparison) -> dict[str, Any]:
    return {
        "checks": {n: check_json(k) for n, k in c.checks.items()},
        "effects": [e.__dict__ for e in c.effects],
        "recall_delta": c.recall_delta,
        "overlapping": list(c.overlapping),
    }

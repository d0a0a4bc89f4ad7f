"""run.json's `generation` section read back (§23): the values of
`evaluator.generation.summary`, each key checked by the run reader, so `diff`, triage and a
report of a stored run see the answers' figures as the run wrote them.
"""

from __future__ import annotations

from evaluator.generation.compare import (
    EFFECTS,
    AnswerComparison,
    CandidateAnswers,
    CheckComparison,
    Effect,
)
from evaluator.generation.run_file import CHECKS
from evaluator.generation.summary import Asking, GenerationSummary
from evaluator.metrics.compare import Interval
from evaluator.runs.model_json import Reader


def read_generation(r: Reader) -> GenerationSummary:
    a = r.at("asking")
    asking = Asking(
        a.at("model").text(), a.at("url").text(), a.at("template").text(),
        a.at("template_sha256").text(), a.at("decoding").text(), a.at("abstention").text(),
        a.at("send").text(), a.at("asked").count(), a.at("cached").count(),
        a.at("refused").count(), {k: v.count() for k, v in a.at("failed").items()},
        a.at("seconds").number(0.0),
    )  # fmt: skip
    return GenerationSummary(
        asking,
        tuple(_candidate(n, c) for n, c in r.at("candidates").items()),
        {n: _comparison(n, c) for n, c in r.at("comparisons").items()},
        r.at("answers").at("sha256").text(),
    )


def _checks(r: Reader) -> dict[str, float | None]:
    found = r.numbers()
    if unknown := set(found) - set(CHECKS):
        r.fail(f"unknown check {min(unknown)!r}")
    return found


def _candidate(name: str, r: Reader) -> CandidateAnswers:
    return CandidateAnswers(name, _checks(r.at("values")), r.at("sent").count(),
                            r.at("answered").count(), r.at("refused").count(),
                            r.at("failed").count())  # fmt: skip


def _comparison(name: str, r: Reader) -> AnswerComparison:
    checks = {n: _check(n, c) for n, c in r.at("checks").items()}
    if unknown := set(checks) - set(CHECKS):
        r.at("checks").fail(f"unknown check {min(unknown)!r}")
    base, cand = (x.number(0.0) for x in r.at("overlapping").at_most(2, "two sides"))
    return AnswerComparison(name, checks, tuple(_effect(e) for e in r.at("effects").array()),
                            r.at("recall_delta").opt_number(), (base, cand))  # fmt: skip


def _check(name: str, r: Reader) -> CheckComparison:
    return CheckComparison(
        name, r.at("baseline").opt_number(), r.at("candidate").opt_number(),
        r.at("gained").texts(), r.at("lost").texts(), r.at("pairs").count(),
        r.at("interval").nullable(lambda i: _interval(i, r.at("pairs").count())),
        r.at("mcnemar_p").opt_number(),
    )  # fmt: skip


def _interval(r: Reader, pairs: int) -> Interval:
    return Interval(r.at("mean_difference").number(), r.at("low").number(),
                    r.at("high").number(), pairs, r.at("resamples").count(),
                    r.at("seed").integer())  # fmt: skip


def _effect(r: Reader) -> Effect:
    kind = r.at("kind").text()
    if kind not in EFFECTS:
        r.at("kind").fail(f"must be one of {', '.join(EFFECTS)}")
    return Effect(r.at("query").text(), kind, r.at("recall_delta").number(),
                  r.at("completeness_delta").number(), r.at("duplicate").flag())  # fmt: skip

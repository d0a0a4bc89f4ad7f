"""JUnit XML for CI (§9), from a RunFile: one suite per compared candidate, with a case per
gate and per answerable query — failing for a broken gate and, in a candidate that fails
its gates, for a lost query; passing for the rest, a passing candidate's losses in their
cases' output — so a CI that fails on any failing case agrees with `gate` (§9). The
baseline has a suite of its own when a check of its answers judged it (§23).

A lost query's message says its slices, pattern, cause, ranks and coverage; query text
appears only in a run made with `--include-text`. Suites carry the candidate's timings.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from evaluator.metrics.compare import Status
from evaluator.runs.budget_text import basis_name
from evaluator.runs.gate_text import gate_basis, gate_line
from evaluator.runs.generation_text import answer_cases
from evaluator.runs.model import RunFile
from evaluator.runs.model_queries import QueryRecord
from evaluator.runs.verdict_words import cause_text, loss_scope
from labeler.core.display import shown


def junit_xml(run: RunFile) -> str:
    suites = ET.Element("testsuites", name="spanlab", id=run.id, time=f"{run.seconds:.3f}")
    tests = failures = 0
    for name in run.gated:
        suite = _suite(run, name)
        suites.append(suite)
        tests += int(suite.get("tests", "0"))
        failures += int(suite.get("failures", "0"))
    suites.set("tests", str(tests))
    suites.set("failures", str(failures))
    ET.indent(suites)
    xml = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")
    # XML 1.0 holds no C0 control but tab and newline, even escaped: a name or question
    # holding one is written as a visible escape (`\x1b`), so the file stays well-formed.
    return shown(xml)


def _suite(run: RunFile, name: str) -> ET.Element:
    timings = run.candidate(name).timings
    seconds = sum(float(timings.get(k) or 0.0) for k in ("chunk_seconds", "index_seconds"))
    suite = ET.Element("testsuite", name=name, time=f"{seconds:.3f}")
    failures = 0
    passed = run.passed_for(name)
    for g in (g for g in run.gates if g.candidate == name):
        case = ET.SubElement(suite, "testcase", classname=f"{name}.gates",
                             name=f"{g.scope}.{g.gate}", time="0")  # fmt: skip
        if not g.passed:
            failures += 1
            ET.SubElement(case, "failure", type="gate", message=gate_line(g, gate_basis(run)))
    for qid, entry in run.queries.items():
        if not entry.answerable or name == run.baseline.name:  # the baseline: its checks only
            continue
        case = ET.SubElement(suite, "testcase", classname=f"{name}.queries", name=qid, time="0")
        if entry.candidates[name].status != Status.LOST:
            continue
        if not passed:  # a candidate that passes its gates has no failing case (§9)
            failures += 1
            failure = ET.SubElement(
                case, "failure", type="lost", message=lost_message(run, entry, name)
            )
            if run.manifest.include_text and entry.text is not None:
                failure.text = entry.text
        else:
            out = ET.SubElement(case, "system-out")
            out.text = f"{lost_message(run, entry, name)} (the candidate passes its gates)"
    for check, said in answer_cases(run, name):
        case = ET.SubElement(suite, "testcase", classname=f"{name}.answers", name=check, time="0")
        ET.SubElement(case, "system-out").text = said
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    return suite


def lost_message(run: RunFile, entry: QueryRecord, name: str) -> str:
    """`lost at k = 5 against base: slices critical · pattern … · cause split (…) · e1 rank
    –, top 5 cover 100%`: the queries lost at k, so the basis is named (the gates may
    count at budget)."""
    result = entry.candidates[name]
    cause = cause_text(result)
    if scope := loss_scope(run, name, entry.id):
        cause += f" · {scope}"
    ranks = result.first_match_ranks or ()
    cover = result.coverage or ()
    spans = []
    for n in range(len(entry.evidence)):
        rank = ranks[n] if n < len(ranks) and ranks[n] is not None else "–"
        share = f"{cover[n]:.0%}" if n < len(cover) else "–"
        spans.append(f"e{n + 1} rank {rank}, top {run.manifest.settings.k} cover {share}")
    return (
        f"lost at {basis_name(run, 'k')} against {run.baseline.name}: "
        f"slices {', '.join(entry.slices) or '–'}"
        f" · pattern {entry.boundary} · cause {cause} · {'; '.join(spans)}"
    )

"""JUnit XML for CI, from a RunFile: one test case per gate (failing when broken) and per
lost query.

Lost queries are reported as skipped cases carrying their cause, so a CI page lists them
without failing a build that the gates allow.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from evaluator.metrics.compare import Status
from evaluator.runs.model import RunFile


def junit_xml(run: RunFile) -> str:
    suites = ET.Element("testsuites", name="spanlab", id=run.id)
    gates = ET.SubElement(suites, "testsuite", name="gates")
    failures = 0
    for g in run.gates:
        case = ET.SubElement(
            gates, "testcase", classname=f"gates.{g.candidate}", name=f"{g.scope}.{g.gate}"
        )
        if not g.passed:
            failures += 1
            ET.SubElement(
                case,
                "failure",
                type="gate",
                message=f"{g.gate} {g.value:g} breaks limit {g.limit:g} ({g.scope})",
            )
    gates.set("tests", str(len(run.gates)))
    gates.set("failures", str(failures))
    for name, comp in run.comparisons.items():
        lost = comp.with_status(Status.LOST)
        suite = ET.SubElement(
            suites, "testsuite", name=f"lost.{name}", tests=str(len(lost)), skipped=str(len(lost))
        )
        for change in sorted(lost, key=lambda c: c.query):
            case = ET.SubElement(suite, "testcase", classname=f"lost.{name}", name=change.query)
            ET.SubElement(case, "skipped", message=f"lost against baseline: {change.cause}")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")

"""Write a run to `.spanlab/runs/<id>/`: run.json, report.md, junit.xml, frontier.svg (§9).

Offsets and hashes only: no document, chunk or query text leaves the machine in these
files unless the user asked for `--include-text`.
"""

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator.metrics.compare import Status
from evaluator.runs import index as runs_index
from evaluator.runs.frontier import frontier_points, frontier_svg
from evaluator.runs.junit import junit_xml

if TYPE_CHECKING:
    from evaluator.pipeline.result import CandidateRun, RunResult

FORMAT = "spanlab.run/1"
PUBLISHED = (
    "Published beside these (Chroma, *Evaluating Chunking Strategies for Retrieval*, 2024, "
    "all-MiniLM-L6-v2): tokens 250/125 recall 82.4; recursive 200/0 recall 76.6, IoU 4.1 — "
    "compare with C-recall and IoU × 100."
)
SUMMARY = (
    ("evidence_recall@k", "recall@k", "{:.3f}"),
    ("hit@k", "hit@k", "{:.3f}"),
    ("oracle_recall", "oracle", "{:.3f}"),
    ("chroma_recall", "C-recall", "{:.3f}"),
    ("chroma_precision", "C-prec", "{:.4f}"),
    ("chroma_iou", "IoU", "{:.4f}"),
    ("chroma_precision_omega", "P-Ω", "{:.3f}"),
    ("duplicate_pairs@k", "dup pairs", "{:.2f}"),
    ("prompt_tokens@k", "prompt tok", "{:.0f}"),
    ("chunk_count", "chunks", "{:.0f}"),
)


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for dist in ("spanlab", "chromadb", "transformers", "tokenizers", "onnxruntime", "numpy"):
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[dist] = "not installed"
    return found


def _ranked_json(run: CandidateRun, qid: str) -> list[list[Any]]:
    return [
        [r.chunk.id, r.chunk.doc, r.chunk.start, r.chunk.end, round(r.score, 6)]
        for r in run.ranked[qid]
    ]


def run_json(result: RunResult, *, include_text: bool) -> dict[str, Any]:
    settings = result.candidates_file.settings
    base = settings.baseline
    queries: dict[str, Any] = {}
    for q in result.queries:
        entry: dict[str, Any] = {
            "abstain": q.abstain,
            "boundary": q.boundary.value,
            "slices": list(q.slices),
            "evidence": [{"doc": s.doc, "start": s.start, "end": s.end} for s in q.evidence],
            "candidates": {},
        }
        if include_text:
            entry["text"] = q.text
        for name, run in result.runs.items():
            change = result.comparisons[name].queries[q.id] if name != base else None
            entry["candidates"][name] = {
                "ranked": _ranked_json(run, q.id),
                "values": run.result.per_query[q.id],
                "status": None if change is None else change.status,
                "cause": None if change is None else change.cause,
            }
        queries[q.id] = entry
    return {
        "format": FORMAT,
        "id": result.id,
        "started": result.started,
        "seconds": round(result.seconds, 3),
        "passed": result.passed,
        "manifest": {
            "versions": versions(),
            "corpus_hash": result.corpus.hash,
            "label_set_hash": result.label_set_hash,
            "candidates_file": {
                "path": result.candidates_file.path,
                "hash": result.candidates_file.hash,
            },
            "settings": settings.__dict__,
            "seeds": {"bootstrap": settings.seed},
            "embedding": result.embedding,
            "include_text": include_text,
            "skipped_queries": list(result.skipped),
        },
        "candidates": {
            name: {
                "baseline": name == base,
                "splitter": run.candidate.spec.fingerprint_fields(),
                "splitter_fingerprint": run.candidate.spec.fingerprint(),
                "metrics": run.metrics(),
                "breakdowns": run.result.to_json()["breakdowns"],
                "timings": run.timings,
                "embeddings": run.embeddings,
                "index": run.extra,
            }
            for name, run in result.runs.items()
        },
        "comparisons": {name: comp.to_json() for name, comp in result.comparisons.items()},
        "gates": [g.to_json() for g in result.gates],
        "queries": queries,
    }


def _fmt(value: Any, pattern: str) -> str:
    return "–" if value is None else pattern.format(value)


def embedding_name(result: RunResult) -> str:
    if result.candidates_file.settings.retriever == "lexical":
        return "none (lexical)"
    return str(result.embedding.get("model_id", result.candidates_file.settings.embedding))


def skipped_note(result: RunResult) -> str | None:
    if not result.skipped:
        return None
    shown = ", ".join(result.skipped[:8]) + (" …" if len(result.skipped) > 8 else "")
    return (
        f"{len(result.skipped)} quer(y/ies) without evidence and not marked abstain were "
        f"left out (drafts not yet labelled): {shown}"
    )


def report_md(result: RunResult, *, include_text: bool) -> str:
    settings = result.candidates_file.settings
    texts = {q.id: q.text for q in result.queries}
    verdict = "**PASS**" if result.passed else "**FAIL**"
    lines = [
        f"# spanlab run {result.id} — {verdict}",
        "",
        f"{len(result.queries)} queries ({sum(q.answerable for q in result.queries)} answerable)"
        f" · k={settings.k} · depth={settings.depth} · retriever `{settings.retriever}`"
        f" · embedding `{embedding_name(result)}`"
        f" · baseline `{settings.baseline}`",
        "",
        *([f"_{note}_", ""] if (note := skipped_note(result)) else []),
        "| candidate | " + " | ".join(h for _, h, _ in SUMMARY)
        + " | gained | lost | Δ recall [95% CI] | McNemar p |",
        "|---" * (len(SUMMARY) + 5) + "|",
    ]  # fmt: skip
    for name, run in result.runs.items():
        metrics = run.metrics()
        cells = [_fmt(metrics.get(key), pattern) for key, _, pattern in SUMMARY]
        comp = result.comparisons.get(name)
        if comp is None:
            extra = ["baseline", "", "", ""]
        else:
            sig = comp.significance
            ci = sig.recall_interval
            delta = comp.overall.deltas.get("evidence_recall@k")
            ci_text = "" if ci is None else f" [{ci.low:+.3f}, {ci.high:+.3f}]"
            p = "too small" if not sig.decisive else _fmt(sig.mcnemar_p, "{:.3g}")
            extra = [
                str(comp.overall.counts.gained),
                str(comp.overall.counts.lost),
                _fmt(delta, "{:+.3f}") + ci_text,
                p,
            ]
        lines.append(f"| `{name}` | " + " | ".join(cells + extra) + " |")
    if result.candidates_file.path == "preset:chroma-report":
        lines += ["", PUBLISHED]
    lines += ["", "![frontier](frontier.svg)", "", "## Gates", ""]
    if result.gates:
        lines += ["| candidate | scope | gate | limit | value | |", "|---|---|---|---|---|---|"]
        for g in result.gates:
            mark = "pass" if g.passed else "**FAIL**"
            lines.append(
                f"| `{g.candidate}` | {g.scope} | {g.gate} | {g.limit:g} | "
                f"{_fmt(g.value, '{:.4g}')} | {mark} |"
            )
    else:
        lines.append("No gates declared.")
    lines += breakdown_tables(result)
    for name, comp in result.comparisons.items():
        sig = comp.significance
        lines += ["", f"## `{name}` against `{settings.baseline}`", ""]
        if not sig.decisive:
            lines.append(f"_{sig.reason}_")
            lines.append("")
        for status, title in ((Status.LOST, "Lost"), (Status.GAINED, "Gained")):
            changes = comp.with_status(status)
            lines.append(f"**{title} ({len(changes)})**")
            lines.append("")
            for change in sorted(changes, key=lambda c: c.query):
                facets = result.runs[name].result.facets[change.query]
                cause = f" — {change.cause}" if change.cause else ""
                tags = ", ".join([facets.boundary, *facets.slices])
                text = f" “{texts[change.query]}”" if include_text else ""
                lines.append(f"- `{change.query}` ({tags}){cause}{text}")
            lines.append("")
        lines.append(f"Inspect one: `spanlab show {result.id} QUERY --candidate {name}`")
    lines += [
        "",
        "Run folder holds offsets and hashes only"
        + (" — and text, because --include-text was given." if include_text else "."),
    ]
    return "\n".join(lines) + "\n"


def breakdown_tables(result: RunResult) -> list[str]:
    """Recall by slice and by boundary pattern: baseline, then each candidate's change."""
    base = result.runs[result.candidates_file.settings.baseline].result
    names = list(result.comparisons)
    lines: list[str] = []
    for dim, title in (("slice", "slice"), ("boundary", "boundary pattern")):
        groups = base.breakdowns.get(dim, {})
        if not groups:
            continue
        heads = " | ".join(f"`{n}` Δ (lost)" for n in names)
        rule = "|---" * (3 + len(names)) + "|"
        lines += ["", f"## Recall@k by {title}", "", f"| {title} | queries | baseline | {heads} |"]
        lines.append(rule)
        for key, group in groups.items():
            cells = []
            for name in names:
                cmp = result.comparisons[name].breakdowns.get(dim, {}).get(key)
                if cmp is None:
                    cells.append("–")
                    continue
                delta = _fmt(cmp.deltas.get("evidence_recall@k"), "{:+.3f}")
                lost = cmp.counts.lost
                cells.append(f"{delta} (**{lost}**)" if lost else f"{delta} (0)")
            recall = _fmt(group.metrics.get("evidence_recall@k"), "{:.3f}")
            lines.append(f"| {key} | {group.queries} | {recall} | " + " | ".join(cells) + " |")
    return lines


def write_run(result: RunResult, runs_dir: Path, *, include_text: bool = False) -> Path:
    """Write every file of the run; returns the run folder."""
    folder = runs_dir / result.id
    folder.mkdir(parents=True, exist_ok=False)
    data = run_json(result, include_text=include_text)
    (folder / "run.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    (folder / "report.md").write_text(report_md(result, include_text=include_text), "utf-8")
    (folder / "junit.xml").write_text(junit_xml(result), encoding="utf-8")
    (folder / "frontier.svg").write_text(frontier_svg(frontier_points(data)), encoding="utf-8")
    runs_index.record(runs_dir, data, folder)
    return folder

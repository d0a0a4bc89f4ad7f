"""`spanlab labels import | export | stats`: labels in and out of the store, and counts.

Import validates a whole file before it writes anything (one transaction); export refuses
while any span waits for review. The formats themselves live in `labeler.core.formats`.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from labeler.cli._common import (
    AnnotatorOpt,
    CorpusOpt,
    DbOpt,
    JsonFlag,
    annotator_name,
    handles_errors,
    open_project,
    say,
)
from labeler.core import formats as label_formats
from labeler.core.names import check_name

if TYPE_CHECKING:  # each command imports what it runs, so `spanlab label` starts sooner
    from labeler.core.agreement import Report, Summary

group = typer.Typer(
    help="Import, export and count labels.",
    epilog="Example: spanlab labels export frozen.json",
    no_args_is_help=True,
)
"""`spanlab labels …`."""


FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format", "-f",
        help=f"One of: {', '.join(label_formats.FORMATS)} (default: guessed from the file).",
    ),
]  # fmt: skip


@group.command(
    "import", epilog="Example: spanlab labels import misses.txt --slice production-misses"
)
@handles_errors
def labels_import(
    file: Annotated[Path, typer.Argument(help="The file to import.")],
    fmt: FormatOpt = None,
    replace: Annotated[bool, typer.Option(help="Overwrite queries with the same id.")] = False,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
    annotator: AnnotatorOpt = None,
    label: Annotated[
        list[str] | None,
        typer.Option(
            "--label",
            help="Label Studio: span labels that count as evidence "
            "(repeatable; default every label).",
        ),
    ] = None,
    slices: Annotated[
        list[str] | None,
        typer.Option("--slice", help="Tag every imported query with this slice (repeatable)."),
    ] = None,
    skip_bad: Annotated[
        bool,
        typer.Option(
            "--skip-bad",
            help="Skip records whose fields cannot be read (counted and named) instead of "
            "refusing the file: Prodigy, doccano, Argilla, Label Studio JSON-MIN/CSV.",
        ),
    ] = False,
) -> None:
    """Validate a label file completely, then write it in one transaction."""
    proj, docs, store, status = open_project(corpus, db)
    if fmt is None:
        fmt = label_formats.guess(file)
        if fmt != "spanlab":
            say(f"reading {file} as {fmt} (pass --format to choose)", err=True)
    from labeler.core import imports

    done = imports.import_file(
        store, docs, status, file, fmt, annotator=annotator_name(annotator), replace=replace,
        encoding=proj.encoding, labels=frozenset(label) if label else None,
        slices=tuple(slices or ()), skip_bad=skip_bad,
    )  # fmt: skip
    if done.labels_seen:
        chosen = ", ".join(sorted(label)) if label else "all of them (choose with --label)"
        seen = ", ".join(sorted(done.labels_seen))
        say(f"span labels seen: {seen}; counted as evidence: {chosen}", err=True)
    if done.versions:
        say(f"{done.versions} annotator version(s) kept ({', '.join(done.annotators)}); "
                   "adjudicate them: `spanlab adjudicate`", err=True)  # fmt: skip
    if done.added:
        say(
            f"added {len(done.added)} document(s) from {file} to the corpus folder {docs.root}",
            err=True,
        )
    for w in done.warnings:
        say(f"warning: {w}", err=True)
    if done.summary:
        say(done.summary)
    same = done.total - done.imported
    unchanged = f" ({same} already in the store with the same labels)" if same else ""
    say(f"imported {done.imported} of {done.total} queries from {file}{unchanged}")


@group.command("export", epilog="Example: spanlab labels export frozen.json")
@handles_errors
def labels_export(
    out: Annotated[Path, typer.Argument(help="Where to write.")],
    fmt: FormatOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
) -> None:
    """Export the labels; refuses while any span is stale or orphaned."""
    _, docs, store, _ = open_project(corpus, db)
    from labeler.core import labelset

    data = labelset.export(store, docs)
    waiting = data.pop("waiting_for_adjudication", 0)
    if waiting:
        say(
            f"warning: {waiting} double-annotated quer(y/ies) wait for adjudication and are "
            "not exported (adjudicate them: `spanlab adjudicate`)",
            err=True,
        )
    drafts = [q["id"] for q in data["queries"] if not q["abstain"] and not q["evidence"]]
    if drafts:
        say(
            f"warning: {len(drafts)} quer(y/ies) have no evidence and are not marked abstain "
            f"({', '.join(drafts[:5])}{' …' if len(drafts) > 5 else ''}); eval leaves them out",
            err=True,
        )
    if fmt is None or fmt == "spanlab":
        labelset.write_json(data, out)
    else:
        label_formats.get(fmt).write(store.queries(), docs, out)
    say(f"wrote {len(data['queries'])} queries to {out}  ({data['label_set_hash']})")


@group.command("stats", epilog="Example: spanlab labels stats --json")
@handles_errors
def labels_stats(corpus: CorpusOpt = None, db: DbOpt = None, as_json: JsonFlag = False) -> None:
    """Counts by status, pattern, slice, document and annotator."""
    _, _, store, _ = open_project(corpus, db, reading=True)
    from labeler.core.stats import label_stats

    stats = label_stats(store.query_rows(), store.doc_span_counts(), store.work_by_annotator())
    if as_json:
        say(json.dumps(asdict(stats), indent=2))
        return
    say(render_stats(stats))


def render_stats(stats: Any) -> str:
    lines = [
        f"queries {stats.queries}  spans {stats.spans}  abstain {stats.abstain}  "
        f"multi-span {stats.multi_span}"
    ]
    for title, counts in (
        ("status", stats.by_status),
        ("pattern", stats.by_boundary),
        ("slice", stats.by_slice),
        ("document", stats.by_document),
        ("annotator", stats.by_annotator),
    ):
        lines.append(f"\n{title}")
        width = max((len(k) for k in counts), default=0)
        lines.extend(f"  {k:<{width}}  {v:>5}" for k, v in counts.items())
    if stats.work:
        width = max(len(k) for k in stats.work)
        lines.append(f"\nwork{'':<{width - 2}}created  spans  reviewed")
        lines.extend(
            f"  {who:<{width}}  {w['queries']:>7}  {w['spans']:>5}  {w['reviewed']:>8}"
            for who, w in stats.work.items()
        )
    return "\n".join(lines)


@group.command(
    "assign", epilog="Example: spanlab labels assign alice bob --copies 2 --slice critical"
)
@handles_errors
def labels_assign(
    annotators: Annotated[list[str], typer.Argument(help="Who gets a queue.")],
    copies: Annotated[int, typer.Option(help="Annotators per query (2: double annotation).")] = 1,
    slice_name: Annotated[
        str | None, typer.Option("--slice", help="Only queries in this slice.")
    ] = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
    annotator: AnnotatorOpt = None,
) -> None:
    """Put queries on annotators' queues, round robin; `U` in the app opens the next one."""
    _, _, store, _ = open_project(corpus, db)
    from labeler.core import assign

    for who in annotators:
        check_name(who, "annotator name", key="ANNOTATORS")
    pairs = assign.plan(store.query_rows(), annotators, copies=copies, slice_name=slice_name)
    added = store.assign(pairs, by=annotator_name(annotator))
    for who, ids in store.assigned().items():
        say(f"{who}: {len(ids)} queries")
    say(f"assigned {added} new (query, annotator) pairs", err=True)


@group.command("agreement", epilog="Example: spanlab labels agreement --json")
@handles_errors
def labels_agreement(corpus: CorpusOpt = None, db: DbOpt = None, as_json: JsonFlag = False) -> None:
    """Span agreement of double-annotated queries: overlap F1, exact spans, abstention, αu."""
    _, docs, store, _ = open_project(corpus, db)
    lengths = {d.id: len(d.text) for d in docs}
    from labeler.core.agreement import NO_DOUBLE, agreement

    report = agreement(store.query_rows(), store.versions(), lengths)
    if as_json:
        say(json.dumps(report_json(report), indent=2))
    elif report.overall is None:
        say(NO_DOUBLE, err=True)
    else:
        say(render_agreement(report))


def report_json(report: Report) -> dict[str, Any]:
    from labeler.core.agreement import NO_DOUBLE

    data = asdict(report)
    data["queries"] = [asdict(p) for p in report.queries[:50]]
    if report.overall is None:
        data["message"] = NO_DOUBLE
    return data


def render_agreement(report: Report) -> str:
    def line(name: str, s: Summary, width: int) -> str:
        alpha = "   n/a" if s.alpha is None else f"{s.alpha:6.3f}"
        return (f"  {name:<{width}}  F1 {s.f1:.3f}  exact {s.exact:.3f}  abstain {s.abstention:.3f}"
                f"  αu {alpha}  ({s.queries} queries, {s.pairs} pairs)")  # fmt: skip

    assert report.overall is not None
    lines = [f"{report.double} double-annotated queries", line("all", report.overall, 3)]
    tables = {"annotator pair": report.by_pair, "slice": report.by_slice,
              "pattern": report.by_pattern, "document": report.by_document}  # fmt: skip
    for title, table in tables.items():
        width = max((len(k) for k in table), default=0)
        lines += [f"\n{title}", *(line(k, v, width) for k, v in table.items())]
    worst = [p for p in report.queries if p.f1 < 1.0][:10]
    if worst:
        lines.append("\nleast agreement")
        lines += [f"  {p.query_id}  {'+'.join(p.pair)}  F1 {p.f1:.3f}" for p in worst]
    return "\n".join(lines)

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
    checked,
    handles_errors,
    member,
    open_project,
    project,
    say,
    sight,
)
from labeler.core import formats as label_formats
from labeler.core.errors import SpanlabError
from labeler.core.names import check_name
from labeler.core.team import roles as team
from labeler.core.team.roles import Act

if TYPE_CHECKING:  # each command imports what it runs, so `spanlab label` starts sooner
    from labeler.core.agreement import PairAgreement, Report, Summary
    from labeler.core.labels.imports import ImportResult

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


LabelOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--label",
        help="Label Studio (JSON, JSON-MIN, CSV): span labels that count as evidence "
        "(repeatable; default every label).",
    ),
]
SliceOpt = Annotated[
    list[str] | None,
    typer.Option("--slice", help="Tag every imported query with this slice (repeatable)."),
]
SkipBadOpt = Annotated[
    bool,
    typer.Option(
        "--skip-bad",
        help="Skip records whose fields cannot be read (counted and named) instead of "
        "refusing the file: Prodigy, doccano, Argilla, Label Studio JSON-MIN/CSV.",
    ),
]
AsVersionOpt = Annotated[
    bool,
    typer.Option(
        "--as-version",
        help="Another annotator's file: its annotations become that annotator's versions "
        "of the queries it shares with the store (whose: --version-of, else --annotator, "
        "else the file's annotator, else a doccano file's name).",
    ),
]
VersionOfOpt = Annotated[
    str | None,
    typer.Option("--version-of", help="With --as-version: whose annotations the file holds."),
]


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
    label: LabelOpt = None,
    slices: SliceOpt = None,
    skip_bad: SkipBadOpt = False,
    as_version: AsVersionOpt = False,
    version_of: VersionOfOpt = None,
) -> None:
    """Validate a label file completely, then write it in one transaction."""
    if version_of is not None and not as_version:  # else it is a plain import, silently
        raise SpanlabError("--version-of names whose versions --as-version writes; "
                           "pass --as-version too", key="--version-of")  # fmt: skip
    who = member(project(corpus, db), annotator, Act.IMPORT)
    proj, docs, store, status = open_project(corpus, db)
    if fmt is None:
        fmt = label_formats.guess(file)
        if fmt != "spanlab":
            say(f"reading {file} as {fmt} (pass --format to choose)", err=True)
    from evaluator.pipeline import progress
    from labeler.core.labels import imports

    opts = imports.ImportOptions(
        fmt, who.name, replace=replace, encoding=proj.encoding,
        labels=frozenset(label) if label else None, slices=tuple(slices or ()),
        skip_bad=skip_bad, as_version=as_version, version_of=version_of or annotator,
        task=progress.task,
    )  # fmt: skip
    done = imports.import_file(store, docs, status, file, opts)
    say_import_notes(done, file, label, docs.root)
    say_imported(done, file)


def say_import_notes(
    done: ImportResult, file: Path, label: list[str] | None, root: Path | None
) -> None:
    """What the import noticed, on stderr: labels seen, versions kept, documents added."""
    if done.labels_seen:
        chosen = ", ".join(sorted(label)) if label else "all of them (choose with --label)"
        seen = ", ".join(sorted(done.labels_seen))
        say(f"span labels seen: {seen}; counted as evidence: {chosen}", err=True)
    if done.versions and done.joined is None:
        say(f"{done.versions} annotator version(s) kept ({', '.join(done.annotators)}); "
            "adjudicate them: `spanlab adjudicate`", err=True)  # fmt: skip
    if done.added:
        say(f"added {len(done.added)} document(s) from {file} to the corpus folder {root}",
            err=True)  # fmt: skip
    for w in done.warnings:
        say(f"warning: {w}", err=True)
    for line in done.removed:
        say(line, err=True)
    if done.summary:
        say(done.summary)


def say_imported(done: ImportResult, file: Path) -> None:
    """The import's last line: queries written, joined or skipped, of how many."""
    if done.joined is not None:
        j = done.joined
        names = f" ({', '.join(j.annotators)})" if j.annotators else ""
        say(f"{j.versions} version(s) written{names} from {file}: {j.new} new, "
            f"{j.joined} joined, {j.skipped} skipped of {done.total} queries")  # fmt: skip
        return
    known = sum(1 for w in done.warnings if ", already query " in w)
    if known:
        say(f"hint: {known} quer(y/ies) of the file are already in the store and were "
            "skipped; another annotator's file comes in as their versions with "
            "--as-version", err=True)  # fmt: skip
    same = done.total - done.imported
    unchanged = f" ({same} already in the store with the same labels)" if same else ""
    skipped = f" ({known} skipped, already in the store)" if known else ""
    say(f"imported {done.imported} of {done.total + known} queries from {file}{unchanged}{skipped}")


ExportFormatOpt = Annotated[
    str,
    typer.Option("--format", "-f", help=f"One of: {', '.join(label_formats.FORMATS)}."),
]


@group.command("export", epilog="Example: spanlab labels export frozen.json")
@handles_errors
def labels_export(
    out: Annotated[Path, typer.Argument(help="Where to write.")],
    fmt: ExportFormatOpt = "spanlab",
    corpus: CorpusOpt = None,
    db: DbOpt = None,
    from_name: Annotated[
        str, typer.Option(help="Label Studio: the Labels control's name.")
    ] = "label",
    to_name: Annotated[
        str, typer.Option(help="Label Studio: the Text object's name (the Labels' toName).")
    ] = "text",
    text_key: Annotated[
        str, typer.Option(help='Label Studio: the data key the Text reads (value="$KEY").')
    ] = "text",
) -> None:
    """Export the labels; refuses while any span is stale or orphaned."""
    proj, docs, store, _ = open_project(corpus, db)
    refused = store.heads.refusal(store.path)  # a frozen set of a rolled-back store (§21)
    if refused is not None:
        raise refused
    from labeler.core.formats.label_studio import Names
    from labeler.core.labels import exports

    names = Names(from_name, to_name, text_key)
    from evaluator.pipeline import progress

    done = exports.export_file(store, docs, out, fmt, names, sight(proj), progress.task)
    for why, n in done.left_out:
        say(f"warning: {n} {why}", err=True)
    for note in done.notes:
        say(f"note: {note}", err=True)
    if done.private:
        say(f"note: {out} is yours alone (mode 0600): it holds versions that wait for a "
            "decision, which blind keeps from the group", err=True)  # fmt: skip
    if done.drafts:
        shown = ", ".join(done.drafts[:5]) + (" …" if len(done.drafts) > 5 else "")
        say(f"warning: {len(done.drafts)} quer(y/ies) have no evidence and are not marked "
            f"abstain ({shown}); eval leaves them out", err=True)  # fmt: skip
    records = f" in {done.records} records" if done.records != done.queries else ""
    say(f"wrote {done.queries} queries{records} to {out}  (sha256 {done.sha256}; "
        f"label set {done.label_set_hash})")  # fmt: skip


@group.command("restore", epilog="Example: spanlab labels restore")
@handles_errors
def labels_restore(
    corpus: CorpusOpt = None,
    db: DbOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would come back; change nothing.")
    ] = False,
    forget_gone: Annotated[
        bool,
        typer.Option(
            "--forget-gone",
            help="A lead's: stop the store claiming writes of "
            "writers whose records are gone (moved, emptied); after a backup check.",
        ),
    ] = False,
) -> None:
    """Bring back every write the store lacks (rolled back, replaced) from the writers'
    own journals in .spanlab/labels.db.heads; nothing changes when a journal does not hold."""
    proj = project(corpus, db)
    from labeler.core.store import Store
    from labeler.core.store.restore import forget_gone as forget
    from labeler.core.store.restore import restore

    store = Store.open(proj.db, create=False)
    if forget_gone:
        member(proj, None, Act.FORGET_RECORDS)
        lost = forget(store)
        say(f"forgot the writes of {', '.join(lost)}: their records are gone" if lost
            else "nothing to forget: every writer the store names has records")  # fmt: skip
    done = restore(store, dry=dry_run)
    if not done.writes:
        say("nothing to restore: the store holds every writer's writes")
    verb = "would restore" if dry_run else "restored"
    for account, (first, last) in sorted(done.writes.items()):
        n = last - first + 1
        say(f"{verb} {n} write{'s' * (n > 1)} of {account} (seq {first}–{last})")
    if done.writes:
        rows = ", ".join(f"{t} {n}" for t, n in done.rows.items())
        say(f"{done.count} writes, rows put back or removed: {rows}")
    for line in store.heads.warnings():
        say(f"warning: {line}", err=True)


@group.command("audit", epilog="Example: spanlab labels audit")
@handles_errors
def labels_audit(corpus: CorpusOpt = None, db: DbOpt = None) -> None:
    """Name changes made to the store around spanlab (rows, events, schema); exit 1 if any."""
    proj = project(corpus, db)
    from labeler.core.store import Store

    leads = proj.team.leads if proj.team is not None else ()
    found = checked(Store.open_for_reading(proj.db)).audit(leads)
    for line in audit_lines(found):
        say(line)
    if not found.clean:
        raise typer.Exit(1)


def audit_lines(found: Any) -> list[str]:
    """The audit as lines: what is out of line, then what the files tell."""
    lines = [f"schema: {found.foreign}, not made by spanlab"] if found.foreign else []
    for f in found.findings:
        key = f.key[1:-1] if f.table == "events" else "/".join(map(str, json.loads(f.key)))
        before = f" (last written through spanlab {f.before})" if f.before else ""
        lines.append(f"{f.table} {key}: {f.what} outside spanlab{before}")
    if found.replaced:
        lines.append(f"file: {found.replaced}")
    lines += [f"heads: {line}" for line in found.heads]
    if found.clean:
        lines.append("clean: every row and event matches what spanlab wrote")
    return [*lines, *found.files, f"spanlab's last write: {found.last_write}"]


@group.command("stats", epilog="Example: spanlab labels stats --json")
@handles_errors
def labels_stats(corpus: CorpusOpt = None, db: DbOpt = None, as_json: JsonFlag = False) -> None:
    """Counts by status, pattern, slice, document and annotator."""
    _, _, store, _ = open_project(corpus, db, reading=True)
    from labeler.core.labels.stats import label_stats

    stats = label_stats(store.query_rows(), store.doc_span_counts(), store.work_by_annotator())
    if as_json:
        say(json.dumps(asdict(stats), indent=2))
        return
    say(render_stats(stats))


WORK_COLUMNS = {"queries": "created", "spans": "spans", "reviewed": "reviewed",
                "adjudicated": "adjudicated", "resolved": "stale resolved"}  # fmt: skip
"""The work table's columns: `store.work_by_annotator()`'s keys and their headings."""


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
        width = max(4, *(len(k) for k in stats.work))
        heads = "  ".join(WORK_COLUMNS.values())
        lines.append(f"\n{'work':<{width + 2}}  {heads}")
        lines.extend(
            f"  {who:<{width}}  " + "  ".join(f"{w[k]:>{len(h)}}" for k, h in WORK_COLUMNS.items())
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
    proj = project(corpus, db)
    lead = member(proj, annotator, Act.ASSIGN)
    for who in annotators:
        check_name(who, "annotator name", key="ANNOTATORS")
    team.refuse_outsiders(proj.team, annotators)
    _, _, store, _ = open_project(corpus, db)
    from labeler.core.labels import assign

    pairs = assign.plan(store.query_rows(), annotators, copies=copies, slice_name=slice_name)
    added = store.assign(pairs, by=lead.name)
    for who, ids in store.assigned().items():
        say(f"{who}: {len(ids)} queries")
    say(f"assigned {added} new (query, annotator) pairs", err=True)


@group.command("agreement", epilog="Example: spanlab labels agreement --json")
@handles_errors
def labels_agreement(corpus: CorpusOpt = None, db: DbOpt = None, as_json: JsonFlag = False) -> None:
    """Agreement of double-annotated queries: overlap F1, exact spans, abstention, pattern, αu."""
    proj, docs, store, _ = open_project(corpus, db)
    from labeler.core.agreement import NO_DOUBLE, agreement_seen

    report = agreement_seen(store, sight(proj), {d.id: len(d.text) for d in docs})
    if as_json:
        say(json.dumps(report_json(report), indent=2))
    elif report.overall is None:
        say(report.withheld_line or NO_DOUBLE, err=True)
    else:
        say(render_agreement(report))


def report_json(report: Report) -> dict[str, Any]:
    from labeler.core.agreement import NO_DOUBLE

    data = asdict(report)
    data["queries"] = [{**asdict(p), "pattern_agree": p.pattern_agree} for p in report.queries[:50]]
    if report.overall is None:
        data["message"] = report.withheld_line or NO_DOUBLE
    return data


def _differs(p: PairAgreement) -> str:
    """What else two versions disagree on: the patterns chosen, abstention."""
    out = "" if p.pattern_agree else f"  pattern {p.patterns[0]} / {p.patterns[1]}"
    return out + ("" if p.abstain_agree else "  abstain differs")


def render_agreement(report: Report) -> str:
    def line(name: str, s: Summary, width: int) -> str:
        alpha = "   n/a" if s.alpha is None else f"{s.alpha:6.3f}"
        return (f"  {name:<{width}}  F1 {s.f1:.3f}  exact {s.exact:.3f}  abstain {s.abstention:.3f}"
                f"  pattern {s.pattern:.3f}  αu {alpha}"
                f"  ({s.queries} queries, {s.pairs} pairs)")  # fmt: skip

    assert report.overall is not None
    lines = [f"{report.double} double-annotated queries", line("all", report.overall, 3)]
    if report.overall.basis is not None:
        lines.append(f"  αu {report.overall.basis.said}")
    if report.withheld_line is not None:
        lines.insert(1, report.withheld_line)
    tables = {"annotator pair": report.by_pair, "slice": report.by_slice,
              "pattern": report.by_pattern, "document": report.by_document}  # fmt: skip
    for title, table in tables.items():
        width = max((len(k) for k in table), default=0)
        lines += [f"\n{title}", *(line(k, v, width) for k, v in table.items())]
    worst = [p for p in report.queries if not p.agrees][:10]
    if worst:
        lines.append("\nleast agreement")
        lines += [f"  {p.query_id}  {'+'.join(p.pair)}  F1 {p.f1:.3f}{_differs(p)}" for p in worst]
    return "\n".join(lines)

"""`spanlab show`, the eval summary, junit.xml and `spanlab trec` with outside text that a
terminal or a path would act on (§13, issue 20).

A real run on a corpus whose evidence document holds escape sequences; the store's
question is rewritten in its table to hold them too (as a store from before the rule may),
and run.json's candidate is renamed to a hostile name (as a run made before the names
rule, or forged, may hold): every reader refuses it, quoting it escaped. Nothing printed
holds a raw control; junit.xml parses; TREC files stay in their folder.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.runs.junit import junit_xml
from evaluator.runs.model import read_run
from evaluator.runs.model_json import RunFileError
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.display import BIDI
from labeler.core.labels.labelset import to_json, write_json
from labeler.core.store import Store
from labeler.core.values import Query, Span

ESCAPES = (
    "\x1b]52;c;UFdORUQtQ0xJUEJPQVJE\x1b\\ \x1b]0;PWNED-TITLE\x07 \x1b[2J \x9b2J \u202eevil\u202c"
)
DOC = f"# Refunds\n\nWe refund {ESCAPES} the full price within 14 days. Cards are credited.\n"
RAW = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")
CANDIDATES = """
[settings]
baseline = "c60"
k = 1
depth = 5
retriever = "lexical"

[[candidate]]
name = "c60"
splitter = "chars"
size = 60

[[candidate]]
name = "c30"
splitter = "chars"
size = 30
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "refunds.md").write_text(DOC, encoding="utf-8")
    corpus = Corpus.read(tmp_path / "corpus")
    text = corpus.text("refunds.md")
    start = text.index("We refund")
    span = Span.from_text(text, "refunds.md", start, text.index(" Cards"))
    write_json(to_json([Query("q-0001", "refund full price", evidence=(span,))], corpus),
               tmp_path / "labels.json")  # fmt: skip
    (tmp_path / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["init", "corpus"]).exit_code == 0
    done = runner.invoke(app, ["labels", "import", "labels.json"])
    assert done.exit_code == 0, done.output
    store = Store.open(tmp_path / ".spanlab" / "labels.db", create=False)
    with store.conn:  # a question stored before the rule, as an older store may hold it
        store.conn.execute("UPDATE queries SET text = ?", (f"refund {ESCAPES}?",))
    store.close()
    done = runner.invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert done.exit_code == 0, done.output
    assert raw_in(done.output) == [], "the eval summary printed a raw control"
    return tmp_path


def raw_in(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in RAW.findall(text)})


def run_folder(project: Path) -> Path:
    return next(p for p in (project / ".spanlab" / "runs").iterdir() if p.is_dir())


def rename_candidate(folder: Path, old: str, new: str) -> None:
    """What a run.json made before the names rule may hold."""
    path = folder / "run.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(json.dumps(old), json.dumps(new)), encoding="utf-8")


def test_show_prints_no_raw_control(project: Path) -> None:
    done = CliRunner().invoke(app, ["show", "latest", "q-0001", "--candidate", "c30"])
    assert done.exit_code == 0, done.output
    assert raw_in(done.stdout) == []
    assert "\\x1b]52;c;UFdORUQtQ0xJUEJPQVJE" in done.stdout  # the question, visibly escaped
    # the document text keeps its columns: one placeholder per control, rulers aligned
    assert "We refund ·]52;c;" in done.stdout


def test_a_run_whose_candidate_is_no_name_is_refused_escaped(project: Path) -> None:
    """A run.json from before the names rule (or forged) is refused by every reader of it,
    and the refusal quotes the name escaped."""
    hostile = "c30\x1b]0;NAME\x07"
    folder = run_folder(project)
    rename_candidate(folder, "c30", hostile)
    for args in (["show", "latest", "q-0001", "--candidate", hostile],
                 ["diff", str(folder), str(folder), "--candidate", hostile]):  # fmt: skip
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 2, done.output
        assert "run.json, key candidates" in done.stderr
        assert raw_in(done.stdout) == [] and raw_in(done.stderr) == []
        assert "c30\\x1b]0;NAME\\x07" in done.stderr


def test_an_error_quoting_outside_text_prints_no_raw_control(project: Path) -> None:
    done = CliRunner().invoke(app, ["show", "latest", "q-0001", "--candidate", "x\x1b[2J"])
    assert done.exit_code == 2
    assert raw_in(done.stderr) == []
    assert "\\x1b[2J" in done.stderr


def test_junit_stays_well_formed_with_outside_text(project: Path) -> None:
    folder = run_folder(project)
    xml = junit_xml(read_run(folder))
    suites = ET.fromstring(xml)
    assert [s.get("name") for s in suites.iter("testsuite")] == ["c30"]
    assert raw_in(xml) == []
    rename_candidate(folder, "c30", "c30\x1b[31m\x00\x9b")
    with pytest.raises(RunFileError) as refused:  # such a name never reaches junit.xml
        read_run(folder)
    assert raw_in(str(refused.value)) == []


def test_trec_never_writes_outside_its_folder(project: Path) -> None:
    rename_candidate(run_folder(project), "c30", "../../pwned-by-name")
    out = project / "out" / "trec"
    done = CliRunner().invoke(app, ["trec", "latest", str(out)])
    assert done.exit_code == 2, done.output
    assert "outside" in done.stderr
    assert not list(project.glob("pwned*")) and not list((project / "out").glob("pwned*"))
    assert not list(project.parent.glob("pwned*"))
    assert not out.exists() or not list(out.iterdir())  # refused before anything is written


def test_a_candidates_file_with_a_path_for_a_name_is_exit_2(project: Path) -> None:
    text = CANDIDATES.replace('name = "c30"', 'name = "../../pwned-by-name"')
    (project / "candidates.toml").write_text(text, encoding="utf-8")
    done = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert done.exit_code == 2
    assert "candidates.toml:13, key candidate[1].name: candidate name" in done.stderr
    assert "path separator" in done.stderr


def test_an_annotator_that_is_no_name_is_exit_2(project: Path) -> None:
    done = CliRunner().invoke(app, ["labels", "assign", "../x", "bob"])
    assert done.exit_code == 2
    assert "annotator name '../x' holds a path separator" in done.stderr


@pytest.mark.parametrize(
    "command",
    [["labels", "stats"], ["labels", "stats", "--json"], ["labels", "agreement"],
     ["review", "--list"], ["corpus", "status"]],
)  # fmt: skip
def test_label_commands_print_no_raw_control(project: Path, command: list[str]) -> None:
    store = Store.open(project / ".spanlab" / "labels.db", create=False)
    with store.conn:  # names and slices stored before the rule
        store.conn.execute("UPDATE queries SET annotator = ?, slices = ?",
                           (f"eve{ESCAPES[:12]}", json.dumps([f"s{ESCAPES[-8:]}"])))  # fmt: skip
        store.conn.execute("UPDATE spans SET annotator = ?", ("mal\x9b2J\u202elory",))
    store.close()
    done = CliRunner().invoke(app, command)
    assert done.exit_code == 0, done.output
    assert raw_in(done.stdout) == [] and raw_in(done.stderr) == [], done.output


def test_diff_prints_no_raw_control(project: Path) -> None:
    """`spanlab diff` (run against run) prints outside text escaped like `show`."""
    folder = run_folder(project)
    done = CliRunner().invoke(app, ["diff", str(folder), str(folder), "--candidate", "c30"])
    assert done.exit_code == 0, done.output
    assert raw_in(done.stdout) == [] and raw_in(done.stderr) == []

"""Write docs/reference/ from the code: the candidates and spanlab.toml keys from their
registries, every command's options from the typer app, every key from the screens'
BINDINGS, and run.json's schema from its frozen model.

It sits outside the packages because it reads every layer at once (the CLI, the app, the
evaluator). `python docs/gen_reference.py` rewrites the pages; `--check` exits 1 naming
each page that differs from what the code says now (tests/test_docs_reference.py runs it).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import itertools
import pkgutil
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer

HERE = Path(__file__).resolve().parent
OUT = HERE / "reference"
HEAD = "<!-- Written by docs/gen_reference.py from the code: edit the code, then run it. -->\n\n"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _kind(kind: Any) -> str:
    names = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
             "list": "array", "dict": "table"}  # fmt: skip
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k.__name__, k.__name__) for k in kinds)


def _key_rows(keys: Any) -> list[str]:
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for k in keys:
        rows.append(f"| `{k.name}` | {_kind(k.kind)} | {_cell(k.default)} | {_cell(k.meaning)} |")
    return rows


def candidates_page() -> str:
    from evaluator import candidate_keys

    lines = ["# candidates.toml", "",
             "Every key a candidates file accepts (`evaluator/candidate_keys.py`); any other key "
             "is refused, naming the file, the table and the key. Start from "
             "`data/demo/candidates.toml`; the guide [Evaluate a chunking change]"
             "(../guide/evaluate.md) shows them at work. A file another account can write may "
             "not set `url`, `rerank.url`, `ranked`, `options.path`, `function` or an "
             "`embedding` other than `minilm` / `openai:…` ([why](../guide/team.md"
             "#a-candidates-file-another-account-can-write)).", ""]  # fmt: skip
    for table in candidate_keys.TABLES:
        lines += [f"## `{table.heading}`", "", table.about, "", *_key_rows(table.keys), ""]
    return "\n".join(lines)


def project_page() -> str:
    from labeler.core.project import keys

    lines = ["# spanlab.toml", "",
             "Every key of a project's `spanlab.toml` (`labeler/core/project/keys.py`); flags "
             "on the command line override the file, the file overrides the defaults, and paths "
             "are relative to the file's folder. Any other key is refused (exit 2). In a team "
             "project the keys that steer a command (`corpus`, `include`, `follow_symlinks`, "
             "`encoding`, `db`, `chroma_path`, `chroma_url`, `chroma_timeout`, `embedding`, "
             "`embedding_cache`, `group`) count only from `spanlab.team.toml` or a "
             "spanlab.toml only a lead may write ([Run a team on one server]"
             "(../guide/team.md#what-steers-a-command-is-a-leads)).", "",
             *_key_rows(keys.KEYS), "", "## `[team]`", "",
             "Roles, in `spanlab.team.toml` beside spanlab.toml (see [Run a team on one "
             "server](../guide/team.md)); `blind` goes there too, above `[team]`.", "",
             *_key_rows(keys.TEAM), ""]  # fmt: skip
    return "\n".join(lines)


def _walk(cmd: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(`spanlab labels export`, its command) for every command, groups opened (typer
    carries its own copy of click, so commands are told apart by what they hold)."""
    if hasattr(cmd, "commands"):
        for name in sorted(cmd.commands):
            yield from _walk(cmd.commands[name], f"{path} {name}")
    else:
        yield path, cmd


def _param_row(p: Any) -> str:
    names = ", ".join(f"`{o}`" for o in [*p.opts, *p.secondary_opts])
    if p.param_type_name == "argument":
        names = f"`{str(p.name).upper()}`"
    kind = "flag" if getattr(p, "is_flag", False) else p.type.name.lower()
    if hasattr(p.type, "choices"):
        kind = " \\| ".join(str(c) for c in p.type.choices)
    default = p.default if p.default not in (None, (), False) else ""
    if callable(default):
        default = ""
    help_text = getattr(p, "help", None) or ""
    need = " (required)" if p.required else ""
    shown = f"`{default}`" if default != "" else ""
    return f"| {names} | {_cell(kind)} | {_cell(shown)} | {_cell(help_text)}{need} |"


def commands_page() -> str:
    from labeler.cli import app

    root = typer.main.get_command(app)
    lines = ["# Commands", "",
             "Every command and its options, read from the command line itself "
             "(`spanlab COMMAND --help` says the same, with an example). Errors go to stderr "
             "and exit 2; stdout carries data only.", ""]  # fmt: skip
    for path, cmd in _walk(root, "spanlab"):
        lines += [f"## `{path}`", ""]
        summary = (cmd.help or "").strip().split("\n\n")[0]
        lines += [" ".join(summary.split()), ""]
        if cmd.epilog:
            lines += [f"*{_cell(cmd.epilog)}*", ""]
        params = [p for p in cmd.params if p.name != "help" and not getattr(p, "hidden", False)]
        if params:
            lines += ["| argument or option | type | default | meaning |", "|---|---|---|---|"]
            lines += [_param_row(p) for p in params]
            lines.append("")
    return "\n".join(lines)


def _classes(package: str) -> Iterator[type]:
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == info.name and "BINDINGS" in cls.__dict__:
                yield cls


def _key_name(key: str) -> str:
    words = {"question_mark": "?", "escape": "esc", "less_than_sign": "<",
             "greater_than_sign": ">", "plus": "+", "minus": "-", "slash": "/",
             "full_stop": ".", "comma": ",", "left_square_bracket": "[",
             "right_square_bracket": "]", "left_curly_bracket": "{",
             "right_curly_bracket": "}"}  # fmt: skip
    return ", ".join(words.get(k.strip(), k.strip()) for k in key.split(","))


def keys_page() -> str:
    from textual.binding import Binding

    from labeler.tui.app import SpanlabApp

    lines = ["# Keys", "",
             "Every key binding of the app, screen by screen, read from each class's "
             "`BINDINGS` (in the app, `?` lists those of the screen you are on). `ctrl+x` is "
             "written `^x` in the app's footer.", ""]  # fmt: skip
    for cls in sorted({SpanlabApp, *_classes("labeler.tui")},
                      key=lambda c: (c.__module__, c.__qualname__)):  # fmt: skip
        bindings = [b if isinstance(b, Binding) else Binding(*b) for b in cls.__dict__["BINDINGS"]]
        if not bindings:
            continue
        doc = (inspect.getdoc(cls) or "").split("\n\n")[0]
        lines += [f"## {cls.__qualname__} (`{cls.__module__}`)", "", " ".join(doc.split()), "",
                  "| key | action | what it does |", "|---|---|---|"]  # fmt: skip
        for b in bindings:
            lines.append(f"| `{_cell(_key_name(b.key))}` | `{_cell(b.action)}` "
                         f"| {_cell(b.description)} |")  # fmt: skip
        lines.append("")
    return "\n".join(lines)


def _attribute_docs(cls: type) -> dict[str, str]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for field, after in itertools.pairwise(body):
        if not (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)):
            continue
        if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            docs[field.target.id] = str(after.value.value)
    return docs


def _spread(value: ast.expr) -> list[tuple[str, ast.expr]]:
    """The keys of the first dict literal inside `**(…)` (a key written only sometimes)."""
    for node in ast.walk(value):
        if isinstance(node, ast.Dict):
            return _dict_keys(node)
    return []


def _dict_keys(node: ast.Dict) -> list[tuple[str, ast.expr]]:
    out: list[tuple[str, ast.expr]] = []
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:
            out += _spread(value)
        elif isinstance(key, ast.Constant) and isinstance(key.value, str):
            out.append((key.value, value))
    return out


def _written_keys(cls: type) -> list[tuple[str, ast.expr]]:
    """(key, value expression) of every key `cls.to_json` writes, in order: the dict it
    builds, its `**` spreads, and `data["key"] = …` additions."""
    method = vars(cls).get("to_json")
    if method is None:
        return []
    body = ast.parse(textwrap.dedent(inspect.getsource(method))).body[0]
    if dataclasses.is_dataclass(cls) and "asdict(self)" in ast.unparse(body):
        # every field under its own name (a key kept only when set is said in its docstring)
        return [(f.name, ast.Attribute(ast.Name("self"), f.name)) for f in dataclasses.fields(cls)]
    found: list[tuple[str, ast.expr]] = []
    for node in ast.walk(body):
        if isinstance(node, ast.Return | ast.AnnAssign | ast.Assign) and isinstance(
            node.value, ast.Dict
        ):
            found += _dict_keys(node.value)
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            index = node.targets[0].slice
            if isinstance(index, ast.Constant) and isinstance(index.value, str):
                found.append((index.value, node.value))
    return found


def _field_of(value: ast.AST, names: list[str]) -> str | None:
    """The field a written value is made from: the first `self.NAME` in it."""
    for node in ast.walk(value):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        if node.value.id == "self" and node.attr in names:
            return node.attr
    return None


def _schema_section(cls: type) -> list[str]:
    docs = _attribute_docs(cls)
    hints = getattr(cls, "__annotations__", {})
    names = ([f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls)
             else list(getattr(cls, "_fields", hints)))  # fmt: skip
    doc = " ".join((inspect.getdoc(cls) or "").split("\n\n")[0].split())
    written = _written_keys(cls)
    if not written:  # a NamedTuple written as an array of its fields
        fields = ", ".join(f"`{n}`" for n in names)
        return [f"## `{cls.__name__}`", "", doc, "", f"Written as an array: [{fields}].", ""]
    lines = [f"## `{cls.__name__}`", "", doc, "",
             "| key | type | meaning |", "|---|---|---|"]  # fmt: skip
    for key, value in written:
        field = _field_of(value, names) or ""
        kind = f"`{_cell(str(hints.get(field, '')))}`" if field else ""
        meaning = docs.get(field, "") if field else _other_meaning(cls, value)
        lines.append(f"| `{key}` | {kind} | {_cell(meaning)} |")
    return [*lines, ""]


def _other_meaning(cls: type, value: ast.expr) -> str:
    """A written value that is no field: a module constant (its value), or what a method
    of the class returns (the method's docstring)."""
    if isinstance(value, ast.Name):
        constant = vars(sys.modules[cls.__module__]).get(value.id)
        return f"Always `{constant}`." if isinstance(constant, str) else ""
    for node in ast.walk(value):
        method = getattr(cls, node.attr, None) if isinstance(node, ast.Attribute) else None
        if isinstance(method, property):  # a derived figure: its own docstring says it
            return (inspect.getdoc(method) or "").split("\n\n")[0]
        if callable(method):
            source = ast.parse(textwrap.dedent(inspect.getsource(method)))
            field = _field_of(source.body[0], list(_attribute_docs(cls)))
            doc = (inspect.getdoc(method) or "").split("\n\n")[0]
            return _attribute_docs(cls).get(field or "", doc)
    return ""


def run_json_page() -> str:
    from evaluator.generation import summary
    from evaluator.runs import extraction_record, model, model_parts, model_queries

    parts = [model.RunFile, model_parts.Manifest, model_parts.CandidatesFileRef,
             model_parts.CandidateRecord, model_parts.GateRecord, model_queries.QueryRecord,
             model_queries.EvidenceRef, model_queries.QueryResult, model_queries.RuleResult,
             model_queries.RankedEntry, extraction_record.ExtractionRecord,
             extraction_record.AlternativeRecord, extraction_record.SpanRecord,
             summary.GenerationSummary, summary.Asking]  # fmt: skip
    lines = ["# run.json", "",
             f"Every run folder holds one `run.json` with `\"format\": \"{model.FORMAT}\"`. "
             "Its one owner is `evaluator/runs/model.py`: each object below is one frozen "
             "value, and the keys are those its `to_json` writes (a mapping of candidates or "
             "queries is keyed by name or id; a key shown only sometimes is written when it "
             "has something to hold). It holds offsets, hashes and numbers; text only with "
             "`--include-text`. A run.json from elsewhere is read as hostile: at most "
             f"{model.MAX_RUN_FILE // 2**20} MiB, every key and number checked.", ""]  # fmt: skip
    for cls in parts:
        lines += _schema_section(cls)
    return "\n".join(lines)


PAGES: dict[str, Callable[[], str]] = {
    "candidates.md": candidates_page,
    "project.md": project_page,
    "commands.md": commands_page,
    "keys.md": keys_page,
    "run-json.md": run_json_page,
}
"""Each generated page and the function that writes it."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    stale = []
    for name, page in PAGES.items():
        text = HEAD + page().rstrip("\n") + "\n"
        path = OUT / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            OUT.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for name in stale:
        print(f"docs/reference/{name} differs from the code: run python docs/gen_reference.py",
              file=sys.stderr)  # fmt: skip
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())

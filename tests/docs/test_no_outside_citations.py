"""No file in the repository cites a document outside it: the rules the code follows are
docs/design.md's, cited as `design §N` or a bare `§N`, never an outside specification or a
path into a folder beside the clone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"\b" + "SP" + r"EC\b|\.\./" + "shared" + r"\b|/work/" + "shared")
"""An outside spec named in capitals, or the folder beside the clone (spelt in pieces, so
this file does not cite what it forbids)."""


def tracked() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                          check=True, timeout=60)  # fmt: skip
    return [name for name in done.stdout.decode("utf-8").split("\0") if name]


def test_the_pattern_finds_what_it_should() -> None:
    cited = ["(" + "SP" + "EC §17)", "the " + "SP" + "EC's rules", "../" + "shared/STYLE.md"]
    fine = ["SPECS = [", "_SUSPECT", "design §17", "(§17)", "spec.py"]
    assert all(OUTSIDE.search(text) for text in cited)
    assert not any(OUTSIDE.search(text) for text in fine)


def test_no_tracked_file_cites_an_outside_document() -> None:
    found = []
    for name in tracked():
        path = ROOT / name
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{name}:{n}" for n, line in enumerate(text.splitlines(), 1)
                  if OUTSIDE.search(line)]  # fmt: skip
    assert not found, f"{len(found)} citation(s) of an outside document, first: {found[:5]}"


def test_design_page_has_every_section_the_code_cites() -> None:
    design = (ROOT / "docs" / "design.md").read_text("utf-8")
    sections = {int(n) for n in re.findall(r"^## §(\d+) ", design, re.M)}
    assert sections == set(range(1, 25))
    cited: set[int] = set()
    for name in tracked():
        if name.endswith((".py", ".toml", ".md")) and (ROOT / name).is_file():
            text = (ROOT / name).read_text("utf-8")
            cited |= {int(n) for n in re.findall(r"§(\d+)", text)}
    assert cited <= sections, f"cited but not on the design page: {sorted(cited - sections)}"

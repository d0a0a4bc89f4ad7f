"""The guides' commands run, on the demo: each fenced ```sh block of docs/guide/ is a
doctest of the shell, line by line, in one evaluated copy of the demo shared by every block.

A block that needs a server, root or a terminal app says so with ```sh skip. A line ending
in `# exit N` must exit N; every other line must exit 0. Pages run in the guide's order, so
`labels export frozen.json` (label) comes before the `gate` that reads it (ci).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("label", "evaluate", "review", "triage", "ci", "bring-your-own", "other-tools", "team")
"""The guides, in the order their blocks run."""
FENCE = re.compile(r"^```(\S*)( [^\n]*)?\n(.*?)^```", re.M | re.S)
EXIT = re.compile(r"#\s*exit (\d+)\s*$")


def blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block."""
    return [(m.group(1) + (m.group(2) or ""), m.group(3)) for m in FENCE.finditer(text)]


def commands(page: str) -> list[tuple[str, int]]:
    """(command, expected exit code) for every line of the page's runnable sh blocks."""
    out = []
    for info, body in blocks((ROOT / "docs" / "guide" / f"{page}.md").read_text("utf-8")):
        if info.split() != ["sh"]:
            continue
        for line in body.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                found = EXIT.search(line)
                out.append((line, int(found.group(1)) if found else 0))
    return out


def test_blocks_are_parsed_as_written() -> None:
    text = "a\n```sh\nspanlab x   # exit 1\n# note\n```\n```sh skip\nrm -rf /\n```\n"
    assert blocks(text) == [("sh", "spanlab x   # exit 1\n# note\n"), ("sh skip", "rm -rf /\n")]


def test_every_shell_block_is_marked_run_or_skip() -> None:
    for path in sorted((ROOT / "docs").rglob("*.md")):
        for info, _ in blocks(path.read_text("utf-8")):
            if info.startswith("sh"):
                assert info in ("sh", "sh skip"), f"{path}: ```{info}"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One evaluated demo and an environment whose `spanlab` is this checkout's."""
    base = tmp_path_factory.mktemp("guide")
    bin_dir = base / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "spanlab"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "import sys; sys.argv[0] = '
                    f"'spanlab'; from labeler.cli import main; main()\" \"$@\"\n")  # fmt: skip
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "ANONYMIZED_TELEMETRY": "False", "COLUMNS": "100"}  # fmt: skip
    env.pop("GITHUB_STEP_SUMMARY", None)
    env.pop("SPANLAB_CACHE", None)
    made = subprocess.run(["spanlab", "demo", "--dir", str(base / "demo")], cwd=base, env=env,
                          capture_output=True, text=True, timeout=1200, check=False)  # fmt: skip
    assert made.returncode == 0, made.stderr[-2000:]
    return base / "demo", env


@pytest.mark.slow
def test_guide_commands_run_on_the_demo(demo: tuple[Path, dict[str, str]]) -> None:
    folder, env = demo
    ran = 0
    for page in PAGES:
        for command, expected in commands(page):
            done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, text=True,
                                  capture_output=True, timeout=900, check=False)  # fmt: skip
            assert done.returncode == expected, (
                f"guide/{page}.md: `{command}` exited {done.returncode}, not {expected}\n"
                f"{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
            )
            ran += 1
    assert ran >= 8

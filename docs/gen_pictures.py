"""Write docs/pictures/: SVG screenshots of the label, review and triage screens (Textual's
own export, through a Pilot run on the demo), the demo run's frontier chart and a boundary
view as `spanlab show` prints it.

Usage: `python docs/gen_pictures.py [DEMO_DIR]`, DEMO_DIR an evaluated demo (`spanlab demo`
makes one); without it, the script makes one in a temporary folder (about two minutes).
It sits outside the packages because it drives the app and the command line together.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from evaluator.runs.index import find_run
from labeler.core.corpus.folder import Corpus
from labeler.core.resources import bundled
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.settings import Settings

OUT = Path(__file__).resolve().parent / "pictures"
SIZE = (110, 32)
"""Terminal size of every screenshot: wide enough for the tables, small enough to read."""
STILL = Settings(cursor_blink=False, suggest_embedding=None)
"""No blinking cursor and no embedding work in the background while the picture is taken."""


def spanlab(args: list[str], cwd: Path) -> str:
    """Run this checkout's `spanlab` and return what it printed (plain: stdout is a pipe)."""
    code = "import sys; sys.argv[0] = 'spanlab'; from labeler.cli import main; main()"
    env = {**os.environ, "COLUMNS": "100", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=True, timeout=1200)  # fmt: skip
    return done.stdout


async def shoot(app: SpanlabApp, name: str, keys: list[str]) -> None:
    """Open `app`, press `keys`, and save the screen as docs/pictures/NAME.svg."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.5)
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.3)
        await pilot.pause(1.0)
        app.save_screenshot(filename=f"{name}.svg", path=str(OUT))


async def screens(demo: Path, stale: Path) -> None:
    corpus = Corpus.read(demo / "corpus")
    runs = demo / ".spanlab" / "runs"
    store = Store.open(demo / ".spanlab" / "labels.db", create=False)
    label = SpanlabApp(store, corpus, annotator="demo", screen="label", settings=STILL)
    await shoot(label, "label", ["down", "down", "enter"])
    triage = SpanlabApp(store, corpus, annotator="demo", screen="triage", runs_dir=runs,
                        run_id=find_run(runs, None).id, settings=STILL)  # fmt: skip
    await shoot(triage, "triage", ["2"])
    store.close()
    changed = Corpus.read(stale / "corpus")
    stale_store = Store.open(stale / ".spanlab" / "labels.db", create=False)
    review = SpanlabApp(stale_store, changed, annotator="demo", screen="review", settings=STILL)
    await shoot(review, "review", [])
    stale_store.close()


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(tmp) / "demo"
        if not demo.exists():
            spanlab(["demo", "--dir", str(demo)], Path(tmp))
        stale = Path(tmp) / "stale"  # the demo's store over the demo's second corpus version
        shutil.copytree(demo, stale, ignore=shutil.ignore_patterns("chroma", "runs"))
        shutil.rmtree(stale / "corpus")
        shutil.copytree(bundled("data/demo") / "corpus-v2", stale / "corpus")
        OUT.mkdir(exist_ok=True)
        asyncio.run(screens(demo, stale))
        run = find_run(demo / ".spanlab" / "runs", None)
        shutil.copyfile(demo / ".spanlab" / "runs" / run.id / "frontier.svg",
                        OUT / "frontier.svg")  # fmt: skip
        shown = spanlab(["show", "latest", "q-0002", "--candidate", "tok128-ov0"], demo)
        (OUT / "show-q-0002.txt").write_text(shown, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

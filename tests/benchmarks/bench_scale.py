"""spanlab's own work as the corpus grows: a seeded corpus of 1, 10 and 50 MB (§12).

Embeddings come from a fast deterministic OpenAI-compatible server (hashed word counts,
tests/evaluator/embedding/hash_server.py), so what is timed is spanlab: cutting, the
cache, indexing, querying, measuring. Each size runs `spanlab eval --labels` cold, warm,
and after one changed document, each in a fresh process so its peak RSS is its own; beside
it, embedding the same unique texts alone through the same server. Printed: seconds per
MB, cold / embedding-alone, peak RSS, the changed-document re-run against the warm one,
and disk growth after one and after a second changed document; and `spanlab plan` of the
same candidates and labels (its peak RSS, and its CPU time against the cold eval's), and
the plan the cold eval makes of its own cut and prints (its CPU against the eval's: §17's
≤ 2 % at every size).
SPANLAB_SCALE_MB picks the sizes (default "1,10,50"). With SPANLAB_SCALE_CHROMA=server each
size runs against its own real `chroma run` (the ANN index then lives in the server: its
peak RSS is printed beside spanlab's, and disk counts the server's folder).
Run: pytest tests/benchmarks/bench_scale.py -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaluator.candidates import read as read_candidates
from evaluator.chunking import chunk_corpus
from evaluator.embedding.server import OpenAIEmbedder
from evaluator.retrieval.base import embedded_text
from labeler.core.corpus.folder import Corpus
from tests.benchmarks.results import record
from tests.benchmarks.scale_corpus import write_corpus, write_labels
from tests.evaluator.chroma.conftest import _alive, _free_port
from tests.evaluator.embedding.hash_server import HashState, serve

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = """
[settings]
baseline = "tok128-ov32"
embedding = "openai:hash"
retriever = "chroma"

[[candidate]]
name = "tok128-ov32"
splitter = "tokens"
size = 128
overlap = 32

[[candidate]]
name = "md-800"
splitter = "markdown"
size = 800
"""
CHILD = """
import json, resource, sys, time
from labeler.cli import main
sys.argv = ["spanlab", *sys.argv[1:]]
planning = [0.0, 0.0]
if sys.argv[1] == "eval":  # the plan inside eval: its cut's plan, and printing it
    import evaluator.pipeline.run as run, labeler.cli.evaluate as cli
    def timed(f):
        def call(*args, **kwargs):
            t, c = time.perf_counter(), time.thread_time()
            try:
                return f(*args, **kwargs)
            finally:
                planning[0] += time.perf_counter() - t
                planning[1] += time.thread_time() - c
        return call
    run.plan_cut, cli.say_ceilings = timed(run.plan_cut), timed(cli.say_ceilings)
began = time.perf_counter()
try:
    main()
    code = 0
except SystemExit as exc:
    code = exc.code
used = resource.getrusage(resource.RUSAGE_SELF)
print("CHILD " + json.dumps({"seconds": time.perf_counter() - began, "code": code,
      "cpu": used.ru_utime + used.ru_stime, "rss_mb": used.ru_maxrss / 1024,
      "plan_s": planning[0], "plan_cpu": planning[1]}), file=sys.stderr)
"""
COUNTS = re.compile(r"embeddings: ([\d,]+) embedded, ([\d,]+) from the cache")


@dataclass(frozen=True)
class Measured:
    seconds: float
    """Wall time of the whole command."""
    rss_mb: float
    """Peak resident memory of its process."""
    embedded: int
    """Texts it sent to the server."""
    cpu: float = 0.0
    """CPU seconds of its process (every thread): what another process's load hardly
    stretches."""
    plan_cpu: float = 0.0
    """Of an `eval`, CPU seconds of the plan it makes of its own cut and prints (§17)."""


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    httpd = serve(HashState(dim=64))
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


@contextlib.contextmanager
def chroma_server(folder: Path) -> Iterator[tuple[str | None, Callable[[], float]]]:
    """A `chroma run` of this size's own when SPANLAB_SCALE_CHROMA=server (its URL, and its
    peak RSS in MB so far), else (None, 0)."""
    if os.environ.get("SPANLAB_SCALE_CHROMA") != "server":
        yield None, lambda: 0.0
        return
    port = _free_port()
    proc = subprocess.Popen(
        ["chroma", "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not _alive(url):
            assert proc.poll() is None and time.monotonic() < deadline, "chroma run did not start"
            time.sleep(0.2)
        yield url, lambda: _peak_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _peak_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


def spanlab(folder: Path, url: str, chroma: str | None = None, command: str = "eval") -> Measured:
    env = os.environ | {"SPANLAB_EMBEDDING_URL": url, "CI": "true", "PYTHONPATH": str(ROOT)}
    args = [command, "candidates.toml", "--labels", "frozen.json"]
    args += ["--chroma-url", chroma] if chroma and command == "eval" else []
    done = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=folder, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    line = next(x for x in done.stderr.splitlines() if x.startswith("CHILD "))
    child = json.loads(line[6:])
    assert child["code"] == 0, done.stderr[-3000:]
    counts = COUNTS.search(done.stderr)
    assert counts is not None or command == "plan", done.stderr[-3000:]
    embedded = int(counts.group(1).replace(",", "")) if counts else 0
    return Measured(child["seconds"], child["rss_mb"], embedded, child["cpu"], child["plan_cpu"])


def embed_alone(folder: Path, url: str) -> tuple[float, int]:
    """Seconds to embed the run's unique texts alone through the same server, and how many."""
    corpus = Corpus.read(folder / "corpus")
    cfile = read_candidates(folder / "candidates.toml")
    texts = {embedded_text(c, {d.id: d.text for d in corpus})
             for cand in cfile.candidates for c in chunk_corpus(cand.spec, corpus)}  # fmt: skip
    embedder = OpenAIEmbedder("hash", url)
    began = time.perf_counter()
    for lo in range(0, len(texts), 4096):
        embedder.embed(sorted(texts)[lo : lo + 4096])
    return time.perf_counter() - began, len(texts)


def disk_mb(folder: Path) -> float:
    """What the run keeps on disk: the cache and index folder, and the server's folder."""
    found = [p for sub in (".spanlab", "server") for p in (folder / sub).rglob("*")]
    return sum(p.stat().st_size for p in found if p.is_file()) / 1e6


def change_one_document(folder: Path, nth: int = 0) -> None:
    """Rewrite one paragraph of a document no query quotes, then re-freeze the labels."""
    corpus = Corpus.read(folder / "corpus")
    labelled = {s["doc"] for q in json.loads((folder / "frozen.json").read_text())["queries"]
                for s in q["evidence"]}  # fmt: skip
    doc = [d for d in sorted(corpus.documents, reverse=True) if d not in labelled][nth]
    path = folder / "corpus" / doc
    path.write_text(path.read_text("utf-8").replace("\n\n", "\n\nAn edited paragraph.\n\n", 1))
    write_labels(Corpus.read(folder / "corpus"), folder / "frozen.json")


def one_size(tmp: Path, megabytes: float, url: str) -> dict[str, float]:
    folder = tmp / f"mb{megabytes:g}"
    docs = write_corpus(folder / "corpus", megabytes)
    write_labels(Corpus.read(folder / "corpus"), folder / "frozen.json")
    (folder / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    # A 4,096-chunk add to a loaded server can take longer than the default 8 s a call.
    (folder / "spanlab.toml").write_text("chroma_timeout = 120\n", encoding="utf-8")
    plan = spanlab(folder, url, command="plan")
    with chroma_server(folder / "server") as (chroma, server_peak):
        cold = spanlab(folder, url, chroma)
        server_rss = server_peak()
        disk_cold = disk_mb(folder)
        warm = spanlab(folder, url, chroma)
        change_one_document(folder)
        changed = spanlab(folder, url, chroma)
        disk_changed = disk_mb(folder)
        change_one_document(folder, nth=1)
        spanlab(folder, url, chroma)
        disk_again = disk_mb(folder)
    alone, unique = embed_alone(folder, url)
    return {"mb": megabytes, "docs": docs, "unique": unique, "cold_s": cold.seconds,
            "warm_s": warm.seconds, "changed_s": changed.seconds, "alone_s": alone,
            "rss_cold": cold.rss_mb, "rss_warm": warm.rss_mb, "embedded_cold": cold.embedded,
            "embedded_changed": changed.embedded, "disk_cold": disk_cold,
            "disk_changed": disk_changed, "disk_again": disk_again,
            "server_rss": server_rss, "plan_rss": plan.rss_mb, "plan_cpu": plan.cpu,
            "cold_cpu": cold.cpu, "warm_cpu": warm.cpu, "plan_in_cold_cpu": cold.plan_cpu,
            "load": os.getloadavg()[0]}  # fmt: skip


def test_scale(tmp_path: Path, server_url: str) -> None:
    sizes = [float(s) for s in os.environ.get("SPANLAB_SCALE_MB", "1,10,50").split(",")]
    rows = [one_size(tmp_path, mb, server_url) for mb in sizes]
    print(f"\n{'MB':>5}{'docs':>6}{'texts':>8}{'cold s/MB':>10}{'cold/alone':>11}"
          f"{'warm/cold':>10}{'chg/warm':>9}{'chg emb':>8}{'RSS MB':>8}{'RSS/1st':>8}"
          f"{'disk MB':>8}{'+disk':>7}{'+2nd':>6}{'server MB':>10}")  # fmt: skip
    for r in rows:
        print(f"{r['mb']:>5g}{r['docs']:>6.0f}{r['unique']:>8.0f}{r['cold_s'] / r['mb']:>10.2f}"
              f"{r['cold_s'] / r['alone_s']:>11.2f}{r['warm_s'] / r['cold_s']:>10.3f}"
              f"{r['changed_s'] / r['warm_s']:>9.2f}{r['embedded_changed']:>8.0f}"
              f"{r['rss_cold']:>8.0f}{r['rss_cold'] / rows[0]['rss_cold']:>8.2f}"
              f"{r['disk_cold']:>8.1f}{r['disk_changed'] - r['disk_cold']:>7.1f}"
              f"{r['disk_again'] - r['disk_changed']:>6.1f}{r['server_rss']:>10.0f}")  # fmt: skip
    print(f"\n{'MB':>5}{'plan RSS':>9}{'RSS/1st':>8}{'plan/cold CPU':>14}"
          f"{'in eval':>9}{'warm/cold CPU':>14}{'load':>6}")  # fmt: skip
    for r in rows:
        print(f"{r['mb']:>5g}{r['plan_rss']:>9.0f}{r['plan_rss'] / rows[0]['plan_rss']:>8.2f}"
              f"{r['plan_cpu'] / r['cold_cpu']:>14.1%}"
              f"{r['plan_in_cold_cpu'] / r['cold_cpu']:>9.1%}"
              f"{r['warm_cpu'] / r['cold_cpu']:>14.1%}{r['load']:>6.1f}")  # fmt: skip
    print(json.dumps(rows))
    record("scale", {"rows": rows})
    for r in rows:
        assert r["embedded_cold"] > 0 and r["embedded_changed"] < r["embedded_cold"]

"""The progress bar's rate column: `answers/s` for a task given a unit, nothing otherwise."""

from __future__ import annotations

from rich.progress import Progress

from evaluator.pipeline.progress import Rate


def test_a_task_with_a_unit_shows_its_rate() -> None:
    now = [0.0]
    bar = Progress(get_time=lambda: now[0])
    answers = bar.add_task("generation: answers", total=10, unit="answers")
    chunks = bar.add_task("eval", total=10)
    assert Rate().render(bar.tasks[answers]).plain == ""  # no answer yet: no rate
    for t in (1.0, 2.0, 3.0):
        now[0] = t
        bar.advance(answers, 2)
        bar.advance(chunks, 2)
    assert Rate().render(bar.tasks[answers]).plain == "2.0 answers/s"  # 4 more in 2 s
    assert Rate().render(bar.tasks[chunks]).plain == ""

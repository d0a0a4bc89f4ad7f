"""What every `spanlab` command shares: domain errors become stderr and exit code 2.

It lives at the evaluator layer so both the evaluator's commands and labeler.cli (above
it) use the one wrapper.
"""

from __future__ import annotations

import functools
import getpass
import os
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from labeler.core.errors import SpanlabError

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)


def handles_errors(fn: F) -> F:
    """Turn domain errors into a message on stderr and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SpanlabError as exc:
            fail(str(exc))
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            fail("interrupted: every edit so far is committed and no half-built index is marked "
                 "complete; run the command again to carry on")  # fmt: skip
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def annotator_name(given: str | None) -> str:
    """`--annotator` when given, else the login name."""
    if given:
        return given
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return os.environ.get("USER", "annotator")

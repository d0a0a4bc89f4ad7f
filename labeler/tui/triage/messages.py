"""Messages the triage screens send up to whichever app hosts them.

The triage screens never open the label store: asking to fix a label is a message, and
the app decides what opens (it switches to the label screen on that query).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class LabelRequested(Message):
    """The reviewer wants to fix this query's labels in the label screen."""

    query: str
    """Query id."""

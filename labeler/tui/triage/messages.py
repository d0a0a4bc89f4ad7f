"""Messages the triage screens send up to whichever app hosts them.

The triage screens never open the label store: asking to fix a label is a message, and
the app (the triage app, or the labelling app once it hosts triage) decides what opens.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class LabelRequested(Message):
    """The reviewer wants to fix this query's labels in the label screen."""

    query: str
    """Query id."""

"""Widgets of the labelling app: they show what the screen sets and post what the user asks."""

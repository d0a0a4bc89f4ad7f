"""Screens of the labelling app: each turns widget messages into `Editor` calls."""

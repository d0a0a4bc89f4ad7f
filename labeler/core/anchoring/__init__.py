"""Stale spans and re-anchoring (§8): the store's binding against the corpus as it is now,
candidates where a stale quote went (search, edges), and a person's review decisions."""

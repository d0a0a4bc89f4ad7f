"""The label set's edges (§4, §14): the frozen set CI gates on, import and export through
formats/, joins of a second annotator's file, replaced queries, assignment queues and counts."""

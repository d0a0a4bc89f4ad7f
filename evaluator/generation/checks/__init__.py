"""The deterministic checks of an answer (§23), each its own measure: a pure function of the
answer, its numbered sources and the labels, returning a frozen value whose docstring holds
its formula. None of them is blended with another; none calls a model.
"""

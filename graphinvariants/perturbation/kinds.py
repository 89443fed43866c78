"""The kinds of perturbation, shared by the graph-object edits and the in-place ones."""

from .._utils.validation import check_choice

__all__ = ["PERTURBATIONS", "PerturbationError", "apply_edit", "check_kind"]

#: Kinds of perturbation understood by :func:`perturbation_sequence`.
PERTURBATIONS = ("flip", "remove_edge", "add_edge", "swap_edges", "remove_node", "add_node")


class PerturbationError(ValueError):
    """A perturbation cannot be applied to this graph (no edge left to remove, ...)."""


def check_kind(kind):
    """Return ``kind`` if it is one of :data:`PERTURBATIONS`, else raise."""
    return check_choice(kind, "perturbation", PERTURBATIONS)


def apply_edit(state, kind, rng, where):
    """``state.apply(kind, rng)``: one edit of a graph state (``GraphState``,
    ``PerturbedGraph``); an edit the graph cannot take (:class:`PerturbationError`)
    becomes a :class:`ValueError` whose message starts with ``where`` (e.g.
    ``"step 3 of 20"``), without the traceback of the state's internals."""
    try:
        state.apply(kind, rng)
    except PerturbationError as err:
        raise ValueError(f"{where}: {err}") from None

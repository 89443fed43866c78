"""The ``--kernel`` option of ``evaluate`` and ``perturb``: kernel names and
parameters as the command line spells them, checked while the command line is read."""

import argparse

__all__ = []


def kernel_list(text):
    """``--kernel`` value -> list of ``(spec, name, params)``.

    Kernels are separated by commas; a comma-separated item with ``=`` is one more
    parameter of the kernel before it: ``"power,histogram:k=7,wl:n_iter=3"``.
    """
    from ..kernels.registry import LEARNED, check_kernel_names, make_functional, parse_kernel_spec

    specs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        if "=" in item and ":" not in item and specs:
            specs[-1] += "," + item
        else:
            specs.append(item)
    if not specs:
        raise argparse.ArgumentTypeError("name at least one kernel")
    twice = sorted({spec for spec in specs if specs.count(spec) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"{', '.join(twice)} named twice (results are keyed by kernel)")
    out = []
    for spec in specs:
        try:
            name, params = parse_kernel_spec(spec)
            check_kernel_names(name, also=(LEARNED,))  # "did you mean", among the names --kernel takes
            if name != LEARNED:
                make_functional(name, **params)  # refuse unknown names and parameters now
            else:
                params = _learned_options(params)
        except (TypeError, ValueError, ImportError) as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        out.append((spec, name, params))
    return out


def _learned_options(params):
    """The learned default's options as the command line spells them -> GraphKernel's
    parameters, checked as a fit would check them (before any fold runs): raises
    TypeError or ValueError."""
    from ..estimator import GraphKernel

    from ..kernels.registry import LEARNED_TUPLES

    params = dict(params)
    if "random_state" in params:  # scikit-learn's name; the library's is seed everywhere
        raise ValueError("learned has no option random_state: random_state= is spelled seed= in graphinvariants "
                         "(learned:seed=0, or --seed for the folds); a member's own seed is member__seed, e.g. "
                         "learned:attributes__seed=0")
    for key in LEARNED_TUPLES:  # parse_kernel_spec made each a tuple of its "+"-joined items
        if key in params:
            items = params[key] if isinstance(params[key], tuple) else (params[key],)
            if any(not str(item).strip() or any(c in str(item) for c in "()[]'\"") for item in items):
                example = {"members": "wl+wloa", "powers": "1+2", "bandwidths": "0.5+2"}[key]
                spelled = "+".join(str(item) for item in items)
                raise ValueError(f"{key}={spelled}: on the command line, join its items by '+' without "
                                 f"brackets or quotes, e.g. learned:{key}={example}")
            params[key] = items
    import inspect

    from ..kernels.learned._combination import LearnedCombination

    GraphKernel(**params)  # its constructor refuses names no candidate takes
    takes = set(inspect.signature(LearnedCombination).parameters) - {"params", "n_jobs"}
    combination = LearnedCombination(**{key: value for key, value in params.items() if key in takes},
                                     params={key: value for key, value in params.items() if key not in takes})
    # member parameters: built for graphs carrying everything, so that each reaches its members
    combination.candidate_functionals({"node_label": True, "edge_label": True, "node_attributes": True, "molecules": True})
    return params


def unsupervised_kernel_list(text):
    """``--kernel`` of ``perturb``: :func:`kernel_list` without the learned default,
    which needs class labels that a graph and its perturbed copy do not have."""
    from ..kernels.registry import LEARNED

    kernels = kernel_list(text)
    if any(name == LEARNED for _, name, _ in kernels):
        raise argparse.ArgumentTypeError(f"{LEARNED!r} is fitted to class labels, which perturb does not have; "
                                         "name a kernel (e.g. power or histogram)")
    return kernels


def kernel_label(spec, args):
    return f"{spec} (k={args.k})" if spec == "power" else spec

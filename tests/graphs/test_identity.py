"""content_digest: what defines a value, not its object's history or its name."""

import functools

import networkx as nx
import numpy as np
import pytest

from graphinvariants.graphs.identity import content_digest


from ..conftest import KERN_A, KERN_B


def test_functions_of_one_name_with_other_bodies_differ(define):
    # issue 29, defect 3: a callable was identified by its module and name only (its
    # pickle), so a second script's kern resumed the first's folds
    a = define(KERN_A)
    first = content_digest((a,))
    b = define(KERN_B)
    assert a.__qualname__ == b.__qualname__ and a.__module__ == b.__module__
    assert content_digest((b,)) != first
    # the same source in another script (another file, other lines): the same function
    again = define("\n\n\n" + KERN_A)
    assert content_digest(again) == content_digest(a)


def test_what_defines_a_function_counts(define):
    base = content_digest(define("def kern(a, b, s=1.0):\n    return s\n"))
    assert content_digest(define("def kern(a, b, s=2.0):\n    return s\n")) != base  # defaults
    assert content_digest(define("def kern(a, b, *, s=1.0):\n    return s\n")) != base  # argument layout
    assert content_digest(define("def kern(x, b, s=1.0):\n    return s\n")) != base  # names

    def closing_over(scale):
        def kern(a, b):
            return scale * np.eye(len(a), len(b))
        return kern

    assert content_digest(closing_over(1.0)) == content_digest(closing_over(1.0))
    assert content_digest(closing_over(1.0)) != content_digest(closing_over(2.0))  # closure contents
    # what the code reads from its module: functions by their code, values by content
    helper = "def helper(n):\n    return {}\n"
    use = "def kern(a, b):\n    return helper(len(a)) * SCALE\n"
    one = define(helper.format("n") + use, SCALE=1.0)
    assert content_digest(one) == content_digest(define(helper.format("n") + use, SCALE=1.0))
    assert content_digest(one) != content_digest(define(helper.format("n + 1") + use, SCALE=1.0))
    assert content_digest(one) != content_digest(define(helper.format("n") + use, SCALE=2.0))
    # nested code (a lambda inside) is read too
    inner = "def kern(a, b):\n    f = lambda n: n * {}\n    return f(1)\n"
    assert content_digest(define(inner.format(2))) != content_digest(define(inner.format(3)))


def test_recursive_functions_partials_methods_and_callable_objects(define):
    fact = define("def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n", what="fact")
    assert content_digest(fact) == content_digest(define("def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n",
                                                          what="fact"))
    kern = define(KERN_A)
    assert content_digest(functools.partial(kern, 1)) != content_digest(functools.partial(kern, 2))
    assert content_digest(functools.partial(kern, 1)) != content_digest(functools.partial(define(KERN_B), 1))
    scaled = "class Scaled:\n    def __init__(self, s):\n        self.s = s\n    def __call__(self, a, b):\n" \
             "        return {} * self.s\n"
    first = content_digest(define(scaled.format(1), what="Scaled")(3))
    two = define(scaled.format(2), what="Scaled")
    assert content_digest(two(3)) != first  # the class's __call__ counts
    assert content_digest(two(4)) != content_digest(two(3))  # and the object's state
    assert content_digest(two(3).__call__) != content_digest(two(4).__call__)  # a bound method


def test_what_cannot_be_read_is_named():
    def kern(a, b, token=(i for i in range(3))):
        return 1.0

    with pytest.raises(TypeError, match=r"kernel\[0\] \(function .*kern\)\.__defaults__\[0\] holds a generator"):
        content_digest([kern], names=["kernel"])


def test_a_data_set_and_the_list_of_its_graphs_are_the_same(tu_load):
    # issue 29, friction 13: a TUDataset was read by its arrays, a list of its graphs by
    # the graphs, so the two counted as different runs
    mutag = tu_load("MUTAG")
    assert content_digest(mutag) == content_digest(list(mutag))
    part = mutag[[3, 1, 4, 1, 5]]
    assert content_digest(part) == content_digest([part[i] for i in range(5)])
    assert content_digest(part) != content_digest(list(mutag[[3, 1, 4, 1, 6]]))
    enzymes = tu_load("ENZYMES")[:20]  # node attributes too
    assert content_digest(enzymes) == content_digest(list(enzymes))
    changed = list(enzymes)
    changed[4].nodes[0]["attributes"] = (0.0,) + changed[4].nodes[0]["attributes"][1:]
    assert content_digest(changed) != content_digest(enzymes)


def test_plain_attributes_reused_still_tell_values_apart():
    # node attributes' bytes are reused by value: 1, True, 1.0, 0.0 and -0.0 must stay apart
    digests = set()
    for value in (1, True, 1.0, 0.0, -0.0, "1", (1,), (1.0,), np.int64(1)):
        G = nx.path_graph(3)
        G.nodes[0]["label"] = 0
        G.nodes[1]["label"] = value
        digests.add(content_digest(G))
    assert len(digests) == 8  # np.int64(1) is the integer 1 by design

"""Every public name is in the API reference and shows a runnable example."""

import inspect
from pathlib import Path

import pytest

import graphinvariants as gi

API = (Path(__file__).resolve().parents[1] / "docs" / "api.rst").read_text()
CONSTANTS = {"DEFAULT_RIDGE", "KERNELS", "PERTURBATIONS"}


@pytest.mark.parametrize("name", sorted(set(gi.__all__) - CONSTANTS))
def test_public_name_is_in_the_api_reference(name):
    assert f"\n   {name}\n" in API


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_constants_have_their_own_description(name):
    """autosummary would show the docstring of the constant's type (float, dict)."""
    assert f"\n.. data:: {name}\n\n   " in API


@pytest.mark.parametrize("name", sorted(set(gi.__all__) - CONSTANTS))
def test_public_object_has_an_examples_section(name):
    doc = inspect.getdoc(getattr(gi, name))
    assert doc and "Examples\n--------" in doc and ">>>" in doc

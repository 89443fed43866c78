"""get_info (entry point networkx.backend_info) is generated, current and imports nothing."""

import ast

import _graphinvariants_nx
from graphinvariants.networkx_backend import info


def test_generated_file_is_up_to_date():
    # after changing a docstring of the backend: python -m graphinvariants.networkx_backend.info
    assert info.INFO_PATH.read_text() == info.render()
    assert _graphinvariants_nx.get_info() == info.build_info()


def test_get_info_module_imports_nothing():
    tree = ast.parse(info.INFO_PATH.read_text())
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def test_every_function_is_documented():
    functions = info.build_info()["functions"]
    assert all(entry["additional_docs"].startswith("The same") for entry in functions.values())

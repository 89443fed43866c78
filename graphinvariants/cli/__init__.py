"""The ``graphinvariants`` command: ``perturb`` (the main job), ``evaluate`` and ``demo``."""

from ._main import main

__all__ = ["main"]

"""``python -m graphinvariants.cli``: the console script ``graphinvariants``."""

import sys

from ._main import main

sys.exit(main())

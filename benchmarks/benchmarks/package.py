"""``import graphinvariants`` and ``graphinvariants --help`` in a fresh process: at most 1.5x the reference, what a
user of the library loads anyway (``import networkx, numpy, scipy.sparse``)."""

HELP = """
import contextlib, io
from graphinvariants.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["--help"])
    except SystemExit:
        pass
"""


class Import:
    params = ["reference: networkx, numpy, scipy.sparse", "import graphinvariants", "graphinvariants --help"]
    param_names = ["command"]
    repeat, number = 15, 1

    def timeraw_fresh_process(self, command):
        return {"reference: networkx, numpy, scipy.sparse": "import networkx, numpy, scipy.sparse",
                "import graphinvariants": "import graphinvariants", "graphinvariants --help": HELP}[command]

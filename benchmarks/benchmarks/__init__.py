"""asv suites of graphinvariants, one module per package (benchmarks/asv.conf.json).

Peers (GraKeL, FPSim2, ...) and the arithmetic floor are parameters beside the library,
so ``asv compare`` and the parameter tables give the ratios of one run; data and peers
come from :mod:`benchmarks.common`.
"""

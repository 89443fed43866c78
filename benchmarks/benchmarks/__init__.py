"""asv suites of graphinvariants, one module per package (benchmarks/asv.conf.json); peers (GraKeL, FPSim2, ...) and
the arithmetic floor are parameters beside the library, so one run gives the ratios; data from :mod:`benchmarks.common`.
"""

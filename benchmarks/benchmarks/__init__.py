"""asv suites of graphinvariants, one module per package; peers and the floor are parameters beside the library."""

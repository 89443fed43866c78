"""
Kernel matrix of MUTAG
======================

The power-kernel matrix of the 188 MUTAG molecules, rows grouped by class.
"""

import graphinvariants as gi

mutag = gi.load_tu("MUTAG")
print(mutag)
K = gi.power_kernel_matrix(mutag, k=5)
display = gi.plot_kernel_matrix(K, mutag.y)
display.ax_.set_title("power kernel, MUTAG (k = 5)")

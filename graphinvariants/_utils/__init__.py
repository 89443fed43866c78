"""Helpers shared by every layer: argument checks, the loader of optional extras and
compiled code, progress bars, BLAS threads and plotting helpers. Nothing here imports
another layer of the package."""

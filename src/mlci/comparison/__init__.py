"""Comparing systems (paired bootstrap, permutation) and methods (training runs)."""

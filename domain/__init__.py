"""Deadwood's rules: pure Python, standard library only, no clock, no global random, no I/O."""

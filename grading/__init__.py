"""Grading: Tier 1 deterministic rules, Tier 2 judges and the decision policy.

Pure functions over a bundle's files (``Mapping[str, str | bytes]``): no database, no queue, so
the same code grades a submission in a worker and a whole corpus from the command line.
"""

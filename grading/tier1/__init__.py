"""Tier 1: deterministic rules over every file of a bundle."""

from grading.tier1.catalogue import catalogue_version
from grading.tier1.engine import ENGINE_VERSION, scan, warm_up

__all__ = ["ENGINE_VERSION", "catalogue_version", "scan", "warm_up"]

"""Tier 1 throughput and per-skill latency over a corpus (``ROOT/manifest.csv`` format).

    python bench/tier1.py CORPUS [--repeat N]

Bundles are loaded first (I/O is not timed), one warm-up pass compiles the catalogue, then every
skill is scanned N times and its fastest run kept (the least disturbed by the rest of the
machine). A baseline measured in the same run — merely reading each bundle from disk and
NFKC-normalising its text — gives a machine-independent ratio. The last line printed is a JSON
object with the figures. This is a benchmark, never a test: nothing here asserts on timings.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import unicodedata
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grading.corpus import Skill, iter_skills
from grading.evaluation import percentile
from grading.tier1 import ENGINE_VERSION, catalogue_version, scan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="scans per skill (fastest kept)")
    args = parser.parse_args()
    skills = [s for s in iter_skills(args.corpus) if not s.error]
    if not skills:
        raise SystemExit(f"no readable skills in {args.corpus}")
    for skill in skills:
        scan(skill.files)
    tier1_ms = [_fastest(partial(scan, skill.files), args.repeat) for skill in skills]
    baseline_ms = [_fastest(partial(_read_and_normalise, skill), args.repeat) for skill in skills]
    total_s = sum(tier1_ms) / 1000
    chars = sum(_size(skill) for skill in skills)
    figures = {
        "engine_version": ENGINE_VERSION,
        "catalogue_version": catalogue_version(),
        "skills": len(skills),
        "median_ms": percentile(tier1_ms, 50),
        "p95_ms": percentile(tier1_ms, 95),
        "p99_ms": percentile(tier1_ms, 99),
        "max_ms": round(max(tier1_ms), 3),
        "skills_per_s": round(len(skills) / total_s, 1),
        "mb_per_s": round(chars / 1e6 / total_s, 2),
        "baseline_median_ms": percentile(baseline_ms, 50),
        "baseline_p99_ms": percentile(baseline_ms, 99),
        "ratio_median": round(percentile(tier1_ms, 50) / max(percentile(baseline_ms, 50), 1e-6), 2),
        "ratio_total": round(sum(tier1_ms) / max(sum(baseline_ms), 1e-6), 2),
    }
    _print_table(figures)
    print(json.dumps(figures))


def _fastest(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        run()
        best = min(best, (time.perf_counter() - started) * 1000)
    return best


def _read_and_normalise(skill: Skill) -> None:
    """The baseline: what any scanner must at least do — read the bundle, normalise its text."""
    path = skill.entry.path
    files = json.loads(path.read_text(encoding="utf-8"))["files"] if path.is_file() else skill.files
    for content in files.values():
        if isinstance(content, str):
            unicodedata.normalize("NFKC", content)


def _size(skill: Skill) -> int:
    return sum(len(c) for c in skill.files.values())


def _print_table(figures: dict[str, object]) -> None:
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()

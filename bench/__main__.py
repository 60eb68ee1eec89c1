"""Run every benchmark module (bench/bench_*.py exposing `run() -> list[str]`) and print figures.

`python -m bench` runs all; `python -m bench store cache` runs the named ones.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    wanted = {f"bench_{a}" for a in argv} if argv else set(names)
    failed = 0
    for name in names:
        if name not in wanted:
            continue
        module = importlib.import_module(f"bench.{name}")
        print(f"== {name} ==", flush=True)
        started = time.perf_counter()
        try:
            for line in module.run():
                print(f"  {line}", flush=True)
        except Exception as exc:  # a broken bench is reported, the others still run
            failed += 1
            print(f"  FAILED: {type(exc).__name__}: {exc}", flush=True)
        print(f"  ({time.perf_counter() - started:.1f}s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    sys.path[:0] = [str(root / "layers" / "core"), str(root / "dev")]
    raise SystemExit(main(sys.argv[1:]))

"""Cold import cost of the API function's handler module vs a minimal Powertools + boto3 handler.

Each import runs in a fresh interpreter, several times. Two figures per module, both net of a bare
interpreter (`python -c pass`): wall time of the subprocess, and the `-X importtime` cumulative total
(sum of the top-level import entries).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5
BASELINE_HANDLER = """\
import boto3
from aws_lambda_powertools import Logger

logger = Logger(service="baseline")


def handler(event, context):
    return {"statusCode": 200}
"""
CANDIDATES = ("functions.api.app", "trainer.api.app")


def _target_module() -> str | None:
    sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "core")]
    try:
        for name in CANDIDATES:
            try:
                if importlib.util.find_spec(name) is not None:
                    return name
            except ModuleNotFoundError:
                continue
        return None
    finally:
        del sys.path[:2]


def _importtime_total(stderr: str) -> int:
    total = 0
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not name.startswith("  "):
            total += int(cumulative.strip())
    return total


def _measure(code: str, cwd: Path, pythonpath: list[Path]) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in pythonpath), PYTHONDONTWRITEBYTECODE="")
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"`{code}` failed: {result.stderr.strip().splitlines()[-1:]}")
    return wall, _importtime_total(result.stderr) / 1e6


def _medians(code: str, cwd: Path, pythonpath: list[Path]) -> tuple[float, float]:
    runs = [_measure(code, cwd, pythonpath) for _ in range(RUNS)]
    return median(r[0] for r in runs), median(r[1] for r in runs)


def run() -> list[str]:
    target = _target_module()
    if target is None:
        return [f"no API handler module to measure: none of {', '.join(CANDIDATES)} exists yet"]
    paths = [ROOT, ROOT / "layers" / "core"]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "baseline_handler.py").write_text(BASELINE_HANDLER, encoding="utf-8")
        _measure(f"import {target}", ROOT, paths)
        bare_wall, bare_imports = _medians("pass", Path(tmp), [Path(tmp)])
        base_wall, base_imports = _medians("import baseline_handler", Path(tmp), [Path(tmp)])
        app_wall, app_imports = _medians(f"import {target}", ROOT, paths)
    base_wall, app_wall = base_wall - bare_wall, app_wall - bare_wall
    base_imports, app_imports = base_imports - bare_imports, app_imports - bare_imports
    return [
        f"median of {RUNS} fresh interpreters, net of `python -c pass` ({bare_wall * 1000:.0f} ms)",
        f"{target}: wall {app_wall * 1000:.0f} ms, importtime cumulative {app_imports * 1000:.0f} ms",
        f"baseline (Powertools Logger + boto3): wall {base_wall * 1000:.0f} ms, "
        f"importtime cumulative {base_imports * 1000:.0f} ms",
        f"ratio (importtime cumulative): {app_imports / base_imports:.2f}x (aim <= 2x); "
        f"wall {app_wall / base_wall:.2f}x",
    ]

"""Cold import cost of the API function's handler module vs a minimal Powertools + boto3 handler.

Each import runs in a fresh interpreter, several times, the modules taking turns. Two figures per
module, both net of a bare interpreter (`python -c pass`): wall time of the subprocess, and the
`-X importtime` cumulative total (sum of the top-level import entries).

The baseline is the smallest handler in the house style (aws-lambda-handler-cookbook): boto3 and the
three Powertools utilities built at module level and their decorators on the handler. Every handler
here carries Logger, Tracer and Metrics, and building a Tracer imports the X-Ray SDK and patches
botocore (the baseline patches what ours does, not everything it finds installed), a cost any traced
handler pays; with the baseline paying it too, the ratio keeps measuring what this app adds (FastAPI,
Mangum, the trainer package), as it did before tracing.

Both are imported with the variables Lambda sets (LAMBDA_TASK_ROOT...), because the X-Ray SDK and
Powertools take other paths outside Lambda: there the SDK's recorder builds the centralized sampler
and its botocore clients at import, which never happens in a function. The API function's come from
template.yaml (trainer_dev.testing.lambda_environment): deployed, it refuses to start without them.

Two settings, each with both modules:
- `venv`: the development venv (the figure quoted since the start): 100+ distributions, whose
  metadata pydantic's plugin loader scans, and bytecode written on the first run;
- `layer`: what Lambda imports, when `make build` has run: `.aws-sam/build/CoreLayer/python` and the
  function's built directory on an interpreter without site-packages (`-S`) that writes no bytecode
  (Lambda's code is read-only). `make build` compiles the layer; a plain `sam build` does not, and
  then every import compiles its sources (the line below the figures says which it is). The layer
  figure is of the code as of the last `make build`.
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

from trainer_dev.testing.lambda_environment import deployed_environment

ROOT = Path(__file__).resolve().parent.parent
RUNS = 7
BASELINE_HANDLER = """\
import boto3
from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger(service="baseline")
tracer = Tracer(service="baseline", patch_modules=["botocore"])
metrics = Metrics(namespace="Baseline", service="baseline")


@logger.inject_lambda_context
@metrics.log_metrics
@tracer.capture_lambda_handler
def handler(event, context):
    return {"statusCode": 200}
"""
CANDIDATES = ("functions.api.app", "trainer.api.app")
BUILT_LAYER = ROOT / ".aws-sam" / "build" / "CoreLayer" / "python"
BUILT_API = ROOT / ".aws-sam" / "build" / "ApiFunction"
LAMBDA_ENVIRONMENT = {
    **deployed_environment("ApiFunction"),
    "AWS_LAMBDA_FUNCTION_NAME": "bench",
    "AWS_REGION": "us-east-1",
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
}
"""Imported as in Lambda (plus LAMBDA_TASK_ROOT): the X-Ray SDK and Powertools take their Lambda paths
(the SDK's recorder uses the local sampler there, not the centralized one with its botocore clients)."""


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


def _measure(code: str, cwd: Path, pythonpath: list[Path], *, layer: bool = False) -> tuple[float, float]:
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(str(p) for p in pythonpath),
        PYTHONDONTWRITEBYTECODE="1" if layer else "",
        **LAMBDA_ENVIRONMENT,
        LAMBDA_TASK_ROOT=str(cwd),
    )
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, *(["-S"] if layer else []), "-X", "importtime", "-c", code],
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


Case = tuple[str, Path, list[Path], bool]


def _medians(cases: dict[str, Case]) -> dict[str, tuple[float, float]]:
    """(wall, importtime) medians per case; the cases take turns, so a change of load on the
    machine (other test runs) weighs on all of them alike."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(RUNS):
        for name, (code, cwd, pythonpath, layer) in cases.items():
            runs[name].append(_measure(code, cwd, pythonpath, layer=layer))
    return {name: (median(r[0] for r in got), median(r[1] for r in got)) for name, got in runs.items()}


def _bytecode(layer: Path) -> str:
    sources = [p for p in layer.rglob("*.py")]
    compiled = sum(1 for p in sources if Path(importlib.util.cache_from_source(str(p))).is_file())
    return f"{compiled}/{len(sources)} modules with bytecode"


def _figures(label: str, target: str, medians: dict[str, tuple[float, float]]) -> list[str]:
    (bare_wall, bare_imports), (base_wall, base_imports) = medians["bare"], medians["baseline"]
    app_wall, app_imports = medians["app"]
    base_wall, app_wall = base_wall - bare_wall, app_wall - bare_wall
    base_imports, app_imports = base_imports - bare_imports, app_imports - bare_imports
    return [
        f"[{label}] median of {RUNS} fresh interpreters, net of `python -c pass` ({bare_wall * 1000:.0f} ms)",
        f"[{label}] {target}: wall {app_wall * 1000:.0f} ms, "
        f"importtime cumulative {app_imports * 1000:.0f} ms",
        f"[{label}] baseline (Powertools Logger + Tracer + Metrics + boto3): wall {base_wall * 1000:.0f} ms, "
        f"importtime cumulative {base_imports * 1000:.0f} ms",
        f"[{label}] ratio (importtime cumulative): {app_imports / base_imports:.2f}x (aim <= 1.5x); "
        f"wall {app_wall / base_wall:.2f}x",
    ]


def run() -> list[str]:
    target = _target_module()
    if target is None:
        return [f"no API handler module to measure: none of {', '.join(CANDIDATES)} exists yet"]
    paths = [ROOT, ROOT / "layers" / "core"]
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "baseline_handler.py").write_text(BASELINE_HANDLER, encoding="utf-8")
        _measure(f"import {target}", ROOT, paths)
        venv = _medians(
            {
                "bare": ("pass", Path(tmp), [Path(tmp)], False),
                "baseline": ("import baseline_handler", Path(tmp), [Path(tmp)], False),
                "app": (f"import {target}", ROOT, paths, False),
            }
        )
        lines += _figures("venv", target, venv)
        if not (BUILT_LAYER / "trainer").is_dir() or not (BUILT_API / "app.py").is_file():
            return [*lines, "[layer] no build: `make build` first for the figures of the built layer"]
        built = _medians(
            {
                "bare": ("pass", Path(tmp), [Path(tmp)], True),
                "baseline": ("import baseline_handler", Path(tmp), [Path(tmp), BUILT_LAYER], True),
                "app": ("import app", BUILT_API, [BUILT_API, BUILT_LAYER], True),
            }
        )
        lines += _figures("layer", "the built ApiFunction's app", built)
        lines.append(f"[layer] {BUILT_LAYER.relative_to(ROOT)}: {_bytecode(BUILT_LAYER)}")
    return lines

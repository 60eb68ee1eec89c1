"""SnapStart: the runtime hooks are registered and do what they say, the init phase prewarms only when
no request waits for it, and nothing perishable is built into a snapshot."""

from __future__ import annotations

import ast
import asyncio
import importlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import snapshot_restore_py
from trainer import snapstart
from trainer.api.app import create_app
from trainer.container import PREWARMED_MODULES, Container
from trainer.settings import Settings
from trainer_dev.local.lambda_runtime import readiness_path
from trainer_dev.testing.lambda_environment import deployed_environment
from trainer_dev.testing.memory_store import InMemorySessionStore

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "layers" / "core" / "trainer"


@pytest.fixture
def hooks() -> Iterator[None]:
    """The module's hook registries as they were (the api handler's hooks included)."""
    before, after = dict(snapstart._before_snapshot), dict(snapstart._after_restore)
    yield
    snapstart._before_snapshot.clear()
    snapstart._before_snapshot.update(before)
    snapstart._after_restore.clear()
    snapstart._after_restore.update(after)


def run_as_the_runtime(registry: list[Any]) -> None:
    """What awslambdaric does with snapshot_restore_py's registry (before-snapshot callables are run
    last first; it pops them, this leaves the registry as it is)."""
    for func, args, kwargs in registry:
        func(*args, **kwargs)


def test_the_runtime_finds_the_two_entry_points() -> None:
    assert (snapstart.run_before_snapshot, (), {}) in snapshot_restore_py.get_before_snapshot()
    assert (snapstart.run_after_restore, (), {}) in snapshot_restore_py.get_after_restore()


def test_hooks_run_in_the_runtimes_order_and_a_name_replaces_its_own(hooks: None) -> None:
    ran: list[str] = []
    snapstart.on_snapshot(
        "first", before=lambda: ran.append("before first"), after=lambda: ran.append("after first")
    )
    snapstart.on_snapshot("second", before=lambda: ran.append("before second"))
    snapstart.on_snapshot("third", before=lambda: ran.append("stale"), after=lambda: ran.append("stale"))
    snapstart.on_snapshot("third", after=lambda: ran.append("after third"))
    snapstart.run_before_snapshot()
    snapstart.run_after_restore()
    assert ran == ["before second", "before first", "after first", "after third"]


def test_a_restore_reseeds_random() -> None:
    random.seed(1234)
    from_the_snapshot = [random.random() for _ in range(4)]
    random.seed(1234)
    run_as_the_runtime(snapshot_restore_py.get_after_restore())
    assert [random.random() for _ in range(4)] != from_the_snapshot


def _api_handler() -> Any:
    try:
        return importlib.import_module("functions.api.app")
    finally:
        import gc

        gc.unfreeze()


def test_the_api_handler_closes_a_container_built_before_the_snapshot(hooks: None) -> None:
    handler = _api_handler()
    provider = handler.app.state.container_provider
    closed: list[str] = []

    async def close() -> None:
        closed.append("pool")

    async def build() -> Container:
        return Container(settings=Settings(), store=InMemorySessionStore(), agent=object(), closers=[close])  # type: ignore[arg-type]

    provider._factory = build
    loop = asyncio.get_event_loop_policy().get_event_loop()
    built = loop.run_until_complete(provider.get())
    provider._verifier = object()

    run_as_the_runtime(list(reversed(snapshot_restore_py.get_before_snapshot())))

    assert closed == ["pool"], "the container's connections are closed before the snapshot"
    assert provider._verifier is None
    rebuilt = loop.run_until_complete(provider.get())
    assert rebuilt is not built, "the first request after the restore builds a fresh container"

    provider._verifier = object()
    run_as_the_runtime(snapshot_restore_py.get_after_restore())
    assert provider._verifier is None, "the JWKS cache is not carried across a restore"


@pytest.mark.parametrize(
    ("init_type", "snapshot", "prewarm"),
    [
        (None, False, False),
        ("on-demand", False, False),
        ("provisioned-concurrency", False, True),
        ("snap-start", True, True),
    ],
)
def test_the_init_type_decides_what_the_init_phase_does(
    init_type: str | None, snapshot: bool, prewarm: bool
) -> None:
    settings = Settings(AWS_LAMBDA_INITIALIZATION_TYPE=init_type)
    assert settings.snapshot_init is snapshot
    assert settings.prewarm_at_init is prewarm


async def test_a_snapshot_init_starts_uvicorn_with_a_prewarm_and_no_container() -> None:
    """The stream function under the Lambda Web Adapter: no runtime hooks reach its process, so its
    lifespan must not open connections or read secrets in a snapshot init."""
    app = create_app(settings=Settings(AWS_LAMBDA_INITIALIZATION_TYPE="snap-start"))
    provider = app.state.container_provider
    done: list[str] = []

    async def build() -> Container:
        raise AssertionError("the container is built by the first request after the restore")

    provider._factory = build
    provider.prewarm = lambda: done.append("prewarm")
    async with app.router.lifespan_context(app):
        pass
    assert done == ["prewarm"]


async def test_an_on_demand_start_builds_the_container_in_the_lifespan() -> None:
    app = create_app(settings=Settings(AWS_LAMBDA_INITIALIZATION_TYPE="on-demand"))
    provider = app.state.container_provider
    built: list[Container] = []

    async def build() -> Container:
        built.append(Container(settings=Settings(), store=InMemorySessionStore(), agent=object()))  # type: ignore[arg-type]
        return built[-1]

    provider._factory = build
    provider.prewarm = lambda: pytest.fail("an on-demand start builds, it does not prewarm")
    async with app.router.lifespan_context(app):
        assert len(built) == 1


async def test_the_first_build_after_a_snapshot_init_reseeds_random() -> None:
    app = create_app(settings=Settings(AWS_LAMBDA_INITIALIZATION_TYPE="snap-start"))
    provider = app.state.container_provider

    async def build() -> Container:
        return Container(settings=Settings(), store=InMemorySessionStore(), agent=object())  # type: ignore[arg-type]

    provider._factory = build
    random.seed(99)
    from_the_snapshot = [random.random() for _ in range(4)]
    random.seed(99)
    await provider.get()
    assert [random.random() for _ in range(4)] != from_the_snapshot


def _lazily_imported(path: Path, functions: set[str] | None = None) -> set[str]:
    """Modules imported inside the functions of a module (all of them, or the ones named)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if functions is not None and node.name not in functions:
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and inner.module and inner.level == 0:
                found.add(inner.module)
            elif isinstance(inner, ast.Import):
                found.update(alias.name for alias in inner.names)
    return found


def _modules_after_import(init_type: str) -> set[str]:
    environment = {
        **deployed_environment("ApiFunction"),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "layers" / "core")]),
        "AWS_LAMBDA_INITIALIZATION_TYPE": init_type,
        "LAMBDA_TASK_ROOT": str(ROOT / "functions" / "api"),
    }
    code = "import json, sys; import functions.api.app; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return set(json.loads(result.stdout.splitlines()[-1]))


def test_a_snapshot_init_imports_what_the_first_request_would() -> None:
    """Every module the container build, the secrets and the token check import when they first run,
    the model SDKs, psycopg and the X-Ray SDK are in the snapshot; the on-demand import stays lean."""
    wanted = (
        _lazily_imported(PACKAGE / "container.py")
        | _lazily_imported(PACKAGE / "runtime_secrets.py")
        | _lazily_imported(PACKAGE / "api" / "app.py", {"build"})
        | _lazily_imported(PACKAGE / "api" / "auth.py")
        | set(PREWARMED_MODULES)
        | {"anthropic", "openai", "psycopg", "psycopg_pool", "aws_xray_sdk", "botocore.client"}
    )
    snapshot = _modules_after_import("snap-start")
    assert wanted <= snapshot, f"not prewarmed: {sorted(wanted - snapshot)}"
    on_demand = _modules_after_import("on-demand")
    assert not {"anthropic", "openai", "psycopg", "trainer.chat.turn"} & on_demand


@pytest.mark.parametrize(
    ("environment", "path"),
    [
        ({}, "/"),
        ({"AWS_LWA_READINESS_CHECK_PATH": "/health"}, "/health"),
        ({"AWS_LWA_READINESS_CHECK_PROTOCOL": "tcp", "AWS_LWA_READINESS_CHECK_PATH": "/health"}, None),
    ],
)
def test_the_emulated_adapter_checks_readiness_as_configured(
    environment: dict[str, str], path: str | None
) -> None:
    assert readiness_path(environment) == path

"""Lambda SnapStart: what the snapshot holds, and what is redone after a restore.

With SnapStart (template.yaml: ApiFunction, StreamFunction) Lambda runs a version's init phase once,
when the version is published, snapshots the microVM, and resumes every new execution environment
from that snapshot, possibly days later and many times over. Hence:

- the init phase does the work that holds nothing per-environment or perishable
  (`trainer.container.prewarm`: imports of the adapters and the model SDKs, the tool registry,
  boto3's service models), so the first request after a restore does only its I/O;
- nothing that goes stale is in the snapshot: the secrets (SSM, Secrets Manager), the Postgres pool
  and the JWKS keys are fetched by the first request after the restore, as on any cold start, and a
  container built during init anyway is closed before the snapshot (`ContainerProvider.before_snapshot`);
- after a restore `random` is reseeded (`restore_uniqueness`): the retry jitter of the store and the
  SDKs would otherwise be the same sequence in every environment restored from one snapshot.
  `uuid4` and `secrets` read the kernel's generator and need nothing.

The Python runtime runs the callables registered with `snapshot_restore_py` (part of the managed
runtime; the `snapshot-restore-py` package locally): this module registers `run_before_snapshot` and
`run_after_restore` once, and they run the hooks handler modules add with `on_snapshot`, keyed by name
so a handler module imported again (tests, `trainer invoke`) replaces its hooks instead of stacking
them. A hook that raises fails the snapshot (the version does not publish) or the restore (the
environment is discarded) rather than serving from a half-prepared state.

The stream function runs under the Lambda Web Adapter: the runtime client there is the adapter, so
these hooks never run in its uvicorn process. Its lifespan only prewarms in a snapshot init, and its
first container build after the restore reseeds (trainer.api.app).
"""

from __future__ import annotations

import random
from collections.abc import Callable

Hook = Callable[[], None]

_before_snapshot: dict[str, Hook] = {}
_after_restore: dict[str, Hook] = {}


def restore_uniqueness() -> None:
    """Reseeds `random` from the kernel's generator (see the module docstring)."""
    random.seed()


def on_snapshot(name: str, *, before: Hook | None = None, after: Hook | None = None) -> None:
    """Hooks run before the snapshot (in reverse order of registration, as the runtime's own) and
    after a restore (in order of registration). A name registered again replaces its hooks."""
    for registry, hook in ((_before_snapshot, before), (_after_restore, after)):
        registry.pop(name, None)
        if hook is not None:
            registry[name] = hook


def run_before_snapshot() -> None:
    for hook in reversed(list(_before_snapshot.values())):
        hook()


def run_after_restore() -> None:
    for hook in list(_after_restore.values()):
        hook()


on_snapshot("uniqueness", after=restore_uniqueness)

try:
    from snapshot_restore_py import register_after_restore, register_before_snapshot
except ImportError:  # outside Lambda without the package: nothing would run the hooks anyway
    pass
else:
    register_before_snapshot(run_before_snapshot)
    register_after_restore(run_after_restore)

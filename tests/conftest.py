"""Root fixtures. Real components come from plugin modules, each owned by its concept:
moto server (tests/fixtures_moto.py) and embedded Postgres (tests/fixtures_pg.py); no test reaches a
real model unless told to (tests/model_requests.py); a scripted model fails the test that ran out of
its script or left part of it unused (tests/fixtures_scripted_model.py); each run's temporary files live
in a directory of its own, which no other run on the machine touches (tests/temp_dirs.py); the run ends
with the time each part of the suite took (tests/time_breakdown.py). The fakes
themselves live in trainer_dev.testing (tests/README.md says which to use when).

`frozen_now`: the wall clock (time-machine) stopped at the real instant the test starts, for tests whose
expectation is today's date: the code under test and the test read the same day even across midnight
(docs/testing.md#the-layers). Monotonic clocks keep running, so timeouts and the event loop are unaffected."""

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import time_machine
from hypothesis import HealthCheck, settings

settings.register_profile("trainer", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("trainer")
"""Hypothesis's timing checks off for every property: on a loaded machine (CI shares cores) a slow
draw is load, not a fault; speed targets live in the benchmarks (`make bench`), not in tests."""

pytest_plugins = [
    "tests.temp_dirs",
    "tests.model_requests",
    "tests.fixtures_moto",
    "tests.fixtures_pg",
    "tests.fixtures_scripted_model",
    "tests.time_breakdown",
]


@pytest.fixture
def frozen_now() -> Iterator[datetime]:
    now = datetime.now(UTC)
    with time_machine.travel(now, tick=False):
        yield now

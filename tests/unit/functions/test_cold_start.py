"""The init phase runs without the cyclic collector and leaves what it built frozen."""

from __future__ import annotations

import gc

import pytest
from trainer.cold_start import init_phase


@pytest.fixture
def unfreeze():
    yield
    gc.unfreeze()


def test_collector_is_off_inside_and_on_after(unfreeze: None) -> None:
    assert gc.isenabled()
    with init_phase():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_objects_built_during_init_are_frozen(unfreeze: None) -> None:
    before = gc.get_freeze_count()
    with init_phase():
        kept = [{"built": i} for i in range(1000)]
    assert gc.get_freeze_count() >= before + len(kept)


def test_collector_stays_off_when_it_was_off(unfreeze: None) -> None:
    gc.disable()
    try:
        with init_phase():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_init_failure_still_restores_the_collector(unfreeze: None) -> None:
    with pytest.raises(RuntimeError), init_phase():
        raise RuntimeError("bad configuration")
    assert gc.isenabled()

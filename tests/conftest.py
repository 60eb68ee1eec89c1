"""Root fixtures. Real components come from plugin modules, each owned by its concept:
moto server (tests/fixtures_moto.py) and embedded Postgres (tests/fixtures_pg.py); no test reaches a
real model unless told to (tests/model_requests.py); a scripted model fails the test that ran out of
its script or left part of it unused (tests/fakes/scripted_model.py)."""

pytest_plugins = [
    "tests.model_requests",
    "tests.fixtures_moto",
    "tests.fixtures_pg",
    "tests.fakes.scripted_model",
]
